/* Locating NumPy's OpenBLAS for mt_gemm: the one part of the matrix products
 * that needs Python, since only NumPy knows where its library lies. */
#include "../types/common.h"

#include "../../kernels/blas.h"

/* minitorch._blas finds the library; without it mt_gemm keeps its own kernel. */
void mtpy_load_blas(void)
{
    static int tried;
    if (tried)
        return;
    tried = 1;
    PyObject *mod = PyImport_ImportModule("minitorch._blas");
    PyObject *path = mod ? PyObject_CallMethod(mod, "library_path", NULL) : NULL;
    if (path && PyUnicode_Check(path))
        mt_blas_load(PyUnicode_AsUTF8(path));
    if (!path)
        PyErr_Clear();
    Py_XDECREF(path);
    Py_XDECREF(mod);
}
