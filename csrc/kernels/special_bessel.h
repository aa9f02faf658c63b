/* The Bessel family of torch.special in double precision, for the unary
 * kernels of pointwise_unary.def: the Airy function Ai, the Bessel functions
 * J0, J1, Y0, Y1 of the first and second kinds (by torch's own evaluation of
 * Cephes' rationals, whose results differ from the exact values by up to
 * 1e-6 relative, so that ours agree with torch's), the modified Bessel functions
 * K0 and K1 of the second kind (plain and scaled by e^x), the exponentially
 * scaled I0 and I1 and the spherical Bessel function j0. Narrower float types
 * compute here in double and round once. Values at the edges of the domains,
 * at infinities and for NaN follow torch's kernels (ATen's Math.h). */
#ifndef MT_KERNELS_SPECIAL_BESSEL_H
#define MT_KERNELS_SPECIAL_BESSEL_H

#include <float.h>
#include <math.h>

#include "special_math.h"

/* e^x K_nu(x) for x > 0. Beyond 30 the asymptotic series in 1/x; below it
 * the integral of exp(-2 x sinh^2(t/2)) cosh(nu t) over t >= 0 by the
 * trapezoid rule, which converges geometrically for this analytic,
 * double-exponentially decaying integrand: the step is kept under the width
 * of the peak at t = 0 (1/sqrt(x)) and the sum stops where the terms fall
 * below e^-45 of the first. */
static inline double mt_bessel_k_scaled(double nu, double x)
{
    if (x > 30) {
        double mu = 4 * nu * nu, term = 1, sum = 1;
        for (int k = 1; k < 60; k++) {
            double odd = 2.0 * k - 1;
            term *= (mu - odd * odd) / (k * 8 * x);
            sum += term;
            if (fabs(term) < MT_SPECIAL_EPS * fabs(sum))
                break;
        }
        return sqrt(MT_SPECIAL_PI / (2 * x)) * sum;
    }
    double h = fmin(0.2, 0.5 / sqrt(x)), last = acosh(1 + 45 / x), sum = 0.5;
    for (int i = 1; i * h <= last + h; i++) {
        double t = i * h, s = sinh(t / 2);
        sum += exp(-2 * x * s * s) * cosh(nu * t);
    }
    return sum * h;
}

/* K0, K1 and their scaled forms: infinite at 0, NaN below it */
static inline double mt_bessel_k(int nu, double x, int scaled)
{
    if (x != x || x < 0)
        return NAN;
    if (x == 0)
        return INFINITY;
    if (x == INFINITY)
        return 0;
    double r = mt_bessel_k_scaled(nu, x);
    return scaled ? r : r * exp(-x);
}

/* the coefficients of the rationals of Ai, J0, J1, Y0 and Y1 (Cephes', as
 * ATen's Math.h lists them) */
static const double mt_airy_an[] = {3.46538101525629032477e-01, 1.20075952739645805542e+01,
                                    7.62796053615234516538e+01, 1.68089224934630576269e+02,
                                    1.59756391350164413639e+02, 7.05360906840444183113e+01,
                                    1.40264691163389668864e+01, 9.99999999999999995305e-01};
static const double mt_airy_ad[] = {5.67594532638770212846e-01, 1.47562562584847203173e+01,
                                    8.45138970141474626562e+01, 1.77318088145400459522e+02,
                                    1.64234692871529701831e+02, 7.14778400825575695274e+01,
                                    1.40959135607834029598e+01, 1.00000000000000000470e+00};
static const double mt_airy_afn[] = {
    -1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
    -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
    -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08};
static const double mt_airy_afd[] = {
    1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
    9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
    4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07};
static const double mt_airy_agn[] = {
    1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
    9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
    5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
    8.11789239554389293311e-08, 3.41551784765923618484e-10};
static const double mt_airy_agd[] = {9.30892908077441974853e+00, 1.98352928718312140417e+01,
                                     1.55646628932864612953e+01, 5.47686069422975497931e+00,
                                     9.54293611618961883998e-01, 8.64580826352392193095e-02,
                                     4.12656523824222607191e-03, 1.01259085116509135510e-04,
                                     1.17166733214413521882e-06, 4.91834570062930015649e-09};
static const double mt_j0_rp[] = {-4.79443220978201773821e+09, 1.95617491946556577543e+12,
                                  -2.49248344360967716204e+14, 9.70862251047306323952e+15};
static const double mt_j0_rq[] = {4.99563147152651017219e+02, 1.73785401676374683123e+05,
                                  4.84409658339962045305e+07, 1.11855537045356834862e+10,
                                  2.11277520115489217587e+12, 3.10518229857422583814e+14,
                                  3.18121955943204943306e+16, 1.71086294081043136091e+18};
static const double mt_j1_rp[] = {-8.99971225705559398224e+08, 4.52228297998194034323e+11,
                                  -7.27494245221818276015e+13, 3.68295732863852883286e+15};
