"""minitorch.autograd.functional: Jacobians and friends of a Python function.

Every entry runs ``func`` on differentiable aliases of its inputs and asks the
C graph for gradients (``autograd.grad``), as torch.autograd.functional does:
``vjp`` and ``vhp`` directly, ``jvp`` and ``hvp`` with the double-backward
trick (the gradient is linear in its cotangent, so differentiating it
against a dummy cotangent gives the forward product), ``jacobian`` one
backward per output element, ``hessian`` the jacobian of the jacobian.
Results keep their graph only with ``create_graph=True``; a tensor argument
gives tensors back, a tuple gives tuples.
"""
from .. import _C
from . import grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_F = _C._functions


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _as_tuple(x, arg_name, fn_name):
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, _tensor_cls()):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _untuple(res, is_tuple):
    """res (a tuple, or a tuple of tuples with two flags) as the caller gave."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def _prepare(inputs, create_graph, need_graph):
    """Aliases of inputs that require grad; they keep the inputs' history
    only when the caller asks for a graph of the result."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad
                 else x.detach().requires_grad_(need_graph) for x in inputs)


def _finish(res, create_graph):
    if isinstance(res, tuple):
        return tuple(_finish(r, create_graph) for r in res)
    return res if create_graph or res is None else res.detach()


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if tuple(a.shape) != tuple(b.shape):
            where = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when running "
               "in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}
_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(_NONE["back"].format(i=i))
        if not t.requires_grad:
            raise RuntimeError(_STRICT[kind].format(i=i))


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None where unused."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_NONE[stage].format(i=i))
            g = _F["zeros_like"](refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _run(func, inputs, fn_name):
    outputs = func(*inputs)
    return _as_tuple(outputs, "outputs of the user-provided function", fn_name)


_V_INPUT = "the input to the user-provided function is a single Tensor with a single element."


def _v_for(v, refs, is_tuple, fn_name, create_graph, when=_V_INPUT):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _prepare(v, create_graph, need_graph=False)
        _validate_v(v, refs, is_tuple)
        return v
    if len(refs) != 1 or refs[0].numel() != 1:
        raise RuntimeError(f"The vector v can only be None if {when}")
    return None


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Compute the dot product between a vector ``v`` and the Jacobian of the
    given function at the point given by the inputs."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_out_tuple, outputs = _run(func, inputs, "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _v_for(v, outputs, is_out_tuple, "vjp", create_graph,
                   "the user-provided function returns a single Tensor with a single element.")
        res = _grads(outputs, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "back")
    return (_untuple(_finish(outputs, create_graph), is_out_tuple),
            _untuple(_finish(res, create_graph), is_in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Compute the dot product between the Jacobian of the given function at
    the point given by the inputs and a vector ``v``."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_for(v, inputs, is_in_tuple, "jvp", create_graph)
        is_out_tuple, outputs = _run(func, inputs, "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        dummies = tuple(_F["zeros_like"](o).requires_grad_(True) for o in outputs)
        grad_in = _grads(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_in, "grad_inputs", strict)
        if v is None:
            v = (_F["ones_like"](inputs[0]),)
        res = _grads(grad_in, dummies, v, create_graph=create_graph)
        res = _zeros_for_none(res, outputs, strict, create_graph, "back_trick")
    return (_untuple(_finish(outputs, create_graph), is_out_tuple),
            _untuple(_finish(res, create_graph), is_out_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """Compute the Jacobian of a given function."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      "and `strategy=\"forward-mode\"` are not supported "
                                      "together (yet). Please either set `create_graph=False` "
                                      "or `strategy=\"reverse-mode\"`.")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_out_tuple, outputs = _run(func, inputs, "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.numel()):
                g = _grads((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (gk, inp) in enumerate(zip(g, inputs)):
                    if gk is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed "
                                               "in strict mode.")
                        gk = _F["zeros_like"](inp)
                    elif strict and create_graph and not gk.requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is not "
                                           f"differentiable with respect to input {k}. This is "
                                           "not allowed in strict mode when create_graph=True.")
                    rows[k].append(gk)
            jac.append(tuple(
                (_F["stack"](r) if r else _F["zeros"]((0,) + tuple(inp.shape), dtype=inp.dtype))
                .reshape(tuple(out.shape) + tuple(inp.shape)) for r, inp in zip(rows, inputs)))
        jac = _finish(tuple(jac), create_graph)
    return _untuple(jac, (is_out_tuple, is_in_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Compute the Hessian of a given scalar function."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_func(*inp):
        out = func(*inp)
        is_out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _untuple(res, (is_in_tuple, is_in_tuple))


def _scalar_output(func, inputs, fn_name, strict):
    is_out_tuple, outputs = _run(func, inputs, fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_out_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Compute the dot product between vector ``v`` and Hessian of a given
    scalar function at a specified point."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_for(v, inputs, is_in_tuple, "vhp", create_graph)
        outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _grads(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        res = _grads(jac, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return (_finish(outputs, create_graph)[0],
            _untuple(_finish(res, create_graph), is_in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Compute the dot product between the scalar function's Hessian and a
    vector ``v`` at a specified point."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_for(v, inputs, is_in_tuple, "hvp", create_graph)
        outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _grads(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        dummies = tuple(_F["zeros_like"](x).requires_grad_(True) for x in inputs)
        back = _grads(jac, inputs, dummies, create_graph=True)
        if v is None:
            v = (_F["ones_like"](inputs[0]),)
        res = _grads(back, dummies, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back_trick")
    return (_finish(outputs, create_graph)[0],
            _untuple(_finish(res, create_graph), is_in_tuple))
