/* _C._build_info(): how this build of the extension was compiled and what it
 * selects on this machine, for minitorch.__config__.show(). Read from the
 * same switches the kernels use (core/portable.h, core/half.h), so the
 * report cannot drift from the code. */
#include "types/common.h"

#include "../core/half.h"
#include "../core/portable.h"

static PyObject *build_info(PyObject *m, PyObject *unused)
{
#if defined(__clang__)
    const char *compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    const char *compiler = "GCC " __VERSION__;
#elif defined(_MSC_VER)
    const char *compiler = "MSVC";
#else
    const char *compiler = "unknown";
#endif
#ifdef MT_HAVE_CLONES
    PyObject *clones = Py_True;
#else
    PyObject *clones = Py_False;
#endif
#ifdef MT_HAVE_X86_DISPATCH
    PyObject *avx2_fma = mt_cpu_has_avx2_fma() ? Py_True : Py_False;
#else
    PyObject *avx2_fma = Py_False;
#endif
#ifdef MT_HAVE_FLOAT16
    PyObject *float16 = Py_True;
#else
    PyObject *float16 = Py_False;
#endif
    return Py_BuildValue("{s:s,s:O,s:O,s:O}", "compiler", compiler, "simd_clones", clones,
                         "cpu_avx2_fma", avx2_fma, "native_float16", float16);
}

PyMethodDef mtpy_build_info_methods[] = {
    {"_build_info", build_info, METH_NOARGS, NULL},
    {NULL},
};
