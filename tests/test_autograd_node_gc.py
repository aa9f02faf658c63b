"""grad_fn objects take part in garbage collection: a cycle through a node's
hooks (a hook whose closure holds the grad_fn) is collected once the graph
no longer needs the node, and never while it does; as torch's."""
import gc
import weakref

import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


class Sentinel:
    pass


def make_cycle(lib, custom, tensor_hook, calls):
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = lib.tensor(1.0, requires_grad=True)
    b = Same.apply(a) if custom else a.clone()
    grad_fn = b.grad_fn
    obj = Sentinel()

    def hook(*args):
        grad_fn, obj  # the closure holds both
        calls.append(1)

    if tensor_hook:
        b.register_hook(hook)
    else:
        b.grad_fn.register_hook(hook)
    return b.clone(), weakref.ref(obj)


@pytest.mark.parametrize("custom", [True, False])
@pytest.mark.parametrize("tensor_hook", [True, False])
def test_hook_grad_fn_cycle_is_collected_after_the_graph(custom, tensor_hook):
    for lib in libs():
        calls = []
        gc.disable()
        try:
            out, ref = make_cycle(lib, custom, tensor_hook, calls)
            out.backward(retain_graph=True)
            gc.collect()
            # the graph still holds the node: its hook survives and fires
            out.backward(retain_graph=True)
            assert len(calls) == 2
            assert ref() is not None
            del out
            assert ref() is not None  # a cycle: only the collector frees it
            gc.collect()
            assert ref() is None, lib.__name__
        finally:
            gc.enable()


def test_metadata_cycle_is_collected():
    # (torch keeps this one alive: its node metadata is not traversed)
    a = mt.ones(2, requires_grad=True)
    fn = (a * 2).grad_fn
    obj = Sentinel()
    obj.fn = fn
    fn.metadata["keep"] = obj
    ref = weakref.ref(obj)
    del fn, obj
    gc.collect()
    assert ref() is None