static const double mt_j1_rq[] = {6.20836478118054335476e+02, 2.56987256757748830383e+05,
                                  8.35146791431949253037e+07, 2.21511595479792499675e+10,
                                  4.74914122079991414898e+12, 7.84369607876235854894e+14,
                                  8.95222336184627338078e+16, 5.32278620332680085395e+18};
static const double mt_y0_yp[] = {1.55924367855235737965e+04, -1.46639295903971606143e+07,
                                  5.43526477051876500413e+09, -9.82136065717911466409e+11,
                                  8.75906394395366999549e+13, -3.46628303384729719441e+15,
                                  4.42733268572569800351e+16, -1.84950800436986690637e+16};
static const double mt_y0_yq[] = {1.04128353664259848412e+03, 6.26107330137134956842e+05,
                                  2.68919633393814121987e+08, 8.64002487103935000337e+10,
                                  2.02979612750105546709e+13, 3.17157752842975028269e+15,
                                  2.50596256172653059228e+17};
static const double mt_y1_yp[] = {1.26320474790178026440e+09, -6.47355876379160291031e+11,
                                  1.14509511541823727583e+14, -8.12770255501325109621e+15,
                                  2.02439475713594898196e+17, -7.78877196265950026825e+17};
static const double mt_y1_yq[] = {5.94301592346128195359e+02, 2.35564092943068577943e+05,
                                  7.34811944459721705660e+07, 1.87601316108706159478e+10,
                                  3.88231277496238566008e+12, 6.20557727146953693363e+14,
                                  6.87141087355300489866e+16, 3.97270608116560655612e+18};
static const double mt_j0_pp[] = {7.96936729297347051624e-04, 8.28352392107440799803e-02,
                                  1.23953371646414299388e+00, 5.44725003058768775090e+00,
                                  8.74716500199817011941e+00, 5.30324038235394892183e+00,
                                  9.99999999999999997821e-01};
static const double mt_j0_pq[] = {9.24408810558863637013e-04, 8.56288474354474431428e-02,
                                  1.25352743901058953537e+00, 5.47097740330417105182e+00,
                                  8.76190883237069594232e+00, 5.30605288235394617618e+00,
                                  1.00000000000000000218e+00};
static const double mt_j0_qp[] = {-1.13663838898469149931e-02, -1.28252718670509318512e+00,
                                  -1.95539544257735972385e+01, -9.32060152123768231369e+01,
                                  -1.77681167980488050595e+02, -1.47077505154951170175e+02,
                                  -5.14105326766599330220e+01, -6.05014350600728481186e+00};
static const double mt_j0_qq[] = {6.43178256118178023184e+01, 8.56430025976980587198e+02,
                                  3.88240183605401609683e+03, 7.24046774195652478189e+03,
                                  5.93072701187316984827e+03, 2.06209331660327847417e+03,
                                  2.42005740240291393179e+02};
static const double mt_j1_pp[] = {7.62125616208173112003e-04, 7.31397056940917570436e-02,
                                  1.12719608129684925192e+00, 5.11207951146807644818e+00,
                                  8.42404590141772420927e+00, 5.21451598682361504063e+00,
                                  1.00000000000000000254e+00};
static const double mt_j1_pq[] = {5.71323128072548699714e-04, 6.88455908754495404082e-02,
                                  1.10514232634061696926e+00, 5.07386386128601488557e+00,
                                  8.39985554327604159757e+00, 5.20982848682361821619e+00,
                                  9.99999999999999997461e-01};
static const double mt_j1_qp[] = {5.10862594750176621635e-02, 4.98213872951233449420e+00,
                                  7.58238284132545283818e+01, 3.66779609360150777800e+02,
                                  7.10856304998926107277e+02, 5.97489612400613639965e+02,
                                  2.11688757100572135698e+02, 2.52070205858023719784e+01};
static const double mt_j1_qq[] = {7.42373277035675149943e+01, 1.05644886038262816351e+03,
                                  4.98641058337653607651e+03, 9.56231892404756170795e+03,
                                  7.99704160447350683650e+03, 2.82619278517639096600e+03,
                                  3.36093607810698293419e+02};

#define MT_T double
#define MT_FN(name) name
#define MT_M(fn) fn
#define MT_EPSILON DBL_EPSILON
#include "special_bessel_typed.h"
#undef MT_T
#undef MT_FN
#undef MT_M
#undef MT_EPSILON
#define MT_T float
#define MT_FN(name) name##f
#define MT_M(fn) fn##f
#define MT_EPSILON FLT_EPSILON
#include "special_bessel_typed.h"
#undef MT_T
#undef MT_FN
#undef MT_M
#undef MT_EPSILON

/* j0(x) = sin(x) / x, its Taylor series below 1/2; 0 at the infinities */
static inline double mt_spherical_j0(double x)
{
    if (isinf(x))
        return 0;
    if (fabs(x) < 0.5) {
        double y = x * x;
        return 1 + y * (-1.0 / 6 +
                        y * (1.0 / 120 + y * (-1.0 / 5040 + y * (1.0 / 362880 +
                                                                 y * (-1.0 / 39916800 +
                                                                      y * (1.0 / 6227020800.0))))));
    }
    return sin(x) / x;
}

#endif
