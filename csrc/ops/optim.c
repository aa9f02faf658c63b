/* The rows of optim.def, the fused optimizer steps: validate the operands of
 * one parameter's update, hand dense float32/float64 buffers to the kernel,
 * and route every other layout or floating dtype through contiguous working
 * copies. Plain C: impls read typed mt_args, write the parameter and its
 * state in place (bumping their versions), and report failures with
 * mt_error; nothing here may touch Python. */
#include "runtime/args.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/optim.h"

#include <string.h>

#define MAX_OPERANDS 5

typedef struct {
    const char *name;
    mt_tensor *t; /* NULL: not used by this update */
    bool written;
} operand;

typedef void (*optim_kernel)(const mt_optim_operands *o, const void *hyper);

static bool has_internal_overlap(const mt_tensor *t)
{
    for (int d = 0; d < t->ndim; d++)
        if (t->strides[d] == 0 && t->sizes[d] > 1)
            return true;
    return false;
}

static bool check(const char *op, const operand *ops, int n)
{
    const mt_tensor *p = ops[0].t;
    if (!mt_is_floating(p->dtype)) {
        mt_error(MT_ERR_RUNTIME, "%s(): expected a floating-point param, but got %s", op,
                 mt_dtype_infos[p->dtype].scalar_name);
        return false;
    }
    for (int k = 0; k < n; k++) {
        const mt_tensor *t = ops[k].t;
        if (!t)
            continue;
        if (t->dtype != p->dtype) {
            mt_error(MT_ERR_RUNTIME, "%s(): expected %s to have dtype %s, but got %s", op,
                     ops[k].name, mt_dtype_infos[p->dtype].scalar_name,
                     mt_dtype_infos[t->dtype].scalar_name);
            return false;
        }
        if (t->ndim != p->ndim || memcmp(t->sizes, p->sizes, sizeof(int64_t) * p->ndim)) {
            char want[256], got[256];
            mt_format_shape(want, sizeof want, p->ndim, p->sizes);
            mt_format_shape(got, sizeof got, t->ndim, t->sizes);
            mt_error(MT_ERR_RUNTIME, "%s(): expected %s to have the shape of param %s, but got %s",
                     op, ops[k].name, want, got);
            return false;
        }
        if (ops[k].written && has_internal_overlap(t)) {
            mt_error(MT_ERR_RUNTIME,
                     "unsupported operation: more than one element of the written-to tensor "
                     "refers to a single memory location. Please clone() the tensor before "
                     "performing the operation.");
            return false;
        }
    }
    return true;
}

static bool dense_native(const operand *ops, int n)
{
    mt_dtype d = ops[0].t->dtype;
    if (d != MT_FLOAT32 && d != MT_FLOAT64)
        return false;
    for (int k = 0; k < n; k++)
        if (ops[k].t && !mt_tensor_is_contiguous(ops[k].t))
            return false;
    return true;
}

static void *operand_data(const operand *ops, int k, mt_tensor *work)
{
    if (!ops[k].t)
        return NULL;
    return work ? mt_data(&work[k]) : mt_data(ops[k].t);
}

/* ops[0] is param, ops[1] grad, the rest the kernel's state slots in order. */
static int step(mt_result *r, const char *op, const operand *ops, int n, optim_kernel kernel,
                const void *hyper)
{
    if (!check(op, ops, n))
        return -1;
    const mt_tensor *p = ops[0].t;
    mt_tensor work_buf[MAX_OPERANDS];
    mt_tensor *work = NULL;
    int made = 0;
    if (!dense_native(ops, n)) {
        mt_dtype wd = p->dtype == MT_FLOAT64 ? MT_FLOAT64 : MT_FLOAT32;
        work = work_buf;
        for (; made < n; made++) {
            if (!ops[made].t)
                continue;
            if (mt_tensor_init_contiguous(&work[made], wd, p->ndim, p->sizes, false) < 0)
                goto fail;
            mt_copy(&work[made], ops[made].t);
        }
    }
    mt_optim_operands o = {work ? work[0].dtype : p->dtype, p->numel, operand_data(ops, 0, work),
                           operand_data(ops, 1, work)};
    for (int k = 2; k < n; k++)
        o.state[k - 2] = operand_data(ops, k, work);
    kernel(&o, hyper);
    for (int k = 0; k < n; k++) {
        if (!ops[k].t || !ops[k].written)
            continue;
        if (work)
            mt_copy(ops[k].t, &work[k]);
        mt_bump_version(ops[k].t);
    }
    for (int k = 0; k < made; k++)
        if (ops[k].t)
            mt_tensor_release(&work[k]);
    r->kind = MT_RESULT_NONE;
    return 0;
fail:
    for (int k = 0; k < made; k++)
        if (ops[k].t)
            mt_tensor_release(&work[k]);
    return -1;
}

