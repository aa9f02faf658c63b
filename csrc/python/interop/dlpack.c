/* DLPack export (Tensor.__dlpack__) and import (minitorch.from_dlpack): zero
 * copy in both directions, the memory owner released by the capsule's deleter. */
#include "../dispatch/parser.h"
#include "dlpack.h"

#include "../../core/shape.h"

#include <stdlib.h>
#include <string.h>

/* One allocation per export: the managed struct, its shape/strides and the
 * tensor that keeps the memory alive. */
typedef struct {
    union {
        DLManagedTensor legacy;
        DLManagedTensorVersioned versioned;
    } m;
    int64_t shape[MT_MAX_DIMS];
    int64_t strides[MT_MAX_DIMS];
    PyObject *owner;
} export_ctx;

static void release_owner(export_ctx *ctx)
{
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(ctx->owner);
    PyGILState_Release(g);
    free(ctx);
}

static void delete_legacy(DLManagedTensor *m) { release_owner(m->manager_ctx); }
static void delete_versioned(DLManagedTensorVersioned *m) { release_owner(m->manager_ctx); }

/* An unconsumed capsule still owns its tensor. */
static void capsule_destructor(PyObject *cap)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m->deleter)
            m->deleter(m);
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m->deleter)
            m->deleter(m);
    }
    PyErr_Restore(type, value, tb);
}

static DLDataType dl_dtype(mt_dtype d)
{
    DLDataType r = {kDLFloat, (uint8_t)(8 * mt_itemsize(d)), 1};
    if (d == MT_BOOL)
        r.code = kDLBool;
    else if (d == MT_BFLOAT16)
        r.code = kDLBfloat;
    else if (mt_is_integral(d, false))
        r.code = mt_dtype_infos[d].is_signed ? kDLInt : kDLUInt;
    return r;
}

/* The max_version the consumer asked for is at least 1.0. */
static int wants_versioned(PyObject *max_version, bool *out)
{
    *out = false;
    if (!max_version)
        return 0;
    PyObject *major = PySequence_GetItem(max_version, 0);
    if (!major)
        return -1;
    long v = PyLong_AsLong(major);
    Py_DECREF(major);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = v >= 1;
    return 0;
}

PyObject *impl_dlpack(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    PyObject *owner = a->v[0].obj;
    bool versioned;
    if (t->flags & MT_FLAG_REQUIRES_GRAD)
        return PyErr_Format(PyExc_BufferError,
                            "Can't export tensors that require gradient, use tensor.detach()");
    if (mt_is_conj(t))
        return PyErr_Format(PyExc_BufferError, "Can't export tensors with the conjugate bit set");
    PyObject *dev = a->v[3].obj;
    if (dev) {
        PyObject *want = Py_BuildValue("(ii)", kDLCPU, 0);
        int same = want ? PyObject_RichCompareBool(dev, want, Py_EQ) : -1;
        Py_XDECREF(want);
        if (same < 0)
            return NULL;
        if (!same)
            return PyErr_Format(PyExc_BufferError, "Unsupported device in DLTensor: %R", dev);
    }
    if (wants_versioned(a->v[2].obj, &versioned) < 0)
        return NULL;
    export_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return PyErr_NoMemory();
    if (a->v[4].obj == Py_True) {
        PyObject *clone = PyObject_CallMethod(owner, "clone", NULL);
        if (!clone) {
            free(ctx);
            return NULL;
        }
        ctx->owner = clone;
    } else {
        ctx->owner = Py_NewRef(owner);
    }
    t = MTPy_T(ctx->owner);
    memcpy(ctx->shape, t->sizes, sizeof(int64_t) * t->ndim);
    memcpy(ctx->strides, t->strides, sizeof(int64_t) * t->ndim);
    DLTensor dl = {
        .data = mt_data(t),
        .device = {kDLCPU, 0},
        .ndim = t->ndim,
        .dtype = dl_dtype(t->dtype),
        .shape = ctx->shape,
        .strides = ctx->strides,
        .byte_offset = 0,
    };
    const char *name;
    if (versioned) {
        ctx->m.versioned.version = (DLPackVersion){MT_DLPACK_MAJOR, MT_DLPACK_MINOR};
        ctx->m.versioned.manager_ctx = ctx;
        ctx->m.versioned.deleter = delete_versioned;
        ctx->m.versioned.dl_tensor = dl;
        name = "dltensor_versioned";
    } else {
        ctx->m.legacy.dl_tensor = dl;
        ctx->m.legacy.manager_ctx = ctx;
        ctx->m.legacy.deleter = delete_legacy;
        name = "dltensor";
    }
    PyObject *cap = PyCapsule_New(&ctx->m, name, capsule_destructor);
    if (!cap)
        release_owner(ctx);
    return cap;
}

PyObject *impl_dlpack_device(mt_args *a) { return Py_BuildValue("(ii)", kDLCPU, 0); }

static int mt_dtype_of_dl(DLDataType d, mt_dtype *out)
{
    if (d.lanes == 1)
        for (int k = 0; k < MT_NUM_DTYPES; k++) {
            DLDataType c = dl_dtype((mt_dtype)k);
            if (c.code == d.code && c.bits == d.bits) {
                *out = (mt_dtype)k;
                return 0;
            }
        }
    PyErr_Format(PyExc_BufferError, "Unsupported dtype in DLTensor (code %d, bits %d, lanes %d)",
                 d.code, d.bits, d.lanes);
    return -1;
}

