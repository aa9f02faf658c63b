/* The in-place view ops (transpose_, t_, squeeze_, unsqueeze_, as_strided_
 * and the aliases): self takes the geometry the out-of-place view op would
 * give its view, over the same storage, and its version moves on as for any
 * in-place op. No element is written. Plain C. */
#include "runtime/args.h"

#include <string.h>

int impl_transpose(mt_args *a, mt_result *r);
int impl_t(mt_args *a, mt_result *r);
int impl_squeeze(mt_args *a, mt_result *r);
int impl_squeeze_dim(mt_args *a, mt_result *r);
int impl_squeeze_dims(mt_args *a, mt_result *r);
int impl_unsqueeze(mt_args *a, mt_result *r);
int impl_as_strided(mt_args *a, mt_result *r);

/* Runs the view op (which checks the arguments with torch's messages), then
 * gives self the view's geometry and returns self. */
static int reshape_self(mt_args *a, mt_result *r, int (*view_op)(mt_args *, mt_result *))
{
    if (view_op(a, r) < 0)
        return -1;
    mt_tensor *self = a->v[0].t, *view = r->t[0];
    self->offset = view->offset;
    self->numel = view->numel;
    self->ndim = view->ndim;
    memcpy(self->sizes, view->sizes, sizeof(int64_t) * view->ndim);
    memcpy(self->strides, view->strides, sizeof(int64_t) * view->ndim);
    mt_release(view);
    mt_bump_version(self);
    mt_retain(self);
    return mt_result_tensor(r, self);
}

int impl_transpose_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_transpose); }
int impl_t_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_t); }
int impl_squeeze_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_squeeze); }
int impl_squeeze_dim_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_squeeze_dim); }
int impl_squeeze_dims_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_squeeze_dims); }
int impl_unsqueeze_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_unsqueeze); }
int impl_as_strided_(mt_args *a, mt_result *r) { return reshape_self(a, r, impl_as_strided); }
