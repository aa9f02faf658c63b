/* Fused optimizer updates: one pass over a parameter's elements reads its
 * gradient and updates the parameter and its state buffers in place, with the
 * arithmetic of torch's single-tensor (for-loop) optimizers in the same order,
 * each hyperparameter rounded to the parameter's dtype as torch's scalar
 * arguments are. */
#ifndef MT_KERNELS_OPTIM_H
#define MT_KERNELS_OPTIM_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/dtype.h"

/* Dense operands of one update: every buffer holds numel elements of dtype
 * (MT_FLOAT32 or MT_FLOAT64). Unused state slots are NULL. */
typedef struct {
    mt_dtype dtype;
    int64_t numel;
    void *param;
    const void *grad;
    void *state[3];
} mt_optim_operands;

/* state[0]: momentum_buffer (when momentum != 0) */
typedef struct {
    double lr, momentum, dampening, weight_decay;
    bool nesterov, maximize, first_step; /* first_step: the buffer starts as the gradient */
} mt_sgd_hyper;

/* state: exp_avg, exp_avg_sq, max_exp_avg_sq (when amsgrad) */
typedef struct {
    double lr, beta1, beta2, eps, weight_decay;
    int64_t step;                      /* already incremented, >= 1 */
    bool amsgrad, maximize, decoupled; /* decoupled: AdamW's weight decay */
} mt_adam_hyper;

/* state: square_avg, grad_avg (when centered), momentum_buffer (when momentum > 0) */
typedef struct {
    double lr, alpha, eps, weight_decay, momentum;
    bool centered, maximize;
} mt_rmsprop_hyper;

/* state[0]: state_sum */
typedef struct {
    double lr, lr_decay, weight_decay, eps;
    int64_t step; /* already incremented, >= 1 */
    bool maximize;
} mt_adagrad_hyper;

/* state: exp_avg, exp_avg_sq. mu_product: the running product of the momentum
 * coefficients up to this step's, as stored (in its own dtype). */
typedef struct {
    double lr, beta1, beta2, eps, weight_decay, momentum_decay, mu_product;
    int64_t step; /* already incremented, >= 1 */
    bool maximize, decoupled;
} mt_nadam_hyper;

/* state: exp_avg, exp_avg_sq */
typedef struct {
    double lr, beta1, beta2, eps, weight_decay;
    int64_t step; /* already incremented, >= 1 */
    bool maximize, decoupled;
} mt_radam_hyper;

/* state: exp_avg, exp_inf */
typedef struct {
    double lr, beta1, beta2, eps, weight_decay;
    int64_t step; /* already incremented, >= 1 */
    bool maximize;
} mt_adamax_hyper;

/* state: prev, step_size */
typedef struct {
    double etaminus, etaplus, step_size_min, step_size_max;
    bool maximize;
} mt_rprop_hyper;

/* state[0]: ax. eta, mu: the step size and averaging rate as stored (before
 * this step updates them). */
typedef struct {
    double eta, mu, lambd, weight_decay;
    bool maximize;
} mt_asgd_hyper;

void mt_optim_sgd(const mt_optim_operands *o, const mt_sgd_hyper *h);
void mt_optim_adam(const mt_optim_operands *o, const mt_adam_hyper *h);
void mt_optim_rmsprop(const mt_optim_operands *o, const mt_rmsprop_hyper *h);
void mt_optim_adagrad(const mt_optim_operands *o, const mt_adagrad_hyper *h);
void mt_optim_nadam(const mt_optim_operands *o, const mt_nadam_hyper *h);
void mt_optim_radam(const mt_optim_operands *o, const mt_radam_hyper *h);
void mt_optim_adamax(const mt_optim_operands *o, const mt_adamax_hyper *h);
void mt_optim_rprop(const mt_optim_operands *o, const mt_rprop_hyper *h);
void mt_optim_asgd(const mt_optim_operands *o, const mt_asgd_hyper *h);

#endif
