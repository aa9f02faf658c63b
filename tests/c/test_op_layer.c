/* The op layer with no Python interpreter: makes tensors, runs ops by id,
 * records and runs backward (also double backward), and checks that errors
 * come back as mt_errors with torch's words. Built from the csrc/ folders
 * below csrc/python only, and run by tests/test_c_layer.py. Prints a line
 * per failed check and a closing "N passed, M failed". */
#include "../../csrc/autograd/engine.h"
#include "../../csrc/autograd/grad_mode.h"
#include "../../csrc/kernels/copy.h"
#include "../../csrc/autograd/custom_kind.h"
#include "../../csrc/standalone/standalone.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

static void check(bool ok, const char *what)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    const char *msg;
    mt_error_kind k = mt_error_take(&msg);
    printf("FAILED: %s (pending error %d: %s)\n", what, (int)k, k ? msg : "");
}

static mt_tensor *vector(int n, const double *v)
{
    int64_t size = n;
    mt_tensor *t = mt_new(MT_FLOAT64, 1, &size, false);
    if (t)
        memcpy(mt_data(t), v, sizeof(double) * n);
    return t;
}

static bool values_are(const mt_tensor *t, int n, const double *want)
{
    if (!t || t->numel != n || t->dtype != MT_FLOAT64)
        return false;
    const double *d = (const double *)mt_data(t);
    for (int i = 0; i < n; i++)
        if (fabs(d[i * t->strides[0]] - want[i]) > 1e-12)
            return false;
    return true;
}

static double item(const mt_tensor *t)
{
    return t && t->numel == 1 ? *(const double *)mt_data(t) : NAN;
}

static mt_tensor *grad_of(mt_tensor *t)
{
    mt_autograd_meta *m = mt_meta.get(t);
    return m ? m->grad : NULL;
}

/* Runs backward from a scalar root with a gradient of one. */
static int backward(mt_tensor *root, bool create_graph)
{
    mt_tensor *one = mt_new(MT_FLOAT64, 0, NULL, false);
    if (!one)
        return -1;
    mt_fill(one, 1.0, 1, 0);
    mt_backward_task task = {.nroots = 1,
                             .roots = &root,
                             .root_grads = &one,
                             .create_graph = create_graph,
                             .keep_graph = create_graph};
    int rc = mt_run_backward(&task);
    mt_release(one);
    return rc;
}

static void test_forward_ops(void)
{
    mt_tensor *x = vector(3, (double[]){1, 2, 3}), *w = vector(3, (double[]){4, 5, 6});
    mt_tensor *y = mt_call(MT_OP_mul, "TT", x, w);
    check(values_are(y, 3, (double[]){4, 10, 18}), "mul of two vectors");
    mt_tensor *z = y ? mt_call(MT_OP_add, "Tf", y, 0.5) : NULL;
    check(values_are(z, 3, (double[]){4.5, 10.5, 18.5}), "add of a number");
    mt_tensor *s = z ? mt_call(MT_OP_sum, "T", z) : NULL;
    check(item(s) == 33.5, "sum of all elements");
    mt_xrelease(s);
    mt_xrelease(z);
    mt_xrelease(y);
    mt_release(x);
    mt_release(w);
}

static void test_backward(void)
{
    mt_tensor *x = vector(3, (double[]){1, 2, 3}), *w = vector(3, (double[]){4, 5, 6});
    x->flags |= MT_FLAG_REQUIRES_GRAD;
    w->flags |= MT_FLAG_REQUIRES_GRAD;
    mt_tensor *y = mt_call(MT_OP_mul, "TT", x, w);
    mt_tensor *loss = y ? mt_call(MT_OP_sum, "T", y) : NULL;
    check(loss && mt_requires_grad(loss), "the loss records a graph");
    check(loss && backward(loss, false) == 0, "backward runs");
    check(values_are(grad_of(x), 3, (double[]){4, 5, 6}), "d(sum x*w)/dx is w");
    check(values_are(grad_of(w), 3, (double[]){1, 2, 3}), "d(sum x*w)/dw is x");
    check(loss && backward(loss, false) < 0, "a second backward through freed buffers fails");
    const char *msg;
    check(mt_error_take(&msg) == MT_ERR_RUNTIME &&
              strstr(msg, "Trying to backward through the graph a second time"),
          "with torch's message");
    mt_xrelease(loss);
    mt_xrelease(y);
    mt_release(x);
    mt_release(w);
}

