"""Tensors take part in cyclic garbage collection as torch's do: a cycle
through a tensor's autograd side (its grad_fn's custom Function ctx, its
hooks) is collected, and a collection never frees what a graph still
needs."""
import gc
import weakref

import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


def stores_on_ctx(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, metadata):
            x = x.clone()
            ctx.meta = metadata
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x, None

    return MyFn


def collected(make):
    """make() returns a weak reference to something in a cycle."""
    gc.disable()
    try:
        ref = make()
        alive_before = ref() is not None
    finally:
        gc.enable()
    gc.collect()
    return alive_before, ref() is None


@pytest.mark.parametrize("with_backward", [False, True])
def test_output_kept_on_its_ctx_is_collected(with_backward):
    for lib in libs():
        fn = stores_on_ctx(lib)
        grads = []

        def make():
            a = lib.tensor(3.14, requires_grad=True)
            metadata = {}
            out = fn.apply(a, metadata)
            metadata["foo"] = out  # out -> grad_fn -> ctx -> metadata -> out
            if with_backward:
                out.sum().backward()
                grads.append(a.grad.item())
            return weakref.ref(out)

        assert collected(make) == (True, True), lib.__name__
        if with_backward:
            assert grads == [pytest.approx(3.14)]


def test_ctx_attribute_holding_output_is_collected():
    for lib in libs():

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.out = out
                return out

            @staticmethod
            def backward(ctx, g):
                return g * 2

        def make():
            out = Keep.apply(lib.ones(3, requires_grad=True))
            return weakref.ref(out)

        assert collected(make) == (True, True), lib.__name__


def test_tensor_hook_holding_its_tensor_is_collected():
    # (torch keeps this one alive: a non-leaf's hooks on its grad_fn are not
    # traversed)
    def make():
        t = mt.ones(2, requires_grad=True) * 2
        t.register_hook(lambda g: g if t is not None else None)
        return weakref.ref(t)

    assert collected(make) == (True, True)


def test_leaf_hook_holding_its_tensor_is_collected():
    for lib in libs():

        def make():
            a = lib.ones(2, requires_grad=True)
            a.register_hook(lambda g: g if a is not None else None)
            return weakref.ref(a)

        assert collected(make) == (True, True), lib.__name__


def test_grad_attribute_cycle_is_collected():
    # torch does not traverse .grad; minitorch's strong .grad is traversed
    def make():
        a = mt.ones(2, requires_grad=True)
        (a * 3).sum().backward()
        a.grad.owner = a
        return weakref.ref(a)

    assert collected(make) == (True, True)


def test_collection_keeps_what_the_graph_needs():
    results = []
    for lib in libs():
        fn = stores_on_ctx(lib)
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        metadata = {}
        out = fn.apply(a, metadata)
        metadata["foo"] = out
        later = (out * out).sum()  # its node holds out's grad_fn
        ref = weakref.ref(out)
        del out, metadata
        gc.collect()
        later.backward()
        results.append((ref() is None, a.grad.tolist()))
    assert results[0] == results[1]
    assert results[0][1] == [2.0, 8.0, 18.0]  # 2 * out * x


def test_collection_inside_backward_keeps_the_graph():
    results = []
    for lib in libs():
        fn = stores_on_ctx(lib)
        a = lib.tensor([1.0, -2.0], requires_grad=True)
        metadata = {}
        out = fn.apply(a * 2, metadata)
        metadata["foo"] = out
        out.register_hook(lambda g: (gc.collect(), g * 3)[1])
        loss = (out.exp() * out).sum()
        del out, metadata
        loss.backward()
        gc.collect()
        results.append([round(v, 4) for v in a.grad.tolist()])
    assert results[0] == results[1]


