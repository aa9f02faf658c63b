/* Code placement for the per-call path. A tiny op's time is mostly instruction
 * fetch: argument parsing, the op runner, tensor and storage creation, the
 * pointwise iterator and result wrapping together exceed the 32 KiB
 * instruction cache when they lie scattered across the library (callgrind
 * counted 73 I1 misses per 1-element add, against 44 before the library grew,
 * for the same instruction count). MT_HOT puts a function in .text.hot, which
 * the linker gathers in one place, so that path spans few cache lines. */
#ifndef MT_CORE_HOT_H
#define MT_CORE_HOT_H

#if defined(__GNUC__) || defined(__clang__)
#define MT_HOT __attribute__((hot))
#else
#define MT_HOT
#endif

/* A small thread-local read on every call. In a module loaded at run time
 * each read is a call into the dynamic linker (__tls_get_addr: ten of them,
 * 2.6% of an x[0]); glibc keeps static TLS room for such modules, and
 * initial-exec takes a few bytes of it to make the read one load. Only
 * scalars and pointers use it: that room is shared with every library. */
#if defined(__linux__)
#include <features.h>
#endif
#if defined(__GLIBC__) && (defined(__GNUC__) || defined(__clang__))
#define MT_HOT_TLS __attribute__((tls_model("initial-exec")))
#else
#define MT_HOT_TLS
#endif

#endif
