"""float64 derivatives of an OpInfo on both libraries: reverse mode (the
gradient of the sum of the outputs times a fixed random cotangent, w.r.t.
every input that requires grad) and forward mode (the outputs' tangents
for fixed random input tangents); reverse mode at complex128 too, where a
complex output's cotangent is complex and the gradients are torch's
conjugate Wirtinger derivatives of the real loss Re(sum(conj(cot) * out))."""
import torch
import torch.autograd.forward_ad as fwAD

import minitorch as mt

from .convert import assert_same, dtype_name, to_mt
from .op_samples import (Tally, assert_meta, call_torch, is_random, process_fn, samples, tensors,
                         tolerance)

RTOL, ATOL = tolerance(torch.float64)


def _same(random, got, want, path):
    """Values as torch's; for a random op only the layout (its derivative
    depends on the random draw)."""
    if random:
        assert_meta(got, want, path)
    else:
        assert_same(got, want, RTOL, ATOL, path)


def _grad_inputs(obj):
    """The tensors of obj that require grad, or None when one appears twice
    (the copy to minitorch would split its gradient in two)."""
    found = [t for t in tensors(obj) if t.requires_grad]
    return found if len({id(t) for t in found}) == len(found) else None


def _substitute(obj, new):
    """obj with each tensor whose id is a key of new replaced by its value."""
    if id(obj) in new:
        return new[id(obj)]
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(_substitute(v, new) for v in obj)
    if isinstance(obj, dict):
        return {k: _substitute(v, new) for k, v in obj.items()}
    return obj


def _or_zeros(g, like, zeros_like):
    return zeros_like(like) if g is None else g


def _gradient_cases(mapped, dtype=torch.float64):
    gen = torch.Generator().manual_seed(0)
    for i, sample in enumerate(samples(mapped.op, dtype, requires_grad=True)):
        inputs = _grad_inputs((sample.input, sample.args, sample.kwargs))
        if inputs:
            yield i, sample, inputs, gen


def check_complex_gradients(mapped):
    return check_gradients(mapped, torch.complex128)


def check_gradients(mapped, dtype=torch.float64):
    op = mapped.op
    tally = Tally()
    for i, sample, t_inputs, gen in _gradient_cases(mapped, dtype):
        try:
            t_outs = tensors(sample.output_process_fn_grad(call_torch(op.op, sample)))
            chosen = [k for k, o in enumerate(t_outs) if o.requires_grad]
            if not chosen:
                continue
            cots = [torch.randn(t_outs[k].shape, generator=gen, dtype=t_outs[k].dtype)
                    for k in chosen]
            want = torch.autograd.grad([t_outs[k] for k in chosen], t_inputs, cots,
                                       allow_unused=True)
        except Exception:  # noqa: BLE001 - torch refuses: not a conformance case
            continue

        def check(sample=sample, t_inputs=t_inputs, t_outs=t_outs, chosen=chosen, cots=cots,
                  want=want):
            args = to_mt((sample.input, sample.args, sample.kwargs))
            m_inputs = [t for t in tensors(args) if t.requires_grad]
            m_outs = tensors(process_fn(sample)(mapped.function(args[0], *args[1], **args[2])))
            assert len(m_outs) == len(t_outs), f"{len(m_outs)} outputs, expected {len(t_outs)}"
            outs = [m_outs[k] for k in chosen]
            for k, o in zip(chosen, outs):
                assert o.requires_grad, f"output {k} does not require grad"
            got = mt.autograd.grad(outs, m_inputs, [to_mt(c) for c in cots], allow_unused=True)
            for j, (g, w) in enumerate(zip(got, want)):
                _same(is_random(op), _or_zeros(g, m_inputs[j], mt.zeros_like),
                      _or_zeros(w, t_inputs[j], torch.zeros_like), f"grad of input {j}")
        tally.record(f"{dtype_name(dtype)} sample {i}", check)
    return tally


def check_forward_ad(mapped):
    op = mapped.op
    tally = Tally()
    for i, sample, t_inputs, gen in _gradient_cases(mapped):
        tangents = [torch.randn(t.shape, generator=gen, dtype=t.dtype) for t in t_inputs]
        try:
            with fwAD.dual_level():
                duals = {id(t): fwAD.make_dual(t.detach(), d) for t, d in zip(t_inputs, tangents)}
                s = _substitute((sample.input, sample.args, sample.kwargs), duals)
                outs = tensors(sample.output_process_fn_grad(
                    op.op(s[0], *s[1], **s[2])))
                want = [fwAD.unpack_dual(o).tangent if o.is_floating_point() else None
                        for o in outs]
        except Exception:  # noqa: BLE001 - torch refuses: not a conformance case
            continue
        if all(w is None for w in want):
            continue

        def check(sample=sample, tangents=tangents, outs=outs, want=want):
            args = to_mt((sample.input, sample.args, sample.kwargs))
            m_inputs = [t for t in tensors(args) if t.requires_grad]
            mfw = mt.autograd.forward_ad
            with mfw.dual_level():
                duals = {id(t): mfw.make_dual(t.detach(), to_mt(d))
                         for t, d in zip(m_inputs, tangents)}
                s = _substitute(args, duals)
                m_outs = tensors(process_fn(sample)(mapped.function(s[0], *s[1], **s[2])))
                assert len(m_outs) == len(outs), f"{len(m_outs)} outputs, expected {len(outs)}"
                for k, (m, o, w) in enumerate(zip(m_outs, outs, want)):
                    if w is None and not o.is_floating_point():
                        continue
                    g = mfw.unpack_dual(m).tangent
                    _same(is_random(op), _or_zeros(g, m, mt.zeros_like),
                          _or_zeros(w, o, torch.zeros_like), f"tangent of output {k}")
        tally.record(f"float64 sample {i}", check)
    return tally
