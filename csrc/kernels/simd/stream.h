/* Streaming stores for outputs too large to stay in cache.
 *
 * A plain store to a line that is not cached first reads the line from
 * memory (write-allocate), then the written line pushes older lines out of
 * the last-level cache. An op that writes a large output it overwrites
 * whole (a norm, softmax or activation over megabytes) so pays a read it
 * does not need and evicts its own input, which a loop calling the op again
 * (the next step, the next layer of the same width) would have found cached.
 * A streaming store sends the finished line to memory: no read, no
 * eviction. Its cost: the consumer of the output reads it from memory, but
 * an output of MT_STREAM_MIN_BYTES is about what a last-level cache slice
 * holds beside its input, so with plain stores its first lines would have
 * left the cache by the time the op ends anyway.
 *
 * mt_stream_worth(bytes): whether an output of that many bytes is streamed.
 * mt_stream16(p, v): 16 bytes from v to a 16-byte aligned p, streamed on
 *   x86-64 (SSE2, so in every clone of a loop), a plain copy elsewhere.
 * mt_stream_put(p, v, bytes, stream): a vector of `bytes` (a multiple of 16)
 *   from v to p, streamed when `stream`, in which case p must be 16-byte
 *   aligned (the caller aligns a row once, not every vector).
 * mt_stream_fence(): orders the streamed stores before the stores that
 *   follow (the pool's completion flag); each thread calls it after its
 *   part. */
#ifndef MT_KERNELS_SIMD_STREAM_H
#define MT_KERNELS_SIMD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <emmintrin.h>
#define MT_HAVE_STREAM 1
#endif

#define MT_STREAM_MIN_BYTES ((int64_t)8 << 20)

static inline bool mt_stream_worth(int64_t bytes)
{
#ifdef MT_HAVE_STREAM
    return bytes >= MT_STREAM_MIN_BYTES;
#else
    (void)bytes;
    return false;
#endif
}

static inline __attribute__((always_inline)) void mt_stream16(void *p, const void *v)
{
#ifdef MT_HAVE_STREAM
    __m128i t;
    memcpy(&t, v, sizeof t);
    _mm_stream_si128((__m128i *)p, t);
#else
    memcpy(p, v, 16);
#endif
}

static inline __attribute__((always_inline)) void mt_stream_put(void *p, const void *v,
                                                                size_t bytes, bool stream)
{
    if (stream) {
        for (size_t k = 0; k < bytes; k += 16)
            mt_stream16((char *)p + k, (const char *)v + k);
    } else {
        memcpy(p, v, bytes);
    }
}

static inline void mt_stream_fence(void)
{
#ifdef MT_HAVE_STREAM
    _mm_sfence();
#endif
}

#endif
