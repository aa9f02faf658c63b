/* Shared declarations of the Python layer: the tensor object, dtype objects,
 * Size, and the helpers every binding uses to make results. */
#ifndef MT_PYTHON_COMMON_H
#define MT_PYTHON_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../../core/tensor.h"
#include "../../core/error.h"
#include "../../core/hot.h"

struct mt_autograd_meta;

typedef struct {
    PyObject_HEAD mt_tensor t;
    struct mt_autograd_meta *ag; /* NULL until the tensor joins autograd */
} MTTensorObject;

extern PyTypeObject MTTensorBase_Type;
/* minitorch.Tensor, the Python class over TensorBase; results are made of it. */
extern PyTypeObject *mtpy_tensor_class;
/* While a Tensor subclass's default __torch_function__ runs an op in C, new
 * tensors are made of that class directly instead of converted afterwards. */
extern _Thread_local PyTypeObject *mtpy_result_class MT_HOT_TLS;

/* Most operands are minitorch.Tensor or a direct subclass of it: test that
 * before walking the MRO. */
#define MTPy_Check(o)                                                               \
    (Py_TYPE(o) == mtpy_tensor_class || Py_TYPE(o)->tp_base == mtpy_tensor_class || \
     PyObject_TypeCheck((o), &MTTensorBase_Type))
#define MTPy_T(o) (&((MTTensorObject *)(o))->t)

/* Turns the pending core error into the matching Python exception; NULL. */
PyObject *mtpy_raise(void);
/* Same, for int-returning paths; -1. */
int mtpy_raise_int(void);
/* Loads NumPy's OpenBLAS for mt_gemm once (blas_loader.c); safe to call often. */
void mtpy_load_blas(void);

/* New tensors of the minitorch.Tensor class. */
PyObject *mtpy_new_contiguous(mt_dtype dtype, int ndim, const int64_t *sizes, bool zeroed);
PyObject *mtpy_new_strided(mt_dtype dtype, int ndim, const int64_t *sizes, const int64_t *strides);
/* A view of base's storage (same dtype) with the given geometry. */
PyObject *mtpy_new_view(PyObject *base, int ndim, const int64_t *sizes, const int64_t *strides,
                        int64_t offset);
/* An object of type cls sharing self's storage and geometry. */
PyObject *mtpy_as_subclass(PyObject *self, PyTypeObject *cls);

/* dtype objects */
extern PyTypeObject MTDtype_Type;
typedef struct {
    PyObject_HEAD mt_dtype dtype;
} MTDtypeObject;
PyObject *mtpy_dtype_obj(mt_dtype d); /* borrowed */
/* Accepts minitorch dtypes and the Python types float/int/bool. */
int mtpy_dtype_from(PyObject *o, mt_dtype *out);
mt_dtype mtpy_default_dtype(void);
void mtpy_set_default_dtype(mt_dtype d);
int mtpy_dtype_init(PyObject *module);

/* minitorch.Size */
extern PyTypeObject MTSize_Type;
PyObject *mtpy_size(int ndim, const int64_t *sizes);

/* Reads one element of t (at element offset off from its data) as a Python number. */
PyObject *mtpy_scalar_at(const mt_tensor *t, const char *ptr);

#endif
