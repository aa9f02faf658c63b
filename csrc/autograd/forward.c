/* Forward-mode AD: dual levels, tangent storage, and the jvp of a node.
 *
 * A kind without its own jvp gets one from its backward by the transpose
 * trick: the vjp v = J^T u is linear in u and built from differentiable ops,
 * so with u a zeros tensor that requires grad, s = sum_e <v_e, t_e> = <u, J t>
 * and ds/du = J t, which one capture-mode run of the engine yields (<,> the
 * real inner product Re sum conj(a) b, which complex values need). */
#include "forward.h"
#include "backend.h"
#include "engine.h"
#include "formula.h"
#include "grad_mode.h"

#include <stdlib.h>
#include <string.h>

uint64_t mt_fw_level;
static uint64_t last_level;
MT_HOT_TLS _Thread_local bool mt_fw_grad_enabled = true;

static const mt_node_kind marker_kind = {"ForwardTangent", NULL, 0, false, false};
mt_node mt_fw_edge_marker = {.refcount = INT64_MAX / 2, .kind = &marker_kind};

int mt_fw_enter_level(void)
{
    if (mt_fw_level) {
        mt_error(MT_ERR_RUNTIME, "Nested forward mode AD is not supported at the moment");
        return -1;
    }
    mt_fw_level = ++last_level;
    return 0;
}

void mt_fw_exit_level(void) { mt_fw_level = 0; }

mt_tensor *mt_fw_grad(mt_tensor *t)
{
    if (!mt_fw_active())
        return NULL;
    mt_autograd_meta *m = mt_meta.get(t);
    return m && m->fw_grad && m->fw_level == mt_fw_level ? m->fw_grad : NULL;
}

int mt_fw_set_grad(mt_tensor *t, mt_tensor *tangent)
{
    mt_autograd_meta *m = tangent ? mt_meta.get_or_create(t) : mt_meta.get(t);
    if (!m)
        return tangent ? -1 : 0;
    if (tangent)
        mt_retain(tangent);
    if (m->fw_grad)
        mt_release(m->fw_grad);
    m->fw_grad = tangent;
    m->fw_level = mt_fw_level;
    return 0;
}

/* <v, t> = Re sum conj(v) t, the real inner product the vjp is the adjoint
 * under (torch's convention conjugates complex factors in backward), so its
 * gradient in u is J t for complex values as for real ones. */
static mt_tensor *pairing(mt_tensor *v, mt_tensor *t)
{
    if (!mt_is_complex(v->dtype) && !mt_is_complex(t->dtype)) {
        mt_tensor *p = mt_call(MT_OP_mul, "TT", v, t);
        mt_tensor *q = p ? mt_call(MT_OP_sum, "T", p) : NULL;
        mt_release_all(1, &p);
        return q;
    }
    mt_tensor *c = mt_call(MT_OP_conj, "T", v);
    mt_tensor *p = c ? mt_call(MT_OP_mul, "TT", c, t) : NULL;
    mt_tensor *re = p ? mt_call(MT_OP_real, "T", p) : NULL;
    mt_tensor *q = re ? mt_call(MT_OP_sum, "T", re) : NULL;
    mt_release_all(1, &c);
    mt_release_all(1, &p);
    mt_release_all(1, &re);
    return q;
}

static int jvp_from_backward(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    mt_tensor **u = calloc((size_t)n->nout * 3 + n->nedges + 1, sizeof(mt_tensor *));
    if (!u) {
        mt_error(MT_ERR_RUNTIME, "out of memory");
        return -1;
    }
    mt_tensor **inputs = u + n->nout, **captured = inputs + n->nout, **v = captured + n->nout;
    mt_tensor *s = NULL, *one = NULL;
    int ninputs = 0, status = -1;
    for (int k = 0; k < n->nout; k++) {
        const mt_tensor_meta *m = &n->out_meta[k];
        if (!mt_is_inexact(m->dtype))
            continue;
        if (!(u[k] = mt_new(m->dtype, m->ndim, m->sizes, true)))
            goto done;
        u[k]->flags |= MT_FLAG_REQUIRES_GRAD;
        inputs[ninputs++] = u[k];
    }
    if (n->kind->backward(n, u, v) < 0)
        goto done;
    for (int e = 0; e < n->nedges; e++) {
        if (!v[e] || !tin[e])
            continue;
        mt_tensor *q = pairing(v[e], tin[e]);
        if (!q)
            goto done;
        if (s) {
            mt_tensor *r = mt_call(MT_OP_add, "TT", s, q);
            mt_release(q);
            mt_release(s);
            if (!(s = r))
                goto done;
        } else
            s = q;
    }
    if (s && mt_requires_grad(s)) {
        if (!(one = mt_call(MT_OP_ones_like, "T", s)))
            goto done;
        mt_backward_task task = {.nroots = 1,
                                 .roots = &s,
                                 .root_grads = &one,
                                 .ninputs = ninputs,
                                 .inputs = inputs,
                                 .captured = captured};
        if (mt_run_backward(&task) < 0)
            goto done;
        for (int k = 0, i = 0; k < n->nout; k++)
            if (u[k])
                tout[k] = captured[i++];
    }
    status = 0;
done:
    mt_release_all(n->nout, u);
    mt_release_all(n->nedges, v);
    if (s)
        mt_release(s);
    if (one)
        mt_release(one);
    free(u);
    return status;
}

static bool same_sizes(const mt_tensor *t, const mt_tensor_meta *m)
{
    return t->ndim == m->ndim && memcmp(t->sizes, m->sizes, sizeof(int64_t) * m->ndim) == 0;
}

/* Brings a tangent to its output's shape and dtype (consumes t); zeros for NULL. */
static mt_tensor *fit(mt_tensor *t, const mt_tensor_meta *m)
{
    if (!t)
        return mt_new(m->dtype, m->ndim, m->sizes, true);
    if (!same_sizes(t, m)) {
        mt_tensor *e = mt_call(MT_OP_expand, "TL", t, m->ndim, m->sizes);
        mt_release(t);
        if (!e)
            return NULL;
        /* an expanded tangent would alias one element many times */
        t = mt_call(MT_OP_contiguous, "T", e);
        mt_release(e);
        if (!t)
            return NULL;
    }
    if (t->dtype != m->dtype) {
        mt_tensor *c = mt_call(MT_OP_to, "TD", t, (int)m->dtype);
        mt_release(t);
        t = c;
    }
    return t;
}

int mt_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    bool grad = mt_grad_enabled, fw = mt_fw_grad_enabled;
    mt_fw_grad_enabled = false;
    mt_grad_enabled = n->kind->jvp == NULL;
    int status = (n->kind->jvp ? n->kind->jvp : jvp_from_backward)(n, tin, tout);
    mt_grad_enabled = grad;
    for (int k = 0; status == 0 && k < n->nout; k++) {
        if (!mt_is_inexact(n->out_meta[k].dtype)) {
            if (tout[k]) {
                mt_release(tout[k]);
                tout[k] = NULL;
            }
            continue;
        }
        if (!(tout[k] = fit(tout[k], &n->out_meta[k])))
            status = -1;
    }
    mt_fw_grad_enabled = fw;
    if (status < 0)
        mt_release_all(n->nout, tout);
    return status;
}
