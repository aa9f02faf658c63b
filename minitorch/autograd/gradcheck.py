"""gradcheck / gradgradcheck: compare analytical gradients with finite differences.

Numerical Jacobians perturb each input element in place through a NumPy view
of the input's memory (central differences); analytical Jacobians take one
``autograd.grad`` per output element with a one-hot grad_output. Both are laid
out as torch does: one (input numel, output numel) matrix per pair.

Complex values are checked as torch checks them: a complex input's entries are
conjugate Wirtinger derivatives ds/dx + i ds/dy (the real and imaginary parts
perturbed apart), which is what backward returns; a complex output is checked
as its imaginary part, then its real part; forward mode checks a complex
input as its real part, then its imaginary part, each a real input.
"""
import warnings
from typing import Callable, Optional

import numpy as np

from .. import _C
from ._gradcheck_batched import batched_forward_grad_check, batched_grad_check

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _fn(name):
    return _C._functions[name]


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_tensor(x):
    return isinstance(x, _tensor_cls())


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if _is_tensor(o) and o.requires_grad)


def _check_inputs(inputs):
    any_requires = False
    for idx, inp in enumerate(inputs):
        if _is_tensor(inp) and inp.requires_grad:
            if inp.dtype not in (_C.float64, _C.complex128):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not of "
                    "double precision floating point or complex. ")
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_requires = True
    if not any_requires:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")


def _diff_inputs(inputs):
    return [(i, x) for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]


def _np_dtype(x):
    return np.complex128 if x.dtype.is_complex else np.float64


def _outputs_np(func, inputs, out_idx):
    """func's outputs at out_idx, flattened to float64 (complex128) NumPy copies."""
    outs = _as_tuple(func(*inputs))
    return [np.array(outs[k].detach().resolve_conj().numpy(), dtype=_np_dtype(outs[k])).reshape(-1)
            for k in out_idx]


