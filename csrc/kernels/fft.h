/* Discrete Fourier transforms of complex rows: the loops behind the _fft_*
 * rows (ops/fft.c). Plain C, no Python, no tensors: callers hand contiguous
 * buffers of (real, imaginary) pairs. */
#ifndef MT_KERNELS_FFT_H
#define MT_KERNELS_FFT_H

#include <stdbool.h>
#include <stdint.h>

/* Transforms every row of length n of the contiguous complex buffer src laid
 * out as [outer][n][inner] (pairs of float when single, else of double),
 * along its middle axis, into the same places of dst (src itself for in
 * place): X_k = sum_j x_j exp(-+2 pi i jk / n), the minus sign forward,
 * unnormalized, then every value times scale. float rows are computed in
 * float, as torch's. 0, or -1 when out of memory. */
int mt_fft_c2c(const void *src, void *dst, bool single, int64_t outer, int64_t n, int64_t inner,
               bool inverse, double scale);

/* The first n / 2 + 1 frequencies of the forward transform of every real row
 * of length n along the middle axis of src, [outer][n][inner], into dst,
 * [outer][n / 2 + 1][inner] (complex), times scale: a transform of half the
 * length. 0; 1 when n is odd or has a prime factor above 5 (the caller
 * transforms the complex signal instead); -1 when out of memory. */
int mt_fft_r2c_half(const void *src, void *dst, bool single, int64_t outer, int64_t n,
                    int64_t inner, double scale);

/* Fills dst, [outer][n][inner], with the full spectrum of a real signal of
 * length n along the middle axis from its first half src, [outer][h][inner]
 * (entries past h read as zero): dst_k = src_k for k <= n / 2, and
 * conj(src_{n-k}) above. Pairs of float when single, else of double. */
void mt_fft_hermitian_fill(void *dst, const void *src, bool single, int64_t outer, int64_t h,
                           int64_t n, int64_t inner);

#endif
