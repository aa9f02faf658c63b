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
    /* flags in locals: the stores below could alias *h, so reading them
     * there would keep the loop from being unswitched and vectorized */
    const bool maximize = h->maximize, decay = h->weight_decay != 0;
    const bool momentum = h->momentum != 0, first = h->first_step, nesterov = h->nesterov;
    for (int64_t i = begin; i < end; i++) {
        T g = maximize ? -gr[i] : gr[i];
        if (decay)
            g = g + wd * p[i];
        if (momentum) {
            buf[i] = first ? g : buf[i] * mom + keep * g;
            g = nesterov ? g + mom * buf[i] : buf[i];
        }
        p[i] = p[i] + neg_lr * g;
    }
}

/* One Adam step's operands and constants in T, with every flag settled once,
 * so that the element loops read nothing through the hyperparameters. */
typedef struct {
    T *p, *m, *v, *vmax;
    const T *gr;
    T wd, decay, w1, b2, w2, eps, neg_step, bc2_sqrt;
    bool small_w1, maximize, amsgrad, coupled_wd, decoupled_wd;
} NAME(adam_k, SFX);

#ifdef ADAM_VEC
/* Updates a leading run of [begin, end) in vectors, with the same operations
 * in the same order as the loop below; returns where that loop takes over. */
static int64_t ADAM_VEC(const NAME(adam_k, SFX) * k, int64_t begin, int64_t end);
#endif

