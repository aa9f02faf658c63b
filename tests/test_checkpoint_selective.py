"""Selective activation checkpointing, checkpoint's context_fn and
GraphExecGroup (torch.utils.checkpoint), against torch's behaviour."""
import contextlib
import functools
import gc
import weakref

import numpy as np
import pytest

import minitorch
from minitorch.utils.checkpoint import (
    CheckpointError, CheckpointPolicy, GraphExecGroup, checkpoint,
    create_selective_checkpoint_contexts)
from minitorch.utils._python_dispatch import TorchDispatchMode
from dispatch_log import log_mode

torch = pytest.importorskip("torch")
import torch.utils.checkpoint as tcp  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode  # noqa: E402

LIBS = {"minitorch": (minitorch, checkpoint, create_selective_checkpoint_contexts,
                      CheckpointPolicy, TorchDispatchMode),
        "torch": (torch, tcp.checkpoint, tcp.create_selective_checkpoint_contexts,
                  tcp.CheckpointPolicy, TorchMode)}


def _inputs(t):
    x = (t.arange(12.0).reshape(3, 4) / 10).requires_grad_()
    y = (t.arange(8.0).reshape(4, 2) / 5 - 0.3).requires_grad_()
    return x, y


def _fn(t):
    def fn(x, y):
        return t.mm(x.cos(), y).sin().sum()
    return fn


POLICIES = ["list", "enum", "bool", "none"]


def _context_fn(lib, kind):
    t, _, create, Policy, _ = LIBS[lib]
    if kind == "list":
        return functools.partial(create, [t.ops.aten.mm.default])
    if kind == "enum":
        def policy(ctx, op, *args, **kwargs):
            assert ctx.is_recompute is False
            return Policy.MUST_SAVE if op == t.ops.aten.mm.default else Policy.PREFER_RECOMPUTE
        return functools.partial(create, policy)
    if kind == "bool":
        return functools.partial(create, lambda ctx, op, *a, **k: op == t.ops.aten.mm.default)
    return None


