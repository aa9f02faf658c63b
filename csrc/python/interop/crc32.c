/* _C._crc32(data, value=0): the CRC-32 of zip archives (zlib.crc32's value
 * for the same bytes and starting value) over any C-contiguous buffer,
 * without the GIL for large ones, and _C._crc32_fast: whether this machine
 * has the carry-less multiply that makes it faster than zlib's. The torch
 * checkpoint writer and reader checksum every record with it; zlib's was a
 * third of saving 100 MB (3.3 GB/s here).
 *
 * With PCLMULQDQ the message is folded 64 bytes at a time into four 128-bit
 * lanes (each lane's value multiplied by x^512 mod P, carried as two
 * products with precomputed constants, and added to the next 64 bytes),
 * then into one lane, then 16 bytes at a time. The folded lane is congruent
 * to everything it absorbed, so the CRC of the message is the CRC of the
 * lane's 16 bytes followed by the tail, which a bitwise loop finishes:
 * at most 31 bytes, so no table and no Barrett reduction. With AVX-512 and
 * VPCLMULQDQ the same folding runs on four 512-bit registers (256 bytes a
 * step, four times the 128-bit path's speed on data in cache), which fold
 * into one and then into one 128-bit lane for the tail. Reads only; no
 * allocation. Without PCLMULQDQ the bitwise loop does all of it (correct,
 * slow: callers use zlib then). */
#include "../types/common.h"

#include <stdint.h>
#include <string.h>

#include "../../core/portable.h"

#ifdef MT_HAVE_X86_DISPATCH
#include <immintrin.h>
#endif

/* the reflected polynomial of zip's CRC-32 */
#define CRC_POLY 0xEDB88320u
/* below this many bytes the GIL is kept: releasing it costs more */
#define CRC_UNLOCK_BYTES (1 << 20)

static uint32_t crc_bits(uint32_t state, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        state ^= p[i];
        for (int b = 0; b < 8; b++)
            state = (state >> 1) ^ (CRC_POLY & (0u - (state & 1u)));
    }
    return state;
}

#ifdef MT_HAVE_X86_DISPATCH
#define MT_TARGET_CLMUL __attribute__((target("pclmul,sse4.1")))

static int has_clmul(void)
{
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

/* x times (k's low half) for x's low half plus (k's high half) for its
 * high half: x moved forward by the distance k encodes, plus next. */
MT_TARGET_CLMUL static inline __m128i fold(__m128i x, __m128i k, __m128i next)
{
    __m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* the constants that move a lane 16 bytes on */
MT_TARGET_CLMUL static inline __m128i k16(void)
{
    return _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);
}

/* Moves one lane 16 bytes on at a time through the rest of the message,
 * then finishes lane and tail (under 16 bytes) bitwise. */
MT_TARGET_CLMUL static uint32_t crc_finish(__m128i x, const uint8_t *p, size_t n)
{
    for (; n >= 16; p += 16, n -= 16)
        x = fold(x, k16(), _mm_loadu_si128((const __m128i *)p));
    uint8_t lane[16];
    _mm_storeu_si128((__m128i *)lane, x);
    return crc_bits(crc_bits(0, lane, 16), p, n);
}

/* n >= 64. The constants are powers of x mod P, bit-reflected, one per
 * 64-bit half of a lane: for moving it 64 bytes on (k64) and 16 (k16). */
MT_TARGET_CLMUL static uint32_t crc_clmul(uint32_t state, const uint8_t *p, size_t n)
{
    const __m128i k64 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)state));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        x0 = fold(x0, k64, _mm_loadu_si128((const __m128i *)p));
        x1 = fold(x1, k64, _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = fold(x2, k64, _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = fold(x3, k64, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    return crc_finish(fold(fold(fold(x0, k16(), x1), k16(), x2), k16(), x3), p, n);
}

#ifdef MT_HAVE_AVX512
#define MT_TARGET_VCLMUL \
    __attribute__((target("pclmul,sse4.1,avx512f,avx512bw,avx512vl,vpclmulqdq")))

static int has_vclmul(void)
{
    return has_clmul() && mt_use_avx512() && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("vpclmulqdq");
}

/* fold() on each of the four 128-bit lanes of a 512-bit register */
MT_TARGET_VCLMUL static inline __m512i fold4(__m512i x, __m512i k, __m512i next)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), next, 0x96);
}