def _float_output_indices(func_out):
    return [k for k, o in enumerate(_as_tuple(func_out))
            if _is_tensor(o) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _prefix(k, complex_indices, part, element):
    if k not in complex_indices:
        return ""
    return f"While considering the {part} part of complex {element} only, "


def _real_and_imag_output(func):
    """func with its complex outputs replaced by their real parts, and by
    their imaginary parts."""
    def applied(part):
        def wrapped(*inputs):
            return tuple(_fn(part)(o) if _is_tensor(o) and o.dtype.is_complex else o
                         for o in _as_tuple(func(*inputs)))
        return wrapped
    return applied("real"), applied("imag")


def _real_and_imag_input(func, complex_idx, inputs):
    """func of real tensors standing for its complex inputs' real parts (the
    imaginary parts held at the inputs'), and for their imaginary parts."""
    def applied(make):
        def wrapped(*args):
            args = list(args)
            for k in complex_idx:
                args[k] = make(args[k], inputs[k])
            return _as_tuple(func(*args))
        return wrapped
    return (applied(lambda x, orig: x + orig.imag * 1j),
            applied(lambda y, orig: orig.real + y * 1j))


def _forward_jacobian(func, inputs, out_idx, out_numels):
    """Per differentiable input, per output: (input numel, output numel), one
    row per unit tangent, computed with forward-mode AD."""
    from . import forward_ad as fwAD
    diff = _diff_inputs(inputs)
    outs0 = _as_tuple(func(*inputs))
    kinds = [_np_dtype(outs0[k]) for k in out_idx]
    result = []
    for i, x in diff:
        jac = [np.zeros((x.numel(), n), dtype=kd) for n, kd in zip(out_numels, kinds)]
        for j in range(x.numel()):
            with fwAD.dual_level():
                args = list(inputs)
                for k, y in diff:
                    tangent = _fn("zeros_like")(y.detach())
                    if k == i:
                        # element j in logical order, whatever y's strides
                        unit = _fn("zeros")(y.numel(), dtype=y.dtype)
                        unit[j] = 1
                        tangent.copy_(unit.reshape(y.shape))
                    args[k] = fwAD.make_dual(y.detach(), tangent)
                outs = _as_tuple(func(*args))
                for r, k in enumerate(out_idx):
                    t = fwAD.unpack_dual(outs[k]).tangent
                    if t is not None:
                        jac[r][j] = t.detach().resolve_conj().numpy().reshape(-1)
        result.append(jac)
    return result


def _forward_ad_check(func, inputs, eps, atol, rtol):
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    complex_idx = [k for k, x in enumerate(tupled) if _is_tensor(x) and x.dtype.is_complex]
    if not complex_idx:
        return _forward_ad_check_real(func, tupled, eps, atol, rtol, [], "real")
    real_fn, imag_fn = _real_and_imag_input(func, complex_idx, tupled)
    imag_inputs = tuple(x.imag if k in complex_idx else x for k, x in enumerate(tupled))
    _forward_ad_check_real(imag_fn, imag_inputs, eps, atol, rtol, complex_idx, "imaginary")
    real_inputs = tuple(x.real if k in complex_idx else x for k, x in enumerate(tupled))
    _forward_ad_check_real(real_fn, real_inputs, eps, atol, rtol, complex_idx, "real")


def _forward_ad_check_real(func, tupled, eps, atol, rtol, complex_idx, part):
    """The forward-mode check of func over real inputs (its outputs may be complex)."""
    func_out = func(*tupled)
    outputs = _differentiable_outputs(func_out)
    if not outputs:
        return
    out_all = _as_tuple(func_out)
    out_idx = [next(k for k, o in enumerate(out_all) if o is out) for out in outputs]
    numels = [o.numel() for o in outputs]
    numerical = _numerical_jacobian(func, tupled, out_idx, numels, eps)
    forward = _forward_jacobian(func, tupled, out_idx, numels)
    for j, (fw_cols, num_cols) in enumerate(zip(forward, numerical)):
        for i, (a, n) in enumerate(zip(fw_cols, num_cols)):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_prefix(j, complex_idx, part, "inputs") +
                                     "Jacobian computed with forward mode mismatch for output "
                                     f"{i:d} with respect to input {j:d},\n"
                                     f"numerical:{_as_mt(n, outputs[i].dtype)}\n"
                                     f"analytical:{_as_mt(a, outputs[i].dtype)}\n")


def _central_difference(func, inputs, out_idx, view, pos, step):
    orig = view[pos].item()
    view[pos] = orig - step
    outa = _outputs_np(func, inputs, out_idx)
    view[pos] = orig + step
    outb = _outputs_np(func, inputs, out_idx)
    view[pos] = orig
    return [(b - a) / (2 * abs(step)) for a, b in zip(outa, outb)]


def _numerical_jacobian(func, inputs, out_idx, out_numels, eps):
    """Per differentiable input, per output in out_idx: (input numel, output
    numel); a complex input's entries are ds/dx + i ds/dy."""
    result = []
    for _, x in _diff_inputs(inputs):
        view = x.detach().numpy()  # shares x's memory, whatever its strides
        columns = []
        for pos in np.ndindex(view.shape):
            col = _central_difference(func, inputs, out_idx, view, pos, eps)
            if x.dtype.is_complex:
                dy = _central_difference(func, inputs, out_idx, view, pos, eps * 1j)
                col = [dx + 1j * d for dx, d in zip(col, dy)]
            columns.append(col)
        jac = []
        for k, n in enumerate(out_numels):
            rows = [c[k] for c in columns]
            kind = np.result_type(np.float64, *rows) if rows else _np_dtype(x)
            jac.append(np.array(rows, dtype=kind).reshape(x.numel(), n))
        result.append(jac)
    return result


