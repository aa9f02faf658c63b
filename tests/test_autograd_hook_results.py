"""Values coming back from hooks and custom Function backwards are checked
before the engine uses them (csrc/autograd/validate.c), with torch's errors:
tensor hooks, grad_fn hooks and prehooks, post-accumulate-grad hooks. Also
the order and counts in which tensor, retain_grad and node hooks run."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _outcome(lib, build):
    """('ok', leaf grads as lists) or (exception type name, message) of build(lib)."""
    try:
        leaves = build(lib)
    except Exception as e:  # noqa: BLE001 - compared with torch's
        msg = str(e)
        return type(e).__name__, msg if lib is mt else msg.replace("torch.", "minitorch.")
    return "ok", [None if x.grad is None else (x.grad.tolist(), str(x.grad.dtype).split(".")[1])
                  for x in leaves]


def _same(build):
    ours, theirs = _outcome(mt, build), _outcome(torch, build)
    assert ours == theirs
    return ours


def hook(g):  # a named hook: torch's messages name it
    return g


SHAPES = [(3,), (2, 3), (2, 1, 4), ()]


def _leaf(lib, shape, dtype="float32"):
    return lib.arange(1.0, 1.0 + max(1, int(lib.tensor(shape).prod())),
                      dtype=getattr(lib, dtype)).reshape(shape).requires_grad_()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("where", ["leaf", "non-leaf"])
@pytest.mark.parametrize("returns", ["larger", "flat", "fewer dims", "float64", "int64", "float32"])
def test_tensor_hook_value_checked(shape, where, returns):
    def build(lib):
        x = _leaf(lib, shape)
        y = x * x if where == "non-leaf" else x

        def named(g):
            if returns == "larger":
                return lib.ones(tuple(g.shape) + (2,))
            if returns == "flat":
                return lib.ones(g.numel() + 1)
            if returns == "fewer dims":
                return lib.ones(g.shape[1:]) if g.dim() else lib.ones(1)
            return (g * 3).to(getattr(lib, returns))
        y.register_hook(named)
        (y * 2).sum().backward()
        return [x]

    out = _same(build)
    if returns == "float32":
        assert out[0] == "ok"
    else:
        assert out[0] == "RuntimeError"
        assert out[1].startswith("hook 'named' has changed the ")


@pytest.mark.parametrize("value", [1, 2.5, "g", [1.0], None])
def test_tensor_hook_non_tensor(value):
    def build(lib):
        x = _leaf(lib, (2, 2))
        x.register_hook(lambda g: value)
        x.sum().backward()
        return [x]

    out = _same(build)
    assert out[0] == ("ok" if value is None else "TypeError")


def test_gather_and_index_select_hooks_cannot_reach_the_kernel():
    # the reports: gather's backward read stray memory, index_select's died of SIGFPE
    for op in ("gather", "index_select"):
        def build(lib, op=op):
            x = lib.randn(2, 3).requires_grad_()
            idx = lib.tensor([[0], [1]]) if op == "gather" else lib.tensor([0, 2])
            y = x.gather(1, idx) if op == "gather" else x.index_select(1, idx)
            y.register_hook(lambda g: lib.ones(1))
            y.sum().backward()
            return [x]
        ours = _same(build)
        assert ours == ("RuntimeError", "hook '<lambda>' has changed the size of value")


class Callable:
    def __call__(self, g):
        return g.double()


def test_hook_without_name_is_unknown():
    def build(lib):
        x = _leaf(lib, (3,))
        x.register_hook(Callable())
        x.sum().backward()
        return [x]

    assert _same(build) == ("RuntimeError", "hook '<unknown>' has changed the type of value "
                            "(was minitorch.FloatTensor got minitorch.DoubleTensor)")


def test_chained_hooks_compare_with_the_previous_value():
    def build(lib):
        x = _leaf(lib, (2,))
        calls = []
        x.register_hook(lambda g: calls.append(1) or g * 2)
        x.register_hook(lambda g: calls.append(2) or g + 1)
        x.register_hook(hook)
        x.sum().backward()
        assert calls == [1, 2]
        return [x]

    assert _same(build) == ("ok", [([3.0, 3.0], "float32")])


@pytest.mark.parametrize("kind", ["prehook", "hook"])
@pytest.mark.parametrize("returns", ["tensor", "list", "int", "short", "long", "shape", "dtype",
                                     "none-entry", "non-tensor-entry", "same"])
def test_node_hook_results(kind, returns):
    def build(lib):
        a, b = _leaf(lib, (2,)), _leaf(lib, (2,))
        y = a * b

        def node_hook(*args):
            gs = args[0]
            if returns == "tensor":
                return gs[0]
            if returns == "list":
                return list(gs)
            if returns == "int":
                return 3
            if returns == "short":
                return gs[:-1]
            if returns == "long":
                return gs + (gs[0],)
            if returns == "shape":
                return (lib.ones(5),) + gs[1:]
            if returns == "dtype":
                return (gs[0].double(),) + gs[1:]
            if returns == "none-entry":
                return (None,) + gs[1:]
            if returns == "non-tensor-entry":
                return (2.0,) + gs[1:]
            return tuple(g * 10 for g in gs)
        getattr(y.grad_fn, "register_" + kind)(node_hook)
        y.sum().backward()
        return [a, b]

    out = _same(build)
    assert (out[0] == "ok") == (returns in ("same", "none-entry"))


def test_post_hook_cannot_replace_none():
    def build(lib):
        a, b = _leaf(lib, (2,)), lib.ones(2)
        y = a * b
        y.grad_fn.register_hook(lambda gi, go: tuple(lib.ones(2) for _ in gi))
        y.sum().backward()
        return [a]

    assert _same(build) == ("RuntimeError",
                            "can't replace a None gradient with a non-None value")


def test_post_hooks_chain():
    def build(lib):
        a, b = _leaf(lib, (2,)), _leaf(lib, (2,))
        y = a * b
        seen = []
        y.grad_fn.register_hook(lambda gi, go: tuple(g * 2 for g in gi))
        y.grad_fn.register_hook(lambda gi, go: seen.append([g.tolist() for g in gi]))
        y.sum().backward()
        assert seen == [[[2.0, 4.0], [2.0, 4.0]]]
        return [a, b]

    assert _same(build)[0] == "ok"


@pytest.mark.parametrize("returns", ["none", "same", "shape", "dtype", "int"])
def test_post_accumulate_grad_hook_must_return_none(returns):
    def build(lib):
        x = _leaf(lib, (3,))
        values = {"none": None, "same": x, "shape": lib.ones(4), "dtype": x.double(), "int": 1}
        x.register_post_accumulate_grad_hook(lambda t: values[returns])
        x.sum().backward()
        return [x]

    out = _same(build)
    assert (out[0] == "ok") == (returns in ("none", "same"))  # the leaf itself passes


@pytest.mark.parametrize("returns,grad", [
    ((5,), None), ((1,), None), ((3, 2), [3.0, 3.0]), ((2,), [1.0, 1.0]), ((), None)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_function_backward_shape_and_dtype(returns, grad, dtype):
    def build(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return lib.ones(returns, dtype=getattr(lib, dtype))
        x = _leaf(lib, (2,))
        F.apply(x).sum().backward()
        return [x]

    out = _same(build)
    if returns == ():
        return  # a 0-dim gradient broadcasts: torch sums it to the input's shape
    if grad is None:
        assert out[0] == "RuntimeError" and "returned an invalid gradient at index 0" in out[1]
    else:
        assert out == ("ok", [(grad, "float32")])  # cast to the input's dtype


def test_function_backward_checked_in_a_longer_graph():
    def build(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.clone()

            @staticmethod
            def backward(ctx, g):
                return g.reshape(-1)[:1]
        x = _leaf(lib, (2, 3))
        y = F.apply(x.exp())
        y.sum().backward()
        return [x]

    assert _same(build) == ("RuntimeError", "Function FBackward returned an invalid gradient at "
                            "index 0 - got [1] but expected shape compatible with [2, 3]")


# ------------------------------------------------------------ order and counts


def _log_run(lib, retain_between):
    log = []
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: log.append("node prehook") or None)
    y.register_hook(lambda g: log.append(("h1", g.tolist())) or g * 2)
    if retain_between:
        y.retain_grad()
    y.register_hook(lambda g: log.append(("h2", g.tolist())) or g * 3)
    if not retain_between:
        y.retain_grad()
    y.grad_fn.register_hook(lambda gi, go: log.append("node hook") or None)
    z = y * y.detach() + y + y.sin()  # several uses of y
    z.sum().backward()
    return log, y.grad.tolist(), x.grad.tolist()


@pytest.mark.parametrize("retain_between", [False, True])
def test_hook_order_and_counts(retain_between):
    ours, theirs = _log_run(mt, retain_between), _log_run(torch, retain_between)
    assert ours[0][0] == theirs[0][0] == ("h1", pytest.approx(theirs[0][0][1]))
    assert [e if isinstance(e, str) else e[0] for e in ours[0]] == \
        ["h1", "h2", "node prehook", "node hook"]
    for a, b in zip(ours[0], theirs[0]):
        assert a == b if isinstance(a, str) else (a[0], pytest.approx(a[1])) == b
    assert ours[1] == pytest.approx(theirs[1])  # retained grad: after every tensor hook
    assert ours[2] == pytest.approx(theirs[2])


@pytest.mark.parametrize("lib", [mt, torch], ids=["minitorch", "torch"])
def test_handle_removed_during_backward(lib):
    x = lib.ones(2, requires_grad=True)
    log = []

    def first(g):
        h2.remove()
        log.append("first")
        return g * 2
    h1 = x.register_hook(first)
    h2 = x.register_hook(lambda g: log.append("second"))
    x.sum().backward()
    x.sum().backward()
    h1.remove()
    x.sum().backward()
    # removal takes effect from the next backward
    assert log == ["first", "second", "first"]
    assert x.grad.tolist() == [5.0, 5.0]


@pytest.mark.parametrize("lib", [mt, torch], ids=["minitorch", "torch"])
def test_register_hook_needs_requires_grad(lib):
    for t in (lib.ones(2), lib.ones(2, requires_grad=True).detach(), lib.arange(3)):
        with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that "
                                               "doesn't require gradient$"):
            t.register_hook(hook)


@pytest.mark.parametrize("mode", ["autograd.grad", "create_graph", "inputs="])
@pytest.mark.parametrize("returns", ["ok", "shape", "dtype"])
def test_checked_on_every_way_into_the_engine(mode, returns):
    def build(lib):
        x = _leaf(lib, (2, 3))
        y = x.exp()
        z = y.gather(1, lib.tensor([[0], [2]]))

        def named(g):
            return {"ok": g * 2, "shape": g.reshape(-1), "dtype": g.double()}[returns]
        z.register_hook(named)
        if mode == "autograd.grad":
            (g,) = lib.autograd.grad(z.sum(), x)
        elif mode == "create_graph":
            (g,) = lib.autograd.grad(z.sum(), x, create_graph=True)
            g.sum().backward()
        else:
            z.sum().backward(inputs=[x])
            g = x.grad
        x.grad = g.detach()
        return [x]

    out = _same(build)
    assert (out[0] == "ok") == (returns == "ok")


@pytest.mark.parametrize("kind", ["prehook", "hook", "tensor"])
def test_handle_removed_by_an_earlier_hook_of_the_same_run(kind):
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * x
        log = []

        def first(*args):
            log.append("first")
            second_handle.remove()

        def second(*args):
            log.append("second")
        register = y.register_hook if kind == "tensor" else \
            getattr(y.grad_fn, "register_" + kind)
        register(first)
        second_handle = register(second)
        for _ in range(3):
            y.sum().backward(retain_graph=True)
        return log, x.grad.tolist()

    assert run(mt) == run(torch) == (["first", "second", "first", "first"], [6.0, 6.0])