@pytest.mark.parametrize("make_alias", ["as_subclass", "_make_subclass"])
def test_subclass_alias_of_a_tensor_in_a_cycle(make_alias):
    # _make_subclass shares the autograd side (not traversed while shared);
    # as_subclass's AliasBackward0 holds the node: both keep the cycle alive
    # until the alias goes
    class Sub(mt.Tensor):
        pass

    fn = stores_on_ctx(mt)
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    metadata = {}
    out = fn.apply(a, metadata)
    if make_alias == "as_subclass":
        alias = out.as_subclass(Sub)
    else:
        alias = mt.Tensor._make_subclass(Sub, out, True)
    metadata["foo"] = out
    ref = weakref.ref(out)
    del out, metadata
    gc.collect()
    assert ref() is not None
    if make_alias == "as_subclass":
        alias.sum().backward()
        assert a.grad.tolist() == [1.0, 2.0]
    del alias
    gc.collect()
    assert ref() is None


def test_cleared_tensor_in_garbage_with_finalizer_stays_usable():
    # a finalizer in the cycle sees the tensor before it is cleared
    seen = []

    class Watch:
        def __del__(self):
            seen.append((self.t.requires_grad, self.t.tolist()))

    fn = stores_on_ctx(mt)

    def make():
        out = fn.apply(mt.tensor([5.0], requires_grad=True), {})
        w = Watch()
        w.t = out
        out.grad_fn.meta["w"] = w
        return weakref.ref(out)

    assert collected(make) == (True, True)
    assert seen == [(True, [5.0])]


def test_grad_fn_of_a_custom_function_is_its_ctx():
    for lib in libs():
        seen = {}

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen["ctx"] = ctx
                seen["before"] = ctx.name()
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a = lib.ones(2, requires_grad=True)
        out = Twice.apply(a)
        fn = out.grad_fn
        assert fn is seen["ctx"], lib.__name__
        assert type(fn) is Twice._backward_cls
        assert seen["before"] == "TwiceBackward"
        assert fn.name() == "TwiceBackward"
        assert type(fn.next_functions[0][0]).__name__ == "AccumulateGrad"
        # the grad_fn object keeps its node alive past its output
        del out
        gc.collect()
        assert type(fn.next_functions[0][0]).__name__ == "AccumulateGrad"
        assert Twice.apply(a).grad_fn.next_functions[0][0] is not None


def test_cycle_through_a_handed_out_ctx_is_collected():
    for lib in libs():
        fn = stores_on_ctx(lib)

        def make():
            metadata = {}
            out = fn.apply(lib.ones(2, requires_grad=True), metadata)
            metadata["foo"] = out
            out.grad_fn.name()  # the ctx, handed out, now holds the node
            return weakref.ref(out)

        assert collected(make) == (True, True), lib.__name__


def test_handed_out_ctx_alone_frees_its_node_on_collection():
    fn = stores_on_ctx(mt)
    a = mt.ones(2, requires_grad=True)
    ctx = fn.apply(a, {}).grad_fn
    ref = weakref.ref(ctx)
    assert ctx.next_functions[0][0].variable is a
    del ctx
    gc.collect()
    assert ref() is None


def test_node_metadata_freed_with_the_output_without_collection():
    # torch's test_nested_anomaly_printstack_cleanup: once no Python code
    # holds the ctx, the output is all that holds the node, so what its
    # metadata holds goes with the output, no collection needed
    class Foo:
        pass

    for lib in libs():
        fn = stores_on_ctx(lib)
        alive = []
        gc.disable()
        try:
            for hold_ctx in (False, True):
                out = fn.apply(lib.ones(2, requires_grad=True), {})
                ctx = out.grad_fn
                obj = Foo()
                ctx.metadata[0] = obj
                ref = weakref.ref(obj)
                del obj
                if not hold_ctx:
                    del ctx
                del out
                alive.append(ref() is not None)
                if hold_ctx:
                    # the ctx, held, keeps its node (and the metadata)
                    assert type(ctx.next_functions[0][0]).__name__ == "AccumulateGrad"
                    del ctx
                    gc.collect()
                    alive.append(ref() is not None)
        finally:
            gc.enable()
        assert alive == [False, True, False], lib.__name__
