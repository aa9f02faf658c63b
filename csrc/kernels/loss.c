#include "loss.h"
#include "typed.h"
#include "../core/error.h"

#include <math.h>

/* input seen as [n, c, h, w], target and out (for "none") as [n, h, w];
 * strides in elements. */
typedef struct {
    int64_t n, c, h, w;
    int64_t is[4], ts[3];
} geometry;

static void geometry_of(geometry *g, const mt_tensor *input, const mt_tensor *target)
{
    const mt_tensor *x = input;
    int64_t s[4] = {0, 0, 0, 0}, z[4] = {1, 1, 1, 1};
    if (x->ndim == 1) {
        z[1] = x->sizes[0];
        s[1] = x->strides[0];
    } else {
        for (int d = 0; d < x->ndim; d++) {
            z[d] = x->sizes[d];
            s[d] = x->strides[d];
        }
    }
    g->n = z[0];
    g->c = z[1];
    g->h = z[2];
    g->w = z[3];
    for (int d = 0; d < 4; d++)
        g->is[d] = s[d];
    for (int d = 0; d < 3; d++)
        g->ts[d] = 0;
    if (x->ndim >= 2)
        for (int d = 0; d < target->ndim && d < 3; d++)
            g->ts[d] = target->sizes[d] > 1 ? target->strides[d] : 0;
}

/* Calls visit(ctx, position, input offset of the picked score, weight) for
 * every position not ignored; the total weight through *total. */
typedef void (*visit_fn)(void *ctx, int64_t pos, int64_t at, double w);

static int each_pick(const geometry *g, const mt_tensor *target, const mt_tensor *weight,
                     int64_t ignore_index, visit_fn visit, void *ctx, double *total)
{
    const int64_t *t = (const int64_t *)mt_data(target);
    double sum = 0;
    int64_t pos = 0;
    for (int64_t i = 0; i < g->n; i++)
        for (int64_t y = 0; y < g->h; y++)
            for (int64_t x = 0; x < g->w; x++, pos++) {
                int64_t cls = t[i * g->ts[0] + y * g->ts[1] + x * g->ts[2]];
                if (cls == ignore_index)
                    continue;
                if (cls < 0 || cls >= g->c)
                    return mt_error(MT_ERR_INDEX, "Target %lld is out of bounds.", (long long)cls);
                double w = weight ? mt_float_at(weight, cls * weight->strides[0]) : 1.0;
                sum += w;
                visit(ctx, pos, i * g->is[0] + cls * g->is[1] + y * g->is[2] + x * g->is[3], w);
            }
    *total = sum;
    return 0;
}

typedef struct {
    const mt_tensor *input;
    mt_tensor *out; /* per position, or NULL when reducing */
    double sum;
} forward_ctx;

static void forward_visit(void *p, int64_t pos, int64_t at, double w)
{
    forward_ctx *c = p;
    double v = -w * mt_float_at(c->input, at);
    if (c->out)
        mt_float_set(c->out, pos, v);
    else
        c->sum += v;
}

int mt_nll_loss(mt_tensor *out, const mt_tensor *input, const mt_tensor *target,
                const mt_tensor *weight, mt_reduction reduction, int64_t ignore_index)
{
    geometry g;
    geometry_of(&g, input, target);
    forward_ctx c = {input, reduction == MT_REDUCTION_NONE ? out : NULL, 0};
    double total = 0;
    if (each_pick(&g, target, weight, ignore_index, forward_visit, &c, &total) < 0)
        return -1;
    if (reduction == MT_REDUCTION_SUM)
        mt_float_set(out, 0, c.sum);
    else if (reduction == MT_REDUCTION_MEAN)
        mt_float_set(out, 0, total == 0 ? NAN : c.sum / total);
    return 0;
}

typedef struct {
    mt_tensor *grad_input;
    const mt_tensor *grad_out;
    int64_t gs[3]; /* grad_out strides over [n, h, w], for "none" */
    int64_t h, w;
    double scale; /* reductions: the one upstream value, divided for the mean */
    bool per_position;
} backward_ctx;

static void backward_visit(void *p, int64_t pos, int64_t at, double w)
{
    backward_ctx *c = p;
    double g = c->scale;
    if (c->per_position) {
        int64_t x = pos % c->w, y = pos / c->w % c->h, i = pos / c->w / c->h;
        g = mt_float_at(c->grad_out, i * c->gs[0] + y * c->gs[1] + x * c->gs[2]);
    }
    mt_float_set(c->grad_input, at, -w * g);
}

int mt_nll_loss_backward(mt_tensor *grad_input, const mt_tensor *grad_out, const mt_tensor *target,
                         const mt_tensor *weight, mt_reduction reduction, int64_t ignore_index)
{
    geometry g;
    geometry_of(&g, grad_input, target);
    /* grad_input is dense: its own strides address the picks */
    backward_ctx c = {grad_input, grad_out, {0, 0, 0}, g.h, g.w, 0, reduction == MT_REDUCTION_NONE};
    if (c.per_position) {
        if (grad_input->ndim >= 2)
            for (int d = 0; d < grad_out->ndim && d < 3; d++)
                c.gs[d] = grad_out->sizes[d] > 1 ? grad_out->strides[d] : 0;
    } else {
        c.scale = mt_float_at(grad_out, 0);
    }
    if (reduction == MT_REDUCTION_MEAN) {
        /* the total weight first, so the scale is known before any store */
        double total = 0;
        const int64_t *t = (const int64_t *)mt_data(target);
        for (int64_t i = 0; i < g.n; i++)
            for (int64_t y = 0; y < g.h; y++)
                for (int64_t x = 0; x < g.w; x++) {
                    int64_t cls = t[i * g.ts[0] + y * g.ts[1] + x * g.ts[2]];
                    if (cls != ignore_index && cls >= 0 && cls < g.c)
                        total += weight ? mt_float_at(weight, cls * weight->strides[0]) : 1.0;
                }
        c.scale = total == 0 ? NAN : c.scale / total;
    }
    double unused;
    return each_pick(&g, target, weight, ignore_index, backward_visit, &c, &unused);
}