/* n >= 256. k256 moves a register 256 bytes on, k64 64 bytes; k48 and k32
 * move one lane 48 and 32 bytes on (the same powers of x as crc_clmul's). */
MT_TARGET_VCLMUL static uint32_t crc_vclmul(uint32_t state, const uint8_t *p, size_t n)
{
    const __m512i k256 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x1322d1430LL, 0x11542778aLL));
    const __m512i k64 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL));
    const __m128i k48 = _mm_set_epi64x(0x174359406LL, 0x03db1ecdcLL);
    const __m128i k32 = _mm_set_epi64x(0x15a546366LL, 0x0f1da05aaLL);
    __m512i first = _mm512_inserti32x4(_mm512_setzero_si512(), _mm_cvtsi32_si128((int)state), 0);
    __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), first);
    __m512i x1 = _mm512_loadu_si512(p + 64);
    __m512i x2 = _mm512_loadu_si512(p + 128);
    __m512i x3 = _mm512_loadu_si512(p + 192);
    for (p += 256, n -= 256; n >= 256; p += 256, n -= 256) {
        x0 = fold4(x0, k256, _mm512_loadu_si512(p));
        x1 = fold4(x1, k256, _mm512_loadu_si512(p + 64));
        x2 = fold4(x2, k256, _mm512_loadu_si512(p + 128));
        x3 = fold4(x3, k256, _mm512_loadu_si512(p + 192));
    }
    __m512i x = fold4(fold4(fold4(x0, k64, x1), k64, x2), k64, x3);
    for (; n >= 64; p += 64, n -= 64)
        x = fold4(x, k64, _mm512_loadu_si512(p));
    __m128i lane =
        fold(_mm512_extracti32x4_epi32(x, 0), k48,
             fold(_mm512_extracti32x4_epi32(x, 1), k32,
                  fold(_mm512_extracti32x4_epi32(x, 2), k16(), _mm512_extracti32x4_epi32(x, 3))));
    return crc_finish(lane, p, n);
}

static int wide_path(void)
{
    static int state;
    return mt_path_on(&state, has_vclmul, "MINITORCH_NO_CLMUL");
}
#endif
#endif

static int fast_path(void)
{
#ifdef MT_HAVE_X86_DISPATCH
    static int state;
    return mt_path_on(&state, has_clmul, "MINITORCH_NO_CLMUL");
#else
    return 0;
#endif
}

static uint32_t crc32_of(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t state = ~crc;
#ifdef MT_HAVE_X86_DISPATCH
#ifdef MT_HAVE_AVX512
    if (n >= 256 && wide_path())
        return ~crc_vclmul(state, p, n);
#endif
    if (n >= 64 && fast_path())
        return ~crc_clmul(state, p, n);
#endif
    return ~crc_bits(state, p, n);
}

static PyObject *py_crc32(PyObject *m, PyObject *args)
{
    Py_buffer view;
    unsigned long value = 0;
    if (!PyArg_ParseTuple(args, "y*|k:_crc32", &view, &value))
        return NULL;
    uint32_t crc;
    if (view.len >= CRC_UNLOCK_BYTES) {
        Py_BEGIN_ALLOW_THREADS crc = crc32_of((uint32_t)value, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    } else {
        crc = crc32_of((uint32_t)value, view.buf, (size_t)view.len);
    }
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

static PyObject *py_crc32_fast(PyObject *m, PyObject *noargs)
{
    return PyBool_FromLong(fast_path());
}

PyMethodDef mtpy_crc32_methods[] = {
    {"_crc32", py_crc32, METH_VARARGS, NULL},
    {"_crc32_fast", py_crc32_fast, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
