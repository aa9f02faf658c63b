/* Batched matrix multiply over strided operands: the one kernel behind mm,
 * bmm, matmul, mv, dot, outer, addmm, addmv and baddbmm. */
#ifndef MT_KERNELS_GEMM_GEMM_H
#define MT_KERNELS_GEMM_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/tensor.h"

/* One operand: the first matrix's data, its row/column strides, and a stride
 * per batch dim (0 where it broadcasts). Strides are in elements. */
typedef struct {
    char *data;
    int64_t rs, cs;
    int64_t bs[MT_MAX_DIMS];
} mt_gemm_operand;

typedef struct {
    int nbatch;
    int64_t batch[MT_MAX_DIMS];
    int64_t m, n, k;
} mt_gemm_shape;

/* alpha/beta as the dtype's category reads them (im: a complex one's
 * imaginary part). */
typedef struct {
    double f;
    int64_t i;
    double im;
} mt_gemm_scale;

/* C = beta * C + alpha * A @ B per batch (beta == 0 ignores C's contents, as
 * torch does). Refuses the half types (the caller computes those in
 * float32) and bool (but for k = 0, as torch); returns -1 with the error
 * set. C must not overlap A or B. */
int mt_gemm(mt_dtype d, const mt_gemm_shape *s, const mt_gemm_operand *a, const mt_gemm_operand *b,
            const mt_gemm_operand *c, mt_gemm_scale alpha, mt_gemm_scale beta);
/* mt_gemm for MT_COMPLEX64/MT_COMPLEX128 on the BLAS's cgemm/zgemm (the
 * caller checks mt_blas_complex_available), reading A and/or B conjugated
 * when conj_a/conj_b (torch's conjugate views). */
int mt_gemm_complex(mt_dtype d, const mt_gemm_shape *s, const mt_gemm_operand *a,
                    const mt_gemm_operand *b, const mt_gemm_operand *c, bool conj_a, bool conj_b,
                    mt_gemm_scale alpha, mt_gemm_scale beta);
/* Copies a rows x cols matrix, element (i, j) at src[(i * rs + j * cs) * isz],
 * into row-major dst with rows ld >= cols items apart (items of isz 1, 2, 4
 * or 8 bytes). */
void mt_gemm_pack(char *dst, int64_t ld, const char *src, int64_t rows, int64_t cols, int64_t rs,
                  int64_t cs, int isz);
/* Work in multiply-adds, to decide on releasing the GIL. */
static inline double mt_gemm_work(const mt_gemm_shape *s)
{
    double w = (double)s->m * (double)s->n * (double)s->k;
    for (int i = 0; i < s->nbatch; i++)
        w *= (double)s->batch[i];
    return w;
}

#endif