def _vjp_rows(output, diff, grad_output_flat_index):
    from . import grad as autograd_grad
    g = _fn("zeros")(tuple(output.shape), dtype=output.dtype)
    g.view(-1)[grad_output_flat_index] = 1
    return autograd_grad(output, diff, g, retain_graph=True, allow_unused=True)


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    """Per differentiable input: (input numel, output numel), with torch's checks
    on sizes, dtypes and reentrancy."""
    diff = [x for _, x in _diff_inputs(inputs)]
    n_out = output.numel()
    jacs = [[np.zeros((x.numel(), n_out), dtype=_np_dtype(x)) for x in diff] for _ in range(2)]
    sizes_ok = types_ok = True
    for rep in range(2):
        for k in range(n_out):
            grads = _vjp_rows(output, diff, k)
            for j, (g, x) in enumerate(zip(grads, diff)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(x.shape):
                    sizes_ok = False
                    continue
                if g.dtype != x.dtype:
                    types_ok = False
                jacs[rep][j][:, k] = g.detach().resolve_conj().numpy().reshape(-1)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(*jacs):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}.")
    return jacs[0]


def _as_mt(a, dtype):
    if np.iscomplexobj(a) and not dtype.is_complex:
        dtype = _C.complex128
    return _fn("tensor")(a, dtype=dtype)


def _notallclose_msg(analytical, numerical, i, j, dtype, prefix=""):
    return (f"{prefix}Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
            f"numerical:{_as_mt(numerical, dtype)}\nanalytical:{_as_mt(analytical, dtype)}\n")


def _allclose(a, n, rtol, atol):
    return np.allclose(a, n, rtol=rtol, atol=atol)


def _slow_gradcheck(func, inputs, func_out, outputs, eps, atol, rtol, nondet_tol,
                    check_grad_dtypes, complex_out=(), part="real"):
    out_all = _as_tuple(func_out)
    out_idx = [next(k for k, o in enumerate(out_all) if o is out) for out in outputs]
    numerical = _numerical_jacobian(func, inputs, out_idx, [o.numel() for o in outputs], eps)
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][i]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j, o.dtype,
                                                      _prefix(i, complex_out, part, "outputs")))


def _unit_vector(numel, rng):
    v = rng.random(numel)
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def _fast_gradcheck(func, inputs, func_out, outputs, eps, atol, rtol, nondet_tol,
                    check_grad_dtypes, complex_out=(), part="real"):
    """Compares v^T J u for random unit vectors u (per input) and v (per
    output); a complex input has one u for its real parts and one for its
    imaginary parts, giving v^T J u_r + i v^T J u_i."""
    from . import grad as autograd_grad
    rng = np.random.default_rng(0)
    diff = [x for _, x in _diff_inputs(inputs)]
    out_all = _as_tuple(func_out)
    out_idx = [next(k for k, o in enumerate(out_all) if o is out) for out in outputs]
    all_u = [_unit_vector(x.numel(), rng) for x in diff]
    all_ui = [_unit_vector(x.numel(), rng) if x.dtype.is_complex else None for x in diff]
    all_v = [_unit_vector(o.numel(), rng) for o in outputs]
    numerical = np.zeros((len(outputs), len(diff)), dtype=np.complex128)

    def directional(view, u):
        orig = view.copy()
        view[...] = orig - u
        outa = _outputs_np(func, inputs, out_idx)
        view[...] = orig + u
        outb = _outputs_np(func, inputs, out_idx)
        view[...] = orig
        return [all_v[i] @ ((outb[i] - outa[i]) / (2 * eps)) for i in range(len(outputs))]

    for j, x in enumerate(diff):
        view = x.detach().numpy()
        col = directional(view, eps * all_u[j].reshape(view.shape))
        if all_ui[j] is not None:
            dy = directional(view, 1j * eps * all_ui[j].reshape(view.shape))
            col = [dx + 1j * d for dx, d in zip(col, dy)]
        numerical[:, j] = col
    analytical = np.zeros_like(numerical)

    def reduced(g, j):
        g = g.detach().resolve_conj().numpy().reshape(-1)
        if all_ui[j] is None:
            return g @ all_u[j]
        return g.real @ all_u[j] + 1j * (g.imag @ all_ui[j])
    for i, o in enumerate(outputs):
        v = _fn("tensor")(all_v[i].reshape(tuple(o.shape)), dtype=o.dtype)
        reps = [autograd_grad(o, diff, v, retain_graph=True, allow_unused=True) for _ in range(2)]
        for j, x in enumerate(diff):
            g1, g2 = reps[0][j], reps[1][j]
            if g1 is None:
                continue
            if tuple(g1.shape) != tuple(x.shape):
                raise GradcheckError("Analytical gradient has incorrect size")
            if check_grad_dtypes and g1.dtype != x.dtype:
                raise GradcheckError("Gradient has dtype mismatch")
            a1, a2 = reduced(g1, j), reduced(g2, j)
            if abs(a1 - a2) > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient.The tolerance for nondeterminism was "
                    f"{nondet_tol}.")
            analytical[i, j] = a1
    for i, o in enumerate(outputs):
        for j in range(len(diff)):
            u_sum = all_u[j].sum() + (all_ui[j].sum() if all_ui[j] is not None else 0.0)
            tol = atol * u_sum * all_v[i].sum()
            a, n = analytical[i, j], numerical[i, j]
            if all_ui[j] is None:
                a, n = a.real, n.real
            if not _allclose(a, n, rtol, tol):
                msg = _notallclose_msg(a, n, i, j, o.dtype,
                                       _prefix(i, complex_out, part, "outputs"))
                raise GradcheckError(
                    msg + "\nThe above quantities relating the numerical and analytical "
                    "jacobians are computed \nin fast mode. See: "
                    "https://github.com/pytorch/pytorch/issues/53876 for more background \nabout "
                    "fast mode. Below, we recompute numerical and analytical jacobians in slow "
                    "mode:\n\n" + _slow_mode_detail(func, inputs, func_out, outputs, eps, i, j))


