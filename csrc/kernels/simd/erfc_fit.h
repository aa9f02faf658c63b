/* The constants of the float32 erfc form that vmath16.h (AVX-512) and
 * vmath_avx2.h (AVX2) both evaluate, kept here once:
 *
 *   erfc(a) = t R(t) exp(-a^2),  t = 1 / (1 + MT_ERFC_P a),  a >= 0,
 *
 * R = erfcx(a) / t a degree-8 fit on a in [0, 10] (relative error 4e-8;
 * beyond 10 erfc is below the denormals; a degree-7 fit would be 2.5e-7),
 * coefficients highest first; and ln 2 in two parts for the exp's
 * reduction, the first with 9 significant bits, so its product with a
 * multiple of ln 2 of at most 12 significant bits is exact. */
#ifndef MT_KERNELS_SIMD_ERFC_FIT_H
#define MT_KERNELS_SIMD_ERFC_FIT_H

#define MT_ERFC_P 0.3799999952316284f
#define MT_ERFC_R8 0.058965835720300674f
#define MT_ERFC_R7 -0.26227474212646484f
#define MT_ERFC_R6 0.3638450503349304f
#define MT_ERFC_R5 -0.1614360213279724f
#define MT_ERFC_R4 0.23000559210777283f
#define MT_ERFC_R3 0.13865992426872253f
#define MT_ERFC_R2 0.2039036750793457f
#define MT_ERFC_R1 0.21391978859901428f
#define MT_ERFC_R0 0.2144109308719635f

#define MT_LN2_HI 0.693359375f
#define MT_LN2_LO -2.1219444e-4f

#endif
