"""What a backward pass tells about the graph, compared with torch: the
warning backward(create_graph=True) gives (once, or every time under
set_warn_always; never for autograd.grad), whether the running pass keeps
the graph (``_C._autograd._get_current_graph_task_keep_graph``), the error
of a second backward through a node whose saved indexing key was freed,
and ``_C._WeakTensorRef``."""
import gc
import warnings

import pytest

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")

CYCLE = "Using backward() with create_graph=True"


def create_graph_warnings(L, how, always):
    previous = L.is_warn_always_enabled()
    L.set_warn_always(always)
    counts = []
    try:
        for _ in range(2):
            b = L.tensor([1.0, 2.0], requires_grad=True, dtype=L.float64)
            c = b * b
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter("always")
                if how == "backward":
                    c.backward(L.ones_like(c), create_graph=True)
                elif how == "inputs":
                    c.backward(L.ones_like(c), create_graph=True, inputs=(b,))
                elif how == "function":
                    L.autograd.backward(c, L.ones_like(c), create_graph=True)
                elif how == "grad":
                    L.autograd.grad(c, b, L.ones_like(c), create_graph=True)
                else:
                    c.backward(L.ones_like(c), retain_graph=True)
            counts.append(sum(CYCLE in str(w.message) for w in ws))
            b.grad = None
    finally:
        L.set_warn_always(previous)
    return counts


@pytest.mark.parametrize("how", ["backward", "inputs", "function", "grad", "plain"])
def test_create_graph_warning(how):
    counts = same(torch, create_graph_warnings, how, True)
    assert counts == ([1, 1] if how in ("backward", "inputs", "function") else [0, 0])


def test_create_graph_warning_once_per_process():
    import minitorch as mt
    create_graph_warnings(mt, "backward", False)  # the first may have been earlier
    assert create_graph_warnings(mt, "backward", False) == [0, 0]


def keep_graph_seen(L, retain):
    seen = []

    class Probe(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            seen.append(L._C._autograd._get_current_graph_task_keep_graph())
            return g

    x = L.ones(3, requires_grad=True)
    out = Probe.apply(x).sum()
    if retain is None:
        out.backward()
    else:
        out.backward(retain_graph=retain)
    L.autograd.grad(Probe.apply(x).sum(), x, retain_graph=True)
    return seen, L._C._autograd._get_current_graph_task_keep_graph()


@pytest.mark.parametrize("retain", [None, False, True])
def test_current_graph_task_keep_graph(retain):
    seen, outside = same(torch, keep_graph_seen, retain)
    assert seen == [bool(retain), True] and outside is True


def twice(L, dest, src, retain):
    """c[dest] = b[src] (or b[src].sum() without dest) backward twice: torch
    saves the index tensors of an advanced key (a list, a mask), so the
    second pass fails once they were freed; a slice saves nothing."""
    b = L.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=L.float64)
    keys = {"slice": slice(0, 2), "list": [1, 1], "mask": L.tensor([True, False, True]),
            "list2": [1, 2]}
    if dest is None:
        c = b[keys[src]].sum()
        go = L.tensor(1.0, dtype=L.float64)
    else:
        c = L.zeros(3, dtype=L.float64)
        c[keys[dest]] = b[keys[src]]
        go = L.tensor([1.0, 1.0, 1.0], dtype=L.float64)
    c.backward(go, retain_graph=retain)
    err = errmsg(lambda: c.backward(go))
    return err, val(b.grad)


@pytest.mark.parametrize("dest,src", [("list2", "list"), ("slice", "list"), ("slice", "mask"),
                                      ("mask", "list"), (None, "list"), (None, "mask"),
                                      (None, "slice")])
@pytest.mark.parametrize("retain", [False, True])
def test_second_backward_through_freed_index_key(dest, src, retain):
    err, _ = same(torch, twice, dest, src, retain)
    if retain or src == "slice":
        assert err is None
    else:
        assert err[0] == "RuntimeError" and "Specify retain_graph=True" in err[1]


def weak_ref(L, case):
    x = L.ones(5, 5, requires_grad=True)
    if case == "retained":
        def run():
            y = x * 2
            y.retain_grad()
            return y + 1, L._C._WeakTensorRef(y)
        z, ref = run()
        alive = not ref.expired()
        z.sum().backward()
        return alive, val(x.grad)[2][:2]
    y = x.exp()  # saves its output as an alias: y itself may go
    ref = L._C._WeakTensorRef(y)
    held = not ref.expired()
    z = y.sum()
    del y
    gc.collect()
    return held, ref.expired(), val(z)


@pytest.mark.parametrize("case", ["retained", "output"])
def test_weak_tensor_ref(case):
    got = same(torch, weak_ref, case)
    if case == "retained":
        assert got[0] is False  # retain_grad keeps no reference to y
    else:
        assert got[:2] == (True, True)