def _slow_mode_detail(func, inputs, func_out, outputs, eps, i, j):
    out_all = _as_tuple(func_out)
    k = next(k for k, o in enumerate(out_all) if o is outputs[i])
    n = _numerical_jacobian(func, inputs, [k], [outputs[i].numel()], eps)[j][0]
    a = _analytical_jacobian(inputs, outputs[i], float("inf"), False)[j]
    dtype = outputs[i].dtype
    worst = np.abs(a - n).max() if a.size else 0.0
    return (f"Numerical:\n {_as_mt(n, dtype)}\nAnalytical:\n{_as_mt(a, dtype)}\n\n"
            f"The max per-element difference (slow mode) is: {worst}.\n")


def _check_undefined_grad_support(func, inputs):
    """As torch's: backward must cope with undefined output grads, all of them at
    once and (for several outputs) one at a time, each on a fresh graph."""
    from . import grad as autograd_grad
    diff = [x for _, x in _diff_inputs(inputs)]

    def warn_bc_breaking():
        warnings.warn("Backwards compatibility: New undefined gradient support checking "
                      "feature is enabled by default, but it may break existing callers of this "
                      "function. If this is true for you, you can call this function with "
                      "\"check_undefined_grad=False\" to disable the feature")

    def check(outputs):
        zeros = [_fn("zeros_like")(o) for o in outputs]
        try:
            grads = autograd_grad(outputs, diff, zeros, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                "\"Notes about undefined output gradients\" in "
                "\"tools/autograd/derivatives.yaml\"") from e
        for g in grads:
            if g is not None and bool((g != 0).any()):
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    "undefined or zero. Please look at \"Notes about undefined output "
                    "gradients\" in \"tools/autograd/derivatives.yaml\"")

    outputs = _differentiable_outputs(func(*inputs))
    undefined = _C._functions.UndefinedGrad()
    check([undefined(o) for o in outputs])
    for k in range(len(outputs) if len(outputs) > 1 else 0):
        fresh = _differentiable_outputs(func(*inputs))
        check([undefined(o) if i == k else o for i, o in enumerate(fresh)])