static void sgd_kernel(const mt_optim_operands *o, const void *h) { mt_optim_sgd(o, h); }
static void adam_kernel(const mt_optim_operands *o, const void *h) { mt_optim_adam(o, h); }
static void rmsprop_kernel(const mt_optim_operands *o, const void *h) { mt_optim_rmsprop(o, h); }
static void adagrad_kernel(const mt_optim_operands *o, const void *h) { mt_optim_adagrad(o, h); }
static void nadam_kernel(const mt_optim_operands *o, const void *h) { mt_optim_nadam(o, h); }
static void radam_kernel(const mt_optim_operands *o, const void *h) { mt_optim_radam(o, h); }
static void adamax_kernel(const mt_optim_operands *o, const void *h) { mt_optim_adamax(o, h); }
static void rprop_kernel(const mt_optim_operands *o, const void *h) { mt_optim_rprop(o, h); }
static void asgd_kernel(const mt_optim_operands *o, const void *h) { mt_optim_asgd(o, h); }

/* The state tensor at argument i when the update needs it, else NULL. */
static bool state_arg(mt_args *a, int i, bool needed, const char *op, const char *name,
                      const char *why, mt_tensor **out)
{
    *out = NULL;
    if (!needed)
        return true;
    if (mt_is_none(a, i)) {
        mt_error(MT_ERR_RUNTIME, "%s(): %s is required when %s", op, name, why);
        return false;
    }
    *out = a->v[i].t;
    return true;
}

/* _fused_sgd_step(param, grad, momentum_buffer, lr, momentum, dampening,
 * weight_decay, nesterov, maximize, first_step) */
int impl_fused_sgd_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_sgd_step";
    mt_sgd_hyper h = {a->v[3].f, a->v[4].f, a->v[5].f, a->v[6].f, a->v[7].b, a->v[8].b, a->v[9].b};
    operand ops[3] = {
        {"param", a->v[0].t, true}, {"grad", a->v[1].t, false}, {"momentum_buffer", NULL, true}};
    if (!state_arg(a, 2, h.momentum != 0, op, "momentum_buffer", "momentum != 0", &ops[2].t))
        return -1;
    return step(r, op, ops, 3, sgd_kernel, &h);
}

static bool check_step(const char *op, int64_t step)
{
    if (step >= 1)
        return true;
    mt_error(MT_ERR_VALUE, "%s(): step must be at least 1, got %lld", op, (long long)step);
    return false;
}

/* _fused_adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, lr, beta1,
 * beta2, eps, weight_decay, step, amsgrad, maximize, decoupled) */
int impl_fused_adam_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_adam_step";
    mt_adam_hyper h = {a->v[5].f,  a->v[6].f,  a->v[7].f,  a->v[8].f, a->v[9].f,
                       a->v[10].i, a->v[11].b, a->v[12].b, a->v[13].b};
    if (!check_step(op, h.step))
        return -1;
    operand ops[5] = {{"param", a->v[0].t, true},
                      {"grad", a->v[1].t, false},
                      {"exp_avg", a->v[2].t, true},
                      {"exp_avg_sq", a->v[3].t, true},
                      {"max_exp_avg_sq", NULL, true}};
    if (!state_arg(a, 4, h.amsgrad, op, "max_exp_avg_sq", "amsgrad=True", &ops[4].t))
        return -1;
    return step(r, op, ops, 5, adam_kernel, &h);
}

/* _fused_rmsprop_step(param, grad, square_avg, grad_avg, momentum_buffer, lr,
 * alpha, eps, weight_decay, momentum, centered, maximize) */
int impl_fused_rmsprop_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_rmsprop_step";
    mt_rmsprop_hyper h = {a->v[5].f, a->v[6].f,  a->v[7].f, a->v[8].f,
                          a->v[9].f, a->v[10].b, a->v[11].b};
    operand ops[5] = {{"param", a->v[0].t, true},
                      {"grad", a->v[1].t, false},
                      {"square_avg", a->v[2].t, true},
                      {"grad_avg", NULL, true},
                      {"momentum_buffer", NULL, true}};
    if (!state_arg(a, 3, h.centered, op, "grad_avg", "centered=True", &ops[3].t) ||
        !state_arg(a, 4, h.momentum > 0, op, "momentum_buffer", "momentum > 0", &ops[4].t))
        return -1;
    return step(r, op, ops, 5, rmsprop_kernel, &h);
}