/* What the imported storage must release: one of the two managed structs. */
typedef struct {
    DLManagedTensor *legacy;
    DLManagedTensorVersioned *versioned;
} import_ctx;

static void release_import(void *p, void *data)
{
    import_ctx *ctx = p;
    PyGILState_STATE g = PyGILState_Ensure();
    if (ctx->legacy && ctx->legacy->deleter)
        ctx->legacy->deleter(ctx->legacy);
    if (ctx->versioned && ctx->versioned->deleter)
        ctx->versioned->deleter(ctx->versioned);
    PyGILState_Release(g);
    free(ctx);
}

static PyObject *tensor_from_dl(DLTensor *dl, import_ctx *ctx)
{
    mt_dtype dtype;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    if (dl->device.device_type != kDLCPU && dl->device.device_type != kDLCUDAHost)
        return PyErr_Format(PyExc_BufferError, "Unsupported device in DLTensor: (%d, %d)",
                            dl->device.device_type, dl->device.device_id);
    if (dl->ndim < 0 || dl->ndim > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions",
                            MT_MAX_DIMS);
    if (mt_dtype_of_dl(dl->dtype, &dtype) < 0)
        return NULL;
    int n = dl->ndim;
    memcpy(sizes, dl->shape, sizeof(int64_t) * n);
    if (dl->strides)
        memcpy(strides, dl->strides, sizeof(int64_t) * n);
    else
        mt_contiguous_strides(n, sizes, strides);
    int64_t last = 0, numel = 1;
    for (int d = 0; d < n; d++) {
        if (strides[d] < 0)
            return PyErr_Format(PyExc_BufferError,
                                "DLTensor with negative strides is not supported");
        numel *= sizes[d];
        last += (sizes[d] - 1) * strides[d];
    }
    size_t nbytes = numel ? (size_t)(last + 1) * mt_itemsize(dtype) : 0;
    mt_storage *st =
        mt_storage_wrap((char *)dl->data + dl->byte_offset, nbytes, release_import, ctx);
    if (!st)
        return mtpy_raise();
    MTTensorObject *o = (MTTensorObject *)mtpy_tensor_class->tp_alloc(mtpy_tensor_class, 0);
    mt_tensor tmp = {.storage = st, .dtype = dtype};
    if (!o || mt_tensor_init_view(&o->t, &tmp, n, sizes, strides, 0) < 0) {
        mt_storage_decref(st);
        Py_XDECREF(o);
        return o ? mtpy_raise() : NULL;
    }
    mt_storage_decref(st); /* the tensor holds its own reference */
    return (PyObject *)o;
}

/* Consumes a capsule: renamed to used_* so its destructor leaves the memory alone. */
static PyObject *from_capsule(PyObject *cap)
{
    import_ctx *ctx = calloc(1, sizeof *ctx);
    DLTensor *dl;
    const char *used;
    if (!ctx)
        return PyErr_NoMemory();
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        ctx->versioned = PyCapsule_GetPointer(cap, "dltensor_versioned");
        unsigned major = ctx->versioned->version.major;
        if (major > MT_DLPACK_MAJOR) {
            free(ctx);
            return PyErr_Format(PyExc_BufferError, "DLPack version %u is not supported", major);
        }
        dl = &ctx->versioned->dl_tensor;
        used = "used_dltensor_versioned";
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        ctx->legacy = PyCapsule_GetPointer(cap, "dltensor");
        dl = &ctx->legacy->dl_tensor;
        used = "used_dltensor";
    } else {
        free(ctx);
        return PyErr_Format(PyExc_ValueError,
                            "from_dlpack received an invalid capsule. Note that DLTensor "
                            "capsules can be consumed only once, so you might have already "
                            "constructed a tensor from it once.");
    }
    PyObject *out = tensor_from_dl(dl, ctx);
    if (!out) {
        free(ctx); /* the capsule still owns the memory */
        return NULL;
    }
    PyCapsule_SetName(cap, used);
    return out;
}

PyObject *mtpy_from_dlpack_object(PyObject *obj)
{
    if (PyCapsule_CheckExact(obj))
        return from_capsule(obj);
    PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
    if (!meth)
        return NULL;
    PyObject *args = PyTuple_New(0);
    PyObject *kw = Py_BuildValue("{s:(ii)}", "max_version", MT_DLPACK_MAJOR, MT_DLPACK_MINOR);
    PyObject *cap = args && kw ? PyObject_Call(meth, args, kw) : NULL;
    if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* a producer older than DLPack 1.0 takes no max_version */
        PyErr_Clear();
        cap = PyObject_Call(meth, args, NULL);
    }
    Py_XDECREF(args);
    Py_XDECREF(kw);
    Py_DECREF(meth);
    if (!cap)
        return NULL;
    PyObject *out = from_capsule(cap);
    Py_DECREF(cap);
    return out;
}

PyObject *impl_from_dlpack(mt_args *a)
{
    PyObject *obj = a->v[0].obj;
    if (!obj)
        return PyErr_Format(PyExc_TypeError,
                            "from_dlpack(): argument 'ext_tensor' must not be None");
    return mtpy_from_dlpack_object(obj);
}