def _check_no_differentiable_outputs(func, inputs, func_out, eps):
    out_idx = _float_output_indices(func_out)
    outs = _as_tuple(func_out)
    for jac in _numerical_jacobian(func, inputs, out_idx, [outs[k].numel() for k in out_idx],
                                   eps):
        for j in jac:
            if np.count_nonzero(j):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: Optional[bool] = None) -> bool:
    r"""Check gradients computed via small finite differences against analytical
    gradients wrt tensors in :attr:`inputs` that are of floating point type and
    with ``requires_grad=True``.

    The check between numerical and analytical gradients uses :func:`~numpy.allclose`.
    Returns True if all differences satisfy the allclose condition; otherwise raises
    :class:`GradcheckError` (or returns False when ``raise_exception=False``).
    """
    assert check_forward_ad or check_backward_ad, \
        "Expected at least one of check_forward_ad or check_backward_ad to be True"
    assert not (check_batched_grad and not check_backward_ad), \
        "Setting check_batched_grad=True requires check_backward_ad to be True"
    assert not (check_batched_forward_grad and not check_forward_ad), \
        "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
    try:
        if check_backward_ad:
            _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                              check_grad_dtypes, fast_mode, check_batched_grad)
        if check_forward_ad:
            _forward_ad_check(func, inputs, eps, atol, rtol)
        if check_batched_forward_grad:
            batched_forward_grad_check(func, _as_tuple(inputs))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, fast_mode, check_batched_grad):
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = func(*tupled)
    outputs = _differentiable_outputs(func_out)
    if not outputs:
        _check_no_differentiable_outputs(func, tupled, func_out, eps)
        return
    check = _fast_gradcheck if fast_mode else _slow_gradcheck
    complex_out = [i for i, o in enumerate(outputs) if o.dtype.is_complex]
    if any(_is_tensor(o) and o.dtype.is_complex for o in _as_tuple(func_out)):
        real_fn, imag_fn = _real_and_imag_output(func)
        for part, fn in (("imaginary", imag_fn), ("real", real_fn)):
            out = fn(*tupled)
            check(fn, tupled, out, _differentiable_outputs(out), eps, atol, rtol, nondet_tol,
                  check_grad_dtypes, complex_out, part)
    else:
        check(func, tupled, func_out, outputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)
    if check_batched_grad:
        for i, o in enumerate(outputs):
            batched_grad_check(tupled, o, i)
    if check_undefined_grad:
        _check_undefined_grad_support(func, tupled)


def _random_grad_output(o):
    """Uniform in [-1, 1) (both parts for a complex o), o's shape and dtype."""
    def uniform(dtype):
        return _fn("rand")(tuple(o.shape), dtype=dtype) * 2 - 1
    if o.dtype.is_complex:
        part = _C.float64 if o.dtype == _C.complex128 else _C.float32
        return _fn("complex")(uniform(part), uniform(part))
    return uniform(o.dtype if o.dtype.is_floating_point else _C.float64)


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    r"""Check gradients of gradients computed via small finite differences
    against analytical gradients wrt tensors in :attr:`inputs` and
    :attr:`grad_outputs` that are of floating point type and with
    ``requires_grad=True``.

    When :attr:`grad_outputs` is None, random ones of the outputs' shapes are used.
    """
    from . import grad as autograd_grad
    assert check_fwd_over_rev or check_rev_over_rev, \
        "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
    assert not (check_undefined_grad and not check_rev_over_rev), \
        "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
    assert not (check_batched_grad and not check_rev_over_rev), \
        "Setting check_batched_grad=True requires check_rev_over_rev to be True"
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled))
        grads = []
        for o in outputs:
            g = _random_grad_output(o)
            if gen_non_contig_grad_outputs and o.dim() > 0:
                g = _fn("stack")([g, _fn("zeros_like")(g)], -1)[..., 0]
            grads.append(g.requires_grad_())
        tupled_grads = tuple(grads)
    else:
        tupled_grads = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grads)
    diff_in = {i for i, x in enumerate(tupled) if _is_tensor(x) and x.requires_grad}
    diff_gout = {i for i, x in enumerate(tupled_grads) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_in else x
                           for i, x in enumerate(args[:-num_outputs]))
        outs = _differentiable_outputs(func(*input_args))
        gouts = tuple(x.requires_grad_() if i in diff_gout else x
                      for i, x in enumerate(args[-num_outputs:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        grad_inputs = autograd_grad(outs, diff_args, gouts, create_graph=True,
                                    allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled + tupled_grads, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