static void test_double_backward(void)
{
    /* d2/dx2 of sum(x^3) is 6x, through formulas that themselves record */
    mt_tensor *x = vector(3, (double[]){0.5, -1, 2});
    x->flags |= MT_FLAG_REQUIRES_GRAD;
    mt_tensor *cube = mt_call(MT_OP_pow, "Ti", x, (int64_t)3);
    mt_tensor *loss = cube ? mt_call(MT_OP_sum, "T", cube) : NULL;
    check(loss && backward(loss, true) == 0, "backward with create_graph");
    mt_tensor *g = grad_of(x);
    check(values_are(g, 3, (double[]){0.75, 3, 12}), "first derivative 3x^2");
    check(g && mt_requires_grad(g), "the gradient has a graph of its own");
    if (g) {
        mt_retain(g);
        mt_meta.get(x)->grad = NULL;
        mt_tensor *gs = mt_call(MT_OP_sum, "T", g);
        check(gs && backward(gs, false) == 0, "backward through the gradient");
        check(values_are(grad_of(x), 3, (double[]){3, -6, 12}), "second derivative 6x");
        mt_xrelease(gs);
        mt_release(g);
    }
    mt_xrelease(loss);
    mt_xrelease(cube);
    mt_release(x);
}

static void test_errors(void)
{
    const char *msg;
    mt_tensor *x = vector(3, (double[]){1, 2, 3}), *w = vector(2, (double[]){4, 5});
    check(mt_call(MT_OP_mul, "TT", x, w) == NULL, "mul of sizes 3 and 2 fails");
    check(mt_error_take(&msg) == MT_ERR_RUNTIME &&
              strcmp(msg, "The size of tensor a (3) must match the size of tensor b (2) at "
                          "non-singleton dimension 0") == 0,
          "with torch's message");
    check(mt_call(MT_OP_numpy, "T", x) == NULL, "a row of the Python binding refuses C callers");
    check(mt_error_take(&msg) == MT_ERR_RUNTIME && strstr(msg, "Python binding"), "and says why");
    check(mt_call(MT_OP_mul, "T", x) == NULL && mt_error_take(&msg) == MT_ERR_TYPE,
          "a missing argument is a TypeError");
    mt_release(x);
    mt_release(w);
}

/* ctest::scale(Tensor a, *, float k=2.0) -> Tensor: k * a, as a custom op
 * registered and run with no interpreter */
static mt_tensor *scale_kernel(const mt_args *a)
{
    return mt_call(MT_OP_mul, "Tf", a->v[0].t, a->v[1].f);
}

static int scale_backward(mt_node *n, mt_tensor *g, mt_tensor **gi)
{
    gi[0] = mt_call(MT_OP_mul, "Tf", g, n->args[1].f);
    return gi[0] ? 0 : -1;
}

static void test_custom_op(void)
{
    int id = mt_custom_register_c("ctest::scale(Tensor a, *, float k=2.0) -> Tensor", scale_kernel,
                                  scale_backward, NULL);
    check(id >= MT_OP_COUNT && mt_op_find("ctest::scale") == id, "a custom op gets a new id");
    mt_tensor *x = vector(2, (double[]){1, -3});
    x->flags |= MT_FLAG_REQUIRES_GRAD;
    mt_tensor *y = mt_call((mt_op_id)id, "Tkf", x, "k", 1.5);
    check(values_are(y, 2, (double[]){1.5, -4.5}), "it runs with its keyword");
    check(y && mt_requires_grad(y), "and records");
    mt_tensor *loss = y ? mt_call(MT_OP_sum, "T", y) : NULL;
    check(loss && backward(loss, false) == 0, "backward through it runs");
    check(values_are(grad_of(x), 2, (double[]){1.5, 1.5}), "with its C backward");
    mt_tensor *d = mt_call((mt_op_id)id, "T", x);
    check(values_are(d, 2, (double[]){2, -6}), "its default applies");
    const char *msg;
    check(mt_custom_register_c("noscope(Tensor a) -> Tensor", scale_kernel, NULL, NULL) < 0 &&
              mt_error_take(&msg) == MT_ERR_VALUE && strstr(msg, "namespace::name("),
          "a schema without a namespace is refused");
    mt_xrelease(d);
    mt_xrelease(loss);
    mt_xrelease(y);
    mt_release(x);
}

int main(void)
{
    if (mt_standalone_init() < 0) {
        const char *msg;
        mt_error_take(&msg);
        printf("cannot start: %s\n", msg);
        return 2;
    }
    test_forward_ops();
    test_backward();
    test_double_backward();
    test_errors();
    test_custom_op();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