/* _fused_adagrad_step(param, grad, state_sum, lr, lr_decay, weight_decay, eps,
 * step, maximize) */
int impl_fused_adagrad_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_adagrad_step";
    mt_adagrad_hyper h = {a->v[3].f, a->v[4].f, a->v[5].f, a->v[6].f, a->v[7].i, a->v[8].b};
    if (!check_step(op, h.step))
        return -1;
    operand ops[3] = {
        {"param", a->v[0].t, true}, {"grad", a->v[1].t, false}, {"state_sum", a->v[2].t, true}};
    return step(r, op, ops, 3, adagrad_kernel, &h);
}

/* _fused_nadam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps,
 * weight_decay, momentum_decay, mu_product, step, maximize, decoupled) */
int impl_fused_nadam_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_nadam_step";
    mt_nadam_hyper h = {a->v[4].f, a->v[5].f,  a->v[6].f,  a->v[7].f,  a->v[8].f,
                        a->v[9].f, a->v[10].f, a->v[11].i, a->v[12].b, a->v[13].b};
    if (!check_step(op, h.step))
        return -1;
    operand ops[4] = {{"param", a->v[0].t, true},
                      {"grad", a->v[1].t, false},
                      {"exp_avg", a->v[2].t, true},
                      {"exp_avg_sq", a->v[3].t, true}};
    return step(r, op, ops, 4, nadam_kernel, &h);
}

/* _fused_radam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps,
 * weight_decay, step, maximize, decoupled) */
int impl_fused_radam_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_radam_step";
    mt_radam_hyper h = {a->v[4].f, a->v[5].f, a->v[6].f,  a->v[7].f,
                        a->v[8].f, a->v[9].i, a->v[10].b, a->v[11].b};
    if (!check_step(op, h.step))
        return -1;
    operand ops[4] = {{"param", a->v[0].t, true},
                      {"grad", a->v[1].t, false},
                      {"exp_avg", a->v[2].t, true},
                      {"exp_avg_sq", a->v[3].t, true}};
    return step(r, op, ops, 4, radam_kernel, &h);
}

/* _fused_adamax_step(param, grad, exp_avg, exp_inf, lr, beta1, beta2, eps,
 * weight_decay, step, maximize) */
int impl_fused_adamax_step(mt_args *a, mt_result *r)
{
    const char *op = "_fused_adamax_step";
    mt_adamax_hyper h = {a->v[4].f, a->v[5].f, a->v[6].f, a->v[7].f,
                         a->v[8].f, a->v[9].i, a->v[10].b};
    if (!check_step(op, h.step))
        return -1;
    operand ops[4] = {{"param", a->v[0].t, true},
                      {"grad", a->v[1].t, false},
                      {"exp_avg", a->v[2].t, true},
                      {"exp_inf", a->v[3].t, true}};
    return step(r, op, ops, 4, adamax_kernel, &h);
}

/* _fused_rprop_step(param, grad, prev, step_size, etaminus, etaplus,
 * step_size_min, step_size_max, maximize) */
int impl_fused_rprop_step(mt_args *a, mt_result *r)
{
    mt_rprop_hyper h = {a->v[4].f, a->v[5].f, a->v[6].f, a->v[7].f, a->v[8].b};
    operand ops[4] = {{"param", a->v[0].t, true},
                      {"grad", a->v[1].t, false},
                      {"prev", a->v[2].t, true},
                      {"step_size", a->v[3].t, true}};
    return step(r, "_fused_rprop_step", ops, 4, rprop_kernel, &h);
}

/* _fused_asgd_step(param, grad, ax, eta, mu, decay_term, weight_decay, maximize) */
int impl_fused_asgd_step(mt_args *a, mt_result *r)
{
    mt_asgd_hyper h = {a->v[3].f, a->v[4].f, a->v[5].f, a->v[6].f, a->v[7].b};
    operand ops[3] = {
        {"param", a->v[0].t, true}, {"grad", a->v[1].t, false}, {"ax", a->v[2].t, true}};
    return step(r, "_fused_asgd_step", ops, 3, asgd_kernel, &h);
}
