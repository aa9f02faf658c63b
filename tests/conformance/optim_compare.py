"""One OptimizerInfo configuration of torch's optim_db against its
minitorch.optim counterpart: the same parameters (a few shapes, float32 and
float64) stepped a few times by both with the same gradients (fresh each
step, or from a small loss through a closure where the optimizer needs
one), parameters and the optimizer's state_dict compared after every step."""
import torch

import minitorch as mt

from .convert import Unsupported, assert_same, to_mt
from .module_compare import Converter, expect_raises

# torch's thread pool spins on tiny tensors when cores are shared
torch.set_num_threads(1)

SHAPES = ((2, 3), (4,), (3, 1, 2))
# for an optimizer of matrices only (Muon), as torch's own optimizer tests
# build every parameter: wide, tall and square
MATRIX_SHAPES = ((2, 3), (4, 2), (3, 3))
STEPS = 5
DTYPES = (torch.float32, torch.float64)
# torch.testing's defaults, which torch's own foreach-against-for-loop
# comparisons use: its foreach and fused paths round differently
TOLERANCES = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}
# the state holds float32 scalars (step, eta, mu) next to float64 tensors,
# and quantities derived through cancelling sums that rounding moves more
# than the parameters: torch's own LBFGS in float32 with a tensor lr, its
# dot products accumulated in double, moves its direction d by 1.3e-4
STATE_TOLERANCES = {torch.float32: (1e-3, 1e-5), torch.float64: (1e-6, 1e-8)}
# the implementation flags optim_db marks per optimizer, each a check of its
# own over every configuration; fused only where torch has it on the CPU
IMPLS = ("foreach", "fused", "capturable", "differentiable")
# the second group's own options in the param_groups check
GROUP_OPTIONS = {"lr": 0.02, "weight_decay": 0.05}


def counterpart(optim_cls):
    return getattr(mt.optim, optim_cls.__name__, None)


def configs(info):
    return info.optim_inputs_func(device="cpu")


def impls(info):
    """The flags of IMPLS torch supports for info on the CPU."""
    supported = set(info.supported_impls)
    if "cpu" not in info.supports_fused_on:
        supported.discard("fused")
    if info.has_capturable_arg:
        supported.add("capturable")
    return [i for i in IMPLS if i in supported]


def _loss(params, targets):
    """A small convex loss, quadratic plus quartic, for the closure."""
    total = 0
    for p, c in zip(params, targets):
        d = (p - c) * (p - c)
        total = total + d.sum() + 0.1 * (d * d).sum()
    return total


def _shapes(info):
    """SHAPES, or MATRIX_SHAPES for an optimizer that refuses a vector."""
    try:
        info.optim_cls([torch.zeros(2, requires_grad=True)])
    except ValueError:
        return MATRIX_SHAPES
    return SHAPES


def _inputs(dtype, shapes=SHAPES):
    """Parameters, loss targets and per-step gradients, the same every call."""
    g = torch.Generator().manual_seed(0)
    leaves = [torch.randn(s, generator=g, dtype=dtype).requires_grad_() for s in shapes]
    targets = [torch.randn(s, generator=g, dtype=dtype) for s in shapes]
    grads = [[torch.randn(s, generator=g, dtype=dtype) for s in shapes] for _ in range(STEPS)]
    return leaves, targets, grads


class _Run:
    """One library's parameters and optimizer, stepped as the check asks."""

    def __init__(self, optim_cls, leaves, kwargs, variant, sparse):
        # a differentiable optimizer updates in place inside autograd: its
        # parameters are non-leaf copies, as torch's own tests use them
        self.params = [p.clone() if variant == "differentiable" else p for p in leaves]
        given = self.params
        if variant == "param_groups":
            given = [{"params": self.params[:1]}, {"params": self.params[1:], **GROUP_OPTIONS}]
        self.opt = optim_cls(given, **kwargs)
        self.sparse = sparse

    def step(self, grads, targets, closure):
        if closure:
            def fn():
                self.opt.zero_grad()
                loss = _loss(self.params, targets)
                loss.backward()
                return loss
            return self.opt.step(fn)
        for p, gr in zip(self.params, grads):
            p.grad = gr.to_sparse() if self.sparse else gr.clone()
        return self.opt.step()


