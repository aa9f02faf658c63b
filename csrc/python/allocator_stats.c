/* _C._allocator_stats() and _C._allocator_release(): the caching allocator's
 * counters (core/allocator.h) as a dict and a way to empty it, for tests and
 * benchmarks; no public API, as torch has none for CPU memory. */
#include "types/common.h"

#include "../core/allocator.h"

static PyObject *allocator_stats(PyObject *m, PyObject *unused)
{
    mt_alloc_stats s = mt_alloc_get_stats();
    return Py_BuildValue(
        "{s:O,s:K,s:K,s:K,s:K,s:K,s:K}", "enabled", s.enabled ? Py_True : Py_False, "cap_bytes",
        (unsigned long long)s.cap_bytes, "cached_bytes", (unsigned long long)s.cached_bytes,
        "cached_blocks", (unsigned long long)s.cached_blocks, "hits", (unsigned long long)s.hits,
        "misses", (unsigned long long)s.misses, "evictions", (unsigned long long)s.evictions);
}

static PyObject *allocator_release(PyObject *m, PyObject *unused)
{
    mt_alloc_release();
    Py_RETURN_NONE;
}

PyMethodDef mtpy_allocator_methods[] = {
    {"_allocator_stats", allocator_stats, METH_NOARGS, NULL},
    {"_allocator_release", allocator_release, METH_NOARGS, NULL},
    {NULL},
};