@pytest.mark.parametrize("kind", POLICIES)
def test_backward_reruns_only_what_is_not_saved(kind):
    """A counting mode under the recomputation's sees the ops the backward
    runs: the saved mm is not run again, as in torch."""
    counts, grads = {}, {}
    for lib in LIBS:
        t, cp, _, _, base = LIBS[lib]
        x, y = _inputs(t)
        out = cp(_fn(t), x, y, use_reentrant=False, context_fn=_context_fn(lib, kind)) \
            if kind != "none" else cp(_fn(t), x, y, use_reentrant=False)
        with log_mode(base)() as seen:
            out.backward()
        # (the last op, sin, runs in minitorch's re-run before early stop ends it:
        # torch packs an op's inputs before its kernel, minitorch after)
        counts[lib] = (seen.ops.count("mm.default"), seen.ops.count("cos.default"))
        grads[lib] = (x.grad.tolist(), y.grad.tolist())
    assert counts["minitorch"] == counts["torch"]
    assert counts["minitorch"][0] == (3 if kind == "none" else 2)
    for ours, theirs in zip(grads["minitorch"], grads["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7)


def test_policy_sees_each_forward_op_with_its_output():
    calls = []

    def policy(ctx, op, *args, **kwargs):
        calls.append((op.__name__, tuple(ctx.op_output.shape)))
        return CheckpointPolicy.PREFER_RECOMPUTE

    x, y = _inputs(minitorch)
    out = checkpoint(_fn(minitorch), x, y, use_reentrant=False,
                     context_fn=functools.partial(create_selective_checkpoint_contexts, policy))
    assert calls == [("cos.default", (3, 4)), ("mm.default", (3, 2)), ("sin.default", (3, 2)),
                     ("sum.default", ())]
    out.backward()
    assert len(calls) == 4  # only the forward asks


def test_multiple_outputs_are_kept_together():
    for lib in LIBS:
        t, cp, create, Policy, _ = LIBS[lib]
        counter = [0]

        def policy(ctx, op, *args, **kwargs):
            if op == t.ops.aten.var_mean.correction:
                counter[0] += 1
                return Policy.MUST_SAVE
            return Policy.PREFER_RECOMPUTE

        def fn(x):
            a, b = t.var_mean(x)
            return a * b

        x = t.tensor([0.5, 1.5, -2.0, 3.0], requires_grad=True)
        out = cp(fn, x, use_reentrant=False, context_fn=functools.partial(create, policy))
        (g,) = t.autograd.grad(out.sum(), (x,))
        (ref,) = t.autograd.grad(fn(x).sum(), (x,))
        assert g.tolist() == pytest.approx(ref.tolist())
        assert counter[0] == 1, lib


@pytest.mark.parametrize("lib", list(LIBS))
def test_bad_inputs(lib):
    t, _, create, _, _ = LIBS[lib]
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload"):
        create([2])
    with pytest.raises(ValueError, match="update the OpOverloadPacket to a specific OpOverload"):
        create([t.ops.aten.sin])
    with pytest.raises(TypeError, match="either a function or a list of ops."):
        create(2)


@pytest.mark.parametrize("lib", list(LIBS))
@pytest.mark.parametrize("allow", [False, True])
def test_kept_tensor_written_in_place(lib, allow):
    t, cp, create, Policy, _ = LIBS[lib]

    def policy(ctx, op, *args, **kwargs):
        return Policy.MUST_SAVE if op == t.ops.aten.sin.default else Policy.PREFER_RECOMPUTE

    x = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
    out = cp(lambda x: x.sin().mul_(2).cos().exp(), x, use_reentrant=False,
             context_fn=functools.partial(create, policy, allow_cache_entry_mutation=allow))
    if allow:
        out.sum().backward()
        assert x.grad is not None
    else:
        with pytest.raises(RuntimeError, match="has been mutated"):
            out.sum().backward()


@pytest.mark.parametrize("lib", list(LIBS))
def test_recompute_once_only(lib):
    t, cp, create, Policy, _ = LIBS[lib]

    def policy(ctx, op, *args, **kwargs):
        return Policy.MUST_SAVE if op == t.ops.aten.sin.default else Policy.PREFER_RECOMPUTE

    x = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
    out = cp(lambda x: x.sin().cos().exp(), x, use_reentrant=False,
             context_fn=functools.partial(create, policy))
    out.sum().backward(retain_graph=True)
    first = x.grad.tolist()
    with pytest.raises(RuntimeError, match="Trying to backward an extra time"):
        out.sum().backward(retain_graph=True)
    ref = t.tensor([0.1, 0.2, 0.3], requires_grad=True)
    ref.sin().cos().exp().sum().backward()
    assert first == pytest.approx(ref.grad.tolist())


def test_kept_outputs_are_detached_and_freed():
    from minitorch.utils._python_dispatch import _get_current_dispatch_mode
    from minitorch.utils.checkpoint import _CachingTorchDispatchMode
    ref = None

    def fn(x):
        nonlocal ref
        out = x.cos().exp()
        mode = _get_current_dispatch_mode()
        if isinstance(mode, _CachingTorchDispatchMode):
            kept = mode.storage[minitorch.ops.aten.exp.default][0].val
            assert not kept.requires_grad
            ref = weakref.ref(kept)
        return out.sin()

    context_fn = functools.partial(create_selective_checkpoint_contexts,
                                   lambda ctx, op, *a, **k: CheckpointPolicy.MUST_SAVE)
    gc.disable()
    try:
        x = minitorch.tensor([0.1, 0.2, 0.3], requires_grad=True)
        out = checkpoint(fn, x, use_reentrant=False, context_fn=context_fn)
        assert ref() is not None
        del out  # the graph holds the storage: it goes with it
        assert ref() is None
        out = checkpoint(fn, x, use_reentrant=False, context_fn=context_fn)
        assert ref() is not None
        out.sum().backward(retain_graph=True)  # handed out, then dropped
        assert ref() is None
    finally:
        gc.enable()


@pytest.mark.parametrize("lib", list(LIBS))
def test_context_fn_contexts_wrap_forward_and_recompute(lib):
    t, cp, _, _, base = LIBS[lib]
    mode = log_mode(base)()
    x = t.tensor(1.0, requires_grad=True)
    cp(lambda x: x.exp(), x, use_reentrant=False,
       context_fn=lambda: (mode, contextlib.nullcontext()))
    assert mode.ops == ["exp.default"]
    mode.ops = []
    out = cp(lambda x: x.exp(), x, use_reentrant=False,
             context_fn=lambda: (contextlib.nullcontext(), mode))
    assert mode.ops == []
    out.backward()
    assert mode.ops == ["exp.default", "detach.default"]
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        cp(lambda x: x.sin(), x, use_reentrant=True,
           context_fn=lambda: (mode, contextlib.nullcontext()))


# early_stop=True is left out: torch packs an op's inputs before its kernel,
# so its re-run stops before the last sin runs; minitorch packs after
@pytest.mark.parametrize("early_stop", [False])
def test_mode_around_checkpoint_sees_recompute_per_early_stop(early_stop):
    for lib in LIBS:
        t, cp, _, _, base = LIBS[lib]
        stop = minitorch.utils.checkpoint.set_checkpoint_early_stop if lib == "minitorch" \
            else tcp.set_checkpoint_early_stop
        calls = [0]

        def fn(x):
            calls[0] += 1
            return x.sin()

        x = t.tensor(1.0, requires_grad=True)
        with log_mode(base)() as seen:
            with stop(early_stop):
                out = cp(fn, x, use_reentrant=False)
            out.backward()
        assert calls[0] == 2
        assert seen.ops.count("sin.default") == (1 if early_stop else 2), lib


def _group_counts(lib, use_group):
    t, cp, _, _, _ = LIBS[lib]
    Group = GraphExecGroup if lib == "minitorch" else tcp.GraphExecGroup
    counter = [0]

    def fn(x):
        counter[0] += 1
        y = x.sin().cos()
        return y, y.sin().cos()

    x = t.arange(9.0).reshape(3, 3).requires_grad_()
    y, z = cp(fn, x, use_reentrant=False)
    with Group() if use_group else contextlib.nullcontext():
        (gy,) = t.autograd.grad(z, inputs=(y,), grad_outputs=(t.ones(3, 3),))
        (gx,) = t.autograd.grad(y, inputs=(x,), grad_outputs=(gy,))
    return counter[0], gx.tolist()


@pytest.mark.parametrize("use_group", [True, False])
def test_graph_exec_group_shares_one_recompute(use_group):
    ours, theirs = _group_counts("minitorch", use_group), _group_counts("torch", use_group)
    assert ours[0] == theirs[0] == (2 if use_group else 3)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-7)


def test_graph_exec_group_overlap_and_nesting():
    x = minitorch.arange(4.0).requires_grad_()
    out = checkpoint(lambda x: x.sin().cos(), x, use_reentrant=False)
    with GraphExecGroup() as group:
        with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            with GraphExecGroup():
                pass
        assert GraphExecGroup._get_current_group() is group
        out.sum().backward(retain_graph=True)
        with pytest.raises(CheckpointError, match="Performing two backward calls that overlap"):
            out.sum().backward()
    assert GraphExecGroup._get_current_group() is None
    # outside a group a retained graph recomputes for each backward
    out.sum().backward()


@pytest.mark.parametrize("lib", list(LIBS))
def test_recompute_hands_back_arguments_that_need_no_grad_as_themselves(lib):
    t, cp, _, _, base = LIBS[lib]
    seen = []

    class Keep(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.saved_tensors[0])
            return g * 2, None

    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0, 4.0])
    cp(Keep.apply, a, b, use_reentrant=False).sum().backward()
    assert seen[0] is b
    assert a.grad.tolist() == [2.0, 2.0]