def check_config(info, kwargs, variant=None):
    """The config's kwargs on both dtypes, with variant (one of IMPLS, set
    True, or "param_groups": the parameters in two groups, the second with
    GROUP_OPTIONS) when given: raises AssertionError naming the dtype, step
    and the first difference."""
    if variant in IMPLS:
        kwargs = {**kwargs, variant: True}
    ran = 0
    for dtype in DTYPES:
        try:
            ran += _check_dtype(info, kwargs, dtype, variant)
        except Unsupported:
            raise
        except Exception as e:
            raise AssertionError(f"{dtype}: {type(e).__name__}: {e}") from e
    if not ran:
        raise Unsupported("torch refuses the configuration on the CPU")


def _torch_refuses(info, kwargs, dtype, variant):
    leaves, targets, grads = _inputs(dtype, _shapes(info))
    try:
        t = _Run(info.optim_cls, leaves, kwargs, variant, info.only_supports_sparse_grads)
        for k in range(STEPS):
            t.step(grads[k], targets, info.step_requires_closure)
    except Exception:  # noqa: BLE001 - a configuration torch refuses is none of ours
        return True
    return False


def _check_dtype(info, kwargs, dtype, variant):
    if _torch_refuses(info, kwargs, dtype, variant):
        return 0
    rtol, atol = TOLERANCES[dtype]
    closure = info.step_requires_closure
    leaves, targets, grads = _inputs(dtype, _shapes(info))
    # converted before torch's steps update the leaves in place
    m_leaves, m_targets, m_grads, m_kwargs = to_mt((leaves, targets, grads, kwargs))
    t = _Run(info.optim_cls, leaves, kwargs, variant, info.only_supports_sparse_grads)
    m = _Run(counterpart(info.optim_cls), m_leaves, m_kwargs, variant,
             info.only_supports_sparse_grads)
    for k in range(STEPS):
        lt = t.step(grads[k], targets, closure)
        lm = m.step(m_grads[k], m_targets, closure)
        assert_same(lm, lt, rtol, atol, f"loss of step {k + 1}")
        assert_same(m.params, t.params, rtol, atol, f"parameters after step {k + 1}")
        assert_same(_comparable(m.opt.state_dict()), _comparable(t.opt.state_dict()),
                    *STATE_TOLERANCES[dtype], f"state_dict after step {k + 1}")
    return 1


def _comparable(state_dict):
    """The optimizer's state_dict without LBFGS's `al`, the scratch of its
    last two-loop recursion: sums of cancelling terms that rounding alone
    moves by percents."""
    state = {k: {n: v for n, v in s.items() if n != "al"}
             for k, s in state_dict["state"].items()}
    return {**state_dict, "state": state}


def copy_grads(tparams, params, conv):
    """Gives the converted parameters the gradients torch's error input set on
    its own (a step error may depend on them), walking lists and param-group
    dicts in parallel."""
    if isinstance(tparams, torch.Tensor):
        if tparams.grad is not None:
            params.grad = conv(tparams.grad)
    elif isinstance(tparams, dict):
        for k in tparams:
            copy_grads(tparams[k], params[k], conv)
    elif isinstance(tparams, (list, tuple)):
        for t, p in zip(tparams, params):
            copy_grads(t, p, conv)


def check_errors(info):
    """Each of info's error inputs makes minitorch raise (or warn) torch's
    exception type with a message matching torch's."""
    from torch.testing._internal.common_optimizers import OptimizerErrorEnum

    torch.manual_seed(0)
    for n, err in enumerate(info.optim_error_inputs_func(device="cpu", dtype=torch.float32)):
        given = err.optimizer_error_input
        conv = Converter()
        tparams = (given.params if given.params is not None
                   else [torch.nn.Parameter(torch.randn(2, 2))])
        try:
            params = conv(tparams)
            copy_grads(tparams, params, conv)
            kwargs = conv(given.kwargs)
        except Unsupported:
            continue  # a parameter minitorch has no counterpart for
        optim_cls = counterpart(info.optim_cls)

        def run():
            opt = optim_cls(params, **kwargs)
            if err.error_on == OptimizerErrorEnum.STEP_ERROR:
                opt.step()

        expect_raises(run, err, f"error input {n} ({given.desc})")