static void NAME(adam, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_adam_hyper *h = j->hyper;
    const double step_size = h->lr / (1.0 - pow(h->beta1, (double)h->step));
    const NAME(adam_k, SFX) k = {
        .p = j->o->param,
        .m = j->o->state[0],
        .v = j->o->state[1],
        .vmax = j->o->state[2],
        .gr = j->o->grad,
        .wd = (T)h->weight_decay,
        .decay = (T)(1.0 - h->lr * h->weight_decay),
        .w1 = (T)(1.0 - h->beta1),
        .b2 = (T)h->beta2,
        .w2 = (T)(1.0 - h->beta2),
        .eps = (T)h->eps,
        .neg_step = (T)-step_size,
        .bc2_sqrt = (T)sqrt(1.0 - pow(h->beta2, (double)h->step)),
        .small_w1 = (T)(1.0 - h->beta1) < (T)0.5,
        .maximize = h->maximize,
        .amsgrad = h->amsgrad,
        .coupled_wd = h->weight_decay != 0 && !h->decoupled,
        .decoupled_wd = h->weight_decay != 0 && h->decoupled,
    };
    T *p = k.p, *m = k.m, *v = k.v, *vmax = k.vmax;
    const T *gr = k.gr;
    int64_t i = begin;
#ifdef ADAM_VEC
    i = ADAM_VEC(&k, begin, end);
#endif
    for (; i < end; i++) {
        T g = k.maximize ? -gr[i] : gr[i];
        if (k.decoupled_wd)
            p[i] = p[i] * k.decay;
        else if (k.coupled_wd)
            g = g + k.wd * p[i];
        /* torch's lerp: the form that is exact at the nearer end */
        m[i] = k.small_w1 ? m[i] + k.w1 * (g - m[i]) : g - (g - m[i]) * ((T)1 - k.w1);
        v[i] = v[i] * k.b2 + k.w2 * g * g;
        T second = v[i];
        if (k.amsgrad) {
            vmax[i] = vmax[i] > v[i] || vmax[i] != vmax[i] ? vmax[i] : v[i];
            second = vmax[i];
        }
        const T denom = SQRT(second) / k.bc2_sqrt + k.eps;
        p[i] = p[i] + k.neg_step * (m[i] / denom);
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

/* The gradient after maximize and (coupled or AdamW-style) weight decay. */
static inline T NAME(decayed_grad, SFX)(T g, T *p, bool maximize, double wd, bool decoupled,
                                        T decay)
{
    g = maximize ? -g : g;
    if (wd != 0) {
        if (decoupled)
            *p = *p * decay;
        else
            g = g + (T)wd * *p;
    }
    return g;
}

/* torch's lerp(a, b, w): the form that is exact at the nearer end */
static inline T NAME(lerp, SFX)(T a, T b, T w)
{
    return w < (T)0.5 ? a + w * (b - a) : b - (b - a) * ((T)1 - w);
}

static void NAME(nadam, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_nadam_hyper *h = j->hyper;
    T *p = j->o->param, *m = j->o->state[0], *v = j->o->state[1];
    const T *gr = j->o->grad;
    const T bc2 = (T)(1.0 - pow(h->beta2, (double)h->step));
    const double step = (double)h->step;
    const double mu = h->beta1 * (1.0 - 0.5 * pow(0.96, step * h->momentum_decay));
    const double mu_next = h->beta1 * (1.0 - 0.5 * pow(0.96, (step + 1) * h->momentum_decay));
    const T grad_coef = (T)(-h->lr * (1.0 - mu) / (1.0 - h->mu_product));
    const T avg_coef = (T)(-h->lr * mu_next / (1.0 - h->mu_product * mu_next));
    const T decay = (T)(1.0 - h->lr * h->weight_decay), w1 = (T)(1.0 - h->beta1);
    const T b2 = (T)h->beta2, w2 = (T)(1.0 - h->beta2), eps = (T)h->eps;
    for (int64_t i = begin; i < end; i++) {
        const T g = NAME(decayed_grad, SFX)(gr[i], &p[i], h->maximize, h->weight_decay,
                                            h->decoupled, decay);
        m[i] = NAME(lerp, SFX)(m[i], g, w1);
        v[i] = v[i] * b2 + w2 * g * g;
        const T denom = SQRT(v[i] / bc2) + eps;
        p[i] = p[i] + grad_coef * (g / denom);
        p[i] = p[i] + avg_coef * (m[i] / denom);
    }
}

static void NAME(radam, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_radam_hyper *h = j->hyper;
    T *p = j->o->param, *m = j->o->state[0], *v = j->o->state[1];
    const T *gr = j->o->grad;
    const double step = (double)h->step;
    const double bc1 = 1.0 - pow(h->beta1, step), bc2 = 1.0 - pow(h->beta2, step);
    const double rho_inf = 2.0 / (1.0 - h->beta2) - 1.0;
    const double rho_t = rho_inf - 2.0 * step * pow(h->beta2, step) / bc2;
    /* The variance is tractable (the update is rectified) only past rho_t = 5. */
    const bool rectified = rho_t > 5.0;
    const T rect =
        rectified
            ? (T)sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            : (T)0;
    const T decay = (T)(1.0 - h->lr * h->weight_decay), w1 = (T)(1.0 - h->beta1);
    const T b2 = (T)h->beta2, w2 = (T)(1.0 - h->beta2), eps = (T)h->eps;
    const T tbc1 = (T)bc1, bc2_sqrt = (T)sqrt(bc2), lr = (T)h->lr;
    for (int64_t i = begin; i < end; i++) {
        const T g = NAME(decayed_grad, SFX)(gr[i], &p[i], h->maximize, h->weight_decay,
                                            h->decoupled, decay);
        m[i] = NAME(lerp, SFX)(m[i], g, w1);
        v[i] = v[i] * b2 + w2 * g * g;
        T update = m[i] / tbc1 * lr;
        if (rectified)
            update = update * (bc2_sqrt / (SQRT(v[i]) + eps)) * rect;
        p[i] = p[i] - update;
    }
}

static void NAME(adamax, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_adamax_hyper *h = j->hyper;
    T *p = j->o->param, *m = j->o->state[0], *u = j->o->state[1];
    const T *gr = j->o->grad;
    const T neg_clr = (T)(-(h->lr / (1.0 - pow(h->beta1, (double)h->step))));
    const T w1 = (T)(1.0 - h->beta1), b2 = (T)h->beta2, eps = (T)h->eps;
    for (int64_t i = begin; i < end; i++) {
        const T g =
            NAME(decayed_grad, SFX)(gr[i], &p[i], h->maximize, h->weight_decay, false, (T)1);
        m[i] = NAME(lerp, SFX)(m[i], g, w1);
        const T a = u[i] * b2, b = (g < 0 ? -g : g) + eps;
        /* torch.maximum: NaN wins */
        u[i] = a != a || b != b ? a + b : (a > b ? a : b);
        p[i] = p[i] + neg_clr * (m[i] / u[i]);
    }
}

static void NAME(rprop, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_rprop_hyper *h = j->hyper;
    T *p = j->o->param, *prev = j->o->state[0], *size = j->o->state[1];
    const T *gr = j->o->grad;
    const T etaminus = (T)h->etaminus, etaplus = (T)h->etaplus;
    const T lo = (T)h->step_size_min, hi = (T)h->step_size_max;
    for (int64_t i = begin; i < end; i++) {
        T g = h->maximize ? -gr[i] : gr[i];
        const T s = g * prev[i];
        /* sign(NaN) is 0 in torch: a NaN product leaves the step size alone */
        const T factor = s > 0 ? etaplus : s < 0 ? etaminus : (T)1;
        T st = size[i] * factor;
        if (st == st) { /* clamp(min, max): NaN stays, max wins over min */
            st = st < lo ? lo : st;
            st = st > hi ? hi : st;
        }
        size[i] = st;
        if (factor == etaminus)
            g = 0;
        const T sg = g > 0 ? (T)1 : g < 0 ? (T)-1 : (T)0; /* sign(NaN) is 0 too */
        p[i] = p[i] + (T)-1 * sg * st;
        prev[i] = g;
    }
}

static void NAME(asgd, SFX)(void *arg, int64_t begin, int64_t end)
{
    const optim_job *j = arg;
    const mt_asgd_hyper *h = j->hyper;
    T *p = j->o->param, *ax = j->o->state[0];
    const T *gr = j->o->grad;
    const T shrink = (T)(1.0 - h->lambd * h->eta), neg_eta = (T)-h->eta, mu = (T)h->mu;
    for (int64_t i = begin; i < end; i++) {
        const T g =
            NAME(decayed_grad, SFX)(gr[i], &p[i], h->maximize, h->weight_decay, false, (T)1);
        p[i] = p[i] * shrink;
        p[i] = p[i] + neg_eta * g;
        /* mu == 1 (before t0): the average is the parameter itself */
        ax[i] = h->mu != 1 ? ax[i] + (p[i] - ax[i]) * mu : p[i];
    }
}

#undef NAME
#undef NAME_
