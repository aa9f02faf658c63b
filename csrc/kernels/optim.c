#include "optim.h"
#include "parallel.h"

#include <math.h>

/* Below this many elements an update runs on the calling thread. */
#define OPTIM_GRAIN 32768

typedef struct {
    const mt_optim_operands *o;
    const void *hyper;
} optim_job;

#define T float
#define SFX f4
#define SQRT sqrtf
#include "optim_loops.h"
#undef T
#undef SFX
#undef SQRT

#define T double
#define SFX f8
#define SQRT sqrt
#include "optim_loops.h"
#undef T
#undef SFX
#undef SQRT

static void run(const mt_optim_operands *o, const void *hyper, mt_range_fn f4, mt_range_fn f8)
{
    optim_job j = {o, hyper};
    mt_parallel_for(0, o->numel, OPTIM_GRAIN, o->dtype == MT_FLOAT64 ? f8 : f4, &j);
}

void mt_optim_sgd(const mt_optim_operands *o, const mt_sgd_hyper *h)
{
    run(o, h, sgd_f4, sgd_f8);
}

void mt_optim_adam(const mt_optim_operands *o, const mt_adam_hyper *h)
{
    run(o, h, adam_f4, adam_f8);
}

void mt_optim_rmsprop(const mt_optim_operands *o, const mt_rmsprop_hyper *h)
{
    run(o, h, rmsprop_f4, rmsprop_f8);
}

void mt_optim_adagrad(const mt_optim_operands *o, const mt_adagrad_hyper *h)
{
    run(o, h, adagrad_f4, adagrad_f8);
}

void mt_optim_nadam(const mt_optim_operands *o, const mt_nadam_hyper *h)
{
    run(o, h, nadam_f4, nadam_f8);
}

void mt_optim_radam(const mt_optim_operands *o, const mt_radam_hyper *h)
{
    run(o, h, radam_f4, radam_f8);
}

void mt_optim_adamax(const mt_optim_operands *o, const mt_adamax_hyper *h)
{
    run(o, h, adamax_f4, adamax_f8);
}

void mt_optim_rprop(const mt_optim_operands *o, const mt_rprop_hyper *h)
{
    run(o, h, rprop_f4, rprop_f8);
}

void mt_optim_asgd(const mt_optim_operands *o, const mt_asgd_hyper *h)
{
    run(o, h, asgd_f4, asgd_f8);
}
