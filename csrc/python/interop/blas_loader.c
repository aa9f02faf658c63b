/* Locating an OpenBLAS for mt_gemm: the one part of the matrix products that
 * needs Python, since only the Python packages (NumPy, scipy-openblas64) know
 * where their library lies. minitorch._blas chooses the candidates and keeps
 * the report minitorch.__config__.show() prints; this file runs its search
 * once and loads what it picks. */
#include "../types/common.h"

#include "../../kernels/gemm/blas.h"
#include "../../kernels/lapack/lapack.h"

/* minitorch._blas._locate() tries its candidates through _blas_load; without
 * a library mt_gemm keeps its own kernel. An error in the search is no
 * error of the product that triggered it, so it is dropped. */
void mtpy_load_blas(void)
{
    static int tried;
    if (tried)
        return;
    tried = 1;
    PyObject *mod = PyImport_ImportModule("minitorch._blas");
    PyObject *r = mod ? PyObject_CallMethod(mod, "_locate", NULL) : NULL;
    if (!r)
        PyErr_Clear();
    Py_XDECREF(r);
    Py_XDECREF(mod);
}

/* _blas_load(path) -> the gemm symbol the library answered to, or None. */
static PyObject *blas_load(PyObject *m, PyObject *path)
{
    const char *p = PyUnicode_AsUTF8(path);
    if (!p)
        return NULL;
    if (!mt_blas_load(p))
        Py_RETURN_NONE;
    return PyUnicode_FromString(mt_blas_symbol());
}

/* _lapack_symbol() -> the getrf symbol the loaded library answered to, or None. */
static PyObject *lapack_symbol(PyObject *m, PyObject *unused)
{
    const char *s = mt_lapack_symbol();
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static PyObject *blas_locate(PyObject *m, PyObject *unused)
{
    mtpy_load_blas();
    Py_RETURN_NONE;
}

PyMethodDef mtpy_blas_methods[] = {
    {"_blas_load", blas_load, METH_O, NULL},
    {"_blas_locate", blas_locate, METH_NOARGS, NULL},
    {"_lapack_symbol", lapack_symbol, METH_NOARGS, NULL},
    {NULL},
};
