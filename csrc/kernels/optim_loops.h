/* The element loops of the fused optimizers, written once over a floating
 * type: optim.c includes this file once per dtype with T (the C type), SFX
 * (the dtype suffix) and SQRT defined. Arithmetic is done in T, as torch does
 * for float32/float64 tensors, and follows the order of torch's tensor ops. */

#define NAME_(k, s) k##_##s
#define NAME(k, s) NAME_(k, s)

static void NAME(sgd, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_sgd_hyper *h = j->hyper;
    T *p = j->o->param, *buf = j->o->state[0];
    const T *gr = j->o->grad;
    const T wd = (T)h->weight_decay, mom = (T)h->momentum;
    const T keep = (T)(1.0 - h->dampening), neg_lr = (T)-h->lr;
    for (int64_t i = begin; i < end; i++) {
        T g = h->maximize ? -gr[i] : gr[i];
        if (h->weight_decay != 0)
            g = g + wd * p[i];
        if (h->momentum != 0) {
            buf[i] = h->first_step ? g : buf[i] * mom + keep * g;
            g = h->nesterov ? g + mom * buf[i] : buf[i];
        }
        p[i] = p[i] + neg_lr * g;
    }
}

static void NAME(adam, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_adam_hyper *h = j->hyper;
    T *p = j->o->param, *m = j->o->state[0], *v = j->o->state[1], *vmax = j->o->state[2];
    const T *gr = j->o->grad;
    const double step_size = h->lr / (1.0 - pow(h->beta1, (double)h->step));
    const T bc2_sqrt = (T)sqrt(1.0 - pow(h->beta2, (double)h->step));
    const T wd = (T)h->weight_decay, decay = (T)(1.0 - h->lr * h->weight_decay);
    const T w1 = (T)(1.0 - h->beta1), b2 = (T)h->beta2, w2 = (T)(1.0 - h->beta2);
    const T eps = (T)h->eps, neg_step = (T)-step_size;
    const bool small_w1 = w1 < (T)0.5;
    for (int64_t i = begin; i < end; i++) {
        T g = h->maximize ? -gr[i] : gr[i];
        if (h->weight_decay != 0) {
            if (h->decoupled)
                p[i] = p[i] * decay;
            else
                g = g + wd * p[i];
        }
        /* torch's lerp: the form that is exact at the nearer end */
        m[i] = small_w1 ? m[i] + w1 * (g - m[i]) : g - (g - m[i]) * ((T)1 - w1);
        v[i] = v[i] * b2 + w2 * g * g;
        T second = v[i];
        if (h->amsgrad) {
            vmax[i] = vmax[i] > v[i] || vmax[i] != vmax[i] ? vmax[i] : v[i];
            second = vmax[i];
        }
        const T denom = SQRT(second) / bc2_sqrt + eps;
        p[i] = p[i] + neg_step * (m[i] / denom);
    }
}

static void NAME(rmsprop, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_rmsprop_hyper *h = j->hyper;
    T *p = j->o->param, *sq = j->o->state[0], *ga = j->o->state[1], *buf = j->o->state[2];
    const T *gr = j->o->grad;
    const T wd = (T)h->weight_decay, alpha = (T)h->alpha, w = (T)(1.0 - h->alpha);
    const T eps = (T)h->eps, mom = (T)h->momentum, neg_lr = (T)-h->lr;
    const bool small_w = w < (T)0.5;
    for (int64_t i = begin; i < end; i++) {
        T g = h->maximize ? -gr[i] : gr[i];
        if (h->weight_decay != 0)
            g = g + wd * p[i];
        sq[i] = sq[i] * alpha + w * g * g;
        T avg;
        if (h->centered) {
            ga[i] = small_w ? ga[i] + w * (g - ga[i]) : g - (g - ga[i]) * ((T)1 - w);
            avg = SQRT(sq[i] + (T)-1 * ga[i] * ga[i]);
        } else {
            avg = SQRT(sq[i]);
        }
        avg = avg + eps;
        if (h->momentum > 0) {
            buf[i] = buf[i] * mom + g / avg;
            p[i] = p[i] + neg_lr * buf[i];
        } else {
            p[i] = p[i] + neg_lr * (g / avg);
        }
    }
}

static void NAME(adagrad, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_adagrad_hyper *h = j->hyper;
    T *p = j->o->param, *sum = j->o->state[0];
    const T *gr = j->o->grad;
    const double clr = h->lr / (1.0 + (double)(h->step - 1) * h->lr_decay);
    const T wd = (T)h->weight_decay, eps = (T)h->eps, neg_clr = (T)-clr;
    for (int64_t i = begin; i < end; i++) {
        T g = h->maximize ? -gr[i] : gr[i];
        if (h->weight_decay != 0)
            g = g + wd * p[i];
        sum[i] = sum[i] + g * g;
        p[i] = p[i] + neg_clr * (g / (SQRT(sum[i]) + eps));
    }
}

#undef NAME
#undef NAME_
