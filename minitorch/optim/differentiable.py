"""The optimizers' updates as ordinary tensor operations, for differentiable=True.

The fused C updates run outside autograd; with differentiable=True torch runs
the update inside it, so that a gradient reaches what the update read: a
parameter that is not a leaf, a tensor hyperparameter (lr, betas), a gradient
that itself requires grad. Each function here is one parameter's step of one
optimizer, written with differentiable in-place tensor ops in the order torch's
single-tensor update uses them (its differentiable branches included, which
copy a buffer before reading it where a later in-place write would otherwise
invalidate the saved value); `state` has its step already advanced."""
from .. import _C
from .._tensor import Tensor

_maximum = _C._functions["maximum"]
_where = _C._functions["where"]


def _direction(p, grad, group):
    """The gradient the update follows: negated to maximize, with the L2
    weight decay term added."""
    if group["maximize"]:
        grad = -grad
    if group["weight_decay"] != 0 and not group.get("decoupled_weight_decay", False):
        grad = grad.add(p, alpha=group["weight_decay"])
    return grad


def _add_scaled(p, t, scale):
    """p -= scale * t, through autograd when scale is a tensor requiring grad."""
    if isinstance(scale, Tensor) and scale.requires_grad:
        p.addcmul_(t, scale, value=-1)
    else:
        p.add_(t, alpha=-float(scale))


def _decay_weights(p, group):
    if group["weight_decay"] != 0 and group.get("decoupled_weight_decay", False):
        p.mul_(1 - group["lr"] * group["weight_decay"])


def sgd(p, grad, state, group):
    grad = _direction(p, grad, group)
    momentum = group["momentum"]
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = grad.detach().clone()
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
        grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
    _add_scaled(p, grad, group["lr"])


def adagrad(p, grad, state, group):
    grad = _direction(p, grad, group)
    step = state["step"].item()
    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
    state["sum"].addcmul_(grad, grad, value=1)
    std = state["sum"].sqrt() + group["eps"]
    p.addcdiv_(grad, std, value=-float(clr))


def adam(p, grad, state, group):
    beta1, beta2 = group["betas"]
    lr, eps = group["lr"], group["eps"]
    _decay_weights(p, group)
    grad = _direction(p, grad, group)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    if isinstance(beta2, Tensor) and beta2.requires_grad:
        exp_avg_sq.lerp_(grad.square(), 1 - beta2)
    else:
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=float(1 - beta2))
    # the step stays a (float32) tensor, as in torch's differentiable branch
    step = state["step"]
    bias_correction1 = 1 - beta1 ** step.clone()
    bias_correction2 = 1 - beta2 ** step.clone()
    step_size_neg = (lr / bias_correction1).neg()
    scale = bias_correction2.sqrt() * step_size_neg
    if group["amsgrad"]:
        max_sq = state["max_exp_avg_sq"]
        max_sq.copy_(_maximum(max_sq.clone(), exp_avg_sq))
        denom = (max_sq.sqrt() / scale).add_(eps / step_size_neg)
    else:
        denom = (exp_avg_sq.sqrt() / scale).add_(eps / step_size_neg)
    p.addcdiv_(exp_avg.clone(), denom)


def adamax(p, grad, state, group):
    beta1, beta2 = group["betas"]
    grad = _direction(p, grad, group)
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    exp_avg.lerp_(grad, 1 - beta1)
    both = _C._functions["cat"]([exp_inf.mul_(beta2).unsqueeze(0),
                                 grad.abs().add_(group["eps"]).unsqueeze_(0)], 0)
    exp_inf.copy_(both.amax(0))
    clr = group["lr"] / (1 - beta1 ** state["step"].item())
    p.addcdiv_(exp_avg, exp_inf, value=-float(clr))


def asgd(p, grad, state, group):
    """The parameter and its average; the caller updates eta and mu."""
    grad = _direction(p, grad, group)
    eta = state["eta"].item()
    p.mul_(1 - group["lambd"] * eta)
    p.add_(grad, alpha=-eta)
    ax, mu = state["ax"], state["mu"].item()
    if mu != 1:
        ax.add_(p.sub(ax).mul_(mu))
    else:
        ax.copy_(p)


def nadam(p, grad, state, group):
    """NAdam's step; the caller has advanced mu_product."""
    beta1, beta2 = group["betas"]
    lr, momentum_decay = group["lr"], group["momentum_decay"]
    step = state["step"].item()
    _decay_weights(p, group)
    grad = _direction(p, grad, group)
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add(group["eps"])
    mu_product = state["mu_product"]
    mu_product_next = mu_product * mu_next
    p.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
    p.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)


def radam(p, grad, state, group):
    beta1, beta2 = group["betas"]
    lr = group["lr"]
    step = state["step"].item()
    _decay_weights(p, group)
    grad = _direction(p, grad, group)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction2 = 1 - beta2 ** step
    corrected = exp_avg / (1 - beta1 ** step)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add(group["eps"])
        p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
    else:
        p.add_(corrected * lr, alpha=-1.0)


def rmsprop(p, grad, state, group):
    grad = _direction(p, grad, group)
    alpha = group["alpha"]
    square_avg = state["square_avg"]
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if group["centered"]:
        grad_avg = state["grad_avg"]
        grad_avg.lerp_(grad, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(group["eps"])
    if group["momentum"] > 0:
        buf = state["momentum_buffer"]
        buf.mul_(group["momentum"]).addcdiv_(grad, avg)
        _add_scaled(p, buf, group["lr"])
    else:
        p.addcdiv_(grad, avg, value=-float(group["lr"]))


def rprop(p, grad, state, group):
    etaminus, etaplus = group["etas"]
    size_min, size_max = group["step_sizes"]
    if group["maximize"]:
        grad = -grad
    prev, step_size = state["prev"], state["step_size"]
    sign = grad.mul(prev.clone()).sign()
    sign = _where(sign.gt(0), etaplus, sign)
    sign = _where(sign.lt(0), etaminus, sign)
    sign = _where(sign.eq(0), 1.0, sign)
    step_size.mul_(sign).clamp_(size_min, size_max)
    grad = _where(sign.eq(etaminus), 0.0, grad)
    p.addcmul_(grad.sign(), step_size, value=-1)
    prev.copy_(grad)
