"""When autograd hands an op's saved tensors to the saved-tensor pack hooks:
inputs before the op's kernel runs, outputs after it, as torch's autograd
does. Observed with a dispatch mode, which sees the kernel's call; a pack
hook that raises stops the call before its kernel (checkpoint early stop)."""
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _events(lib, fn, make_inputs):
    """The order of pack-hook calls ("pack <shape>") and kernel calls (the
    op's name) while fn runs on inputs requiring grad."""
    from_lib = "minitorch" if lib is minitorch else "torch"
    if from_lib == "minitorch":
        from minitorch.utils._python_dispatch import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode
    events = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            events.append(func.__name__.split(".")[0])
            return func(*args, **(kwargs or {}))

    def pack(t):
        events.append(f"pack {tuple(t.shape)}")
        return t

    inputs = make_inputs(lib)
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with Log():
            fn(*inputs)
    return events


def _inputs(*shapes, grad=(True, True, True)):
    def make(lib):
        gen = [lib.arange(float(int(lib.tensor(s).prod().item())) if s else 1.0).reshape(s) * 0.1
               + 0.5 for s in shapes]
        return [g.requires_grad_(r) for g, r in zip(gen, grad)]
    return make


CASES = [
    ("sin saves its input", lambda x: x.sin(), _inputs((3,))),
    ("exp saves its output", lambda x: x.exp(), _inputs((2, 3))),
    ("mul saves both inputs", lambda x, y: x * y, _inputs((2, 3), (2, 3))),
    ("mul saves only what a gradient needs", lambda x, y: x * y,
     _inputs((4,), (4,), grad=(True, False))),
    ("chain", lambda x: x.sin().exp().cos(), _inputs((5,))),
    ("pow by a number", lambda x: x ** 2, _inputs((2, 2))),
    ("tanh saves its output", lambda x, y: (x * y).tanh(), _inputs((3,), (3,))),
    ("mm", lambda x, y: x.mm(y), _inputs((2, 3), (3, 4))),
    ("sum saves nothing", lambda x: x.sum(), _inputs((3, 2))),
    ("sigmoid then mul", lambda x, y: x.sigmoid() * y, _inputs((2, 2), (2, 2))),
]


def _grouped(events):
    """The events with each run of pack calls as a sorted tuple: torch's
    generated code saves an op's inputs in its own order."""
    out = []
    for e in events:
        if e.startswith("pack") and out and isinstance(out[-1], tuple):
            out[-1] = tuple(sorted(out[-1] + (e,)))
        else:
            out.append((e,) if e.startswith("pack") else e)
    return out


@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
def test_pack_order_matches_torch(name, fn, make):
    assert _grouped(_events(minitorch, fn, make)) == _grouped(_events(torch, fn, make))


def test_in_place_op_packs_before_its_kernel():
    events = _events(minitorch, lambda x: x.clone().mul_(x), _inputs((3,)))
    assert events == ["clone", "pack (3,)", "pack (3,)", "mul_"]


def test_input_pack_comes_before_the_kernel():
    events = _events(minitorch, lambda x: x.sin(), _inputs((3,)))
    assert events == ["pack (3,)", "sin"]
    events = _events(minitorch, lambda x: x.exp(), _inputs((3,)))
    assert events == ["exp", "pack (3,)"]


@pytest.mark.parametrize("lib", [minitorch, torch], ids=["minitorch", "torch"])
def test_raising_pack_hook_stops_the_call_before_its_kernel(lib):
    if lib is minitorch:
        from minitorch.utils._python_dispatch import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    def pack(t):
        raise KeyError("stop")

    x = lib.ones(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t), Log():
        with pytest.raises(KeyError):
            x.sin()
        with pytest.raises(KeyError):
            x.exp()  # its output is packed after the kernel
    assert seen == ["exp.default"]


@pytest.mark.parametrize("lib", [minitorch, torch], ids=["minitorch", "torch"])
def test_early_stop_skips_the_recomputed_kernel(lib):
    if lib is minitorch:
        from minitorch.utils._python_dispatch import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode
    counts = {"fn": 0, "sin": 0}

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is lib.ops.aten.sin.default:
                counts["sin"] += 1
            return func(*args, **(kwargs or {}))

    def fn(x):
        counts["fn"] += 1
        return x.sin()

    for early_stop, sins in ((True, 1), (False, 2)):
        counts.update(fn=0, sin=0)
        a = lib.tensor(1.0, requires_grad=True)
        with Count():
            with lib.utils.checkpoint.set_checkpoint_early_stop(early_stop):
                out = lib.utils.checkpoint.checkpoint(fn, a, use_reentrant=False)
            out.backward()
        assert counts == {"fn": 2, "sin": sins}
        assert a.grad.item() == pytest.approx(float(lib.cos(lib.tensor(1.0))))


def test_values_and_gradients_unchanged_by_the_order():
    for lib in (minitorch, torch):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = lib.tensor([1.5, -1.0, 0.25], requires_grad=True)
        out = ((x * y).sin() * x.exp()).sum()
        out.backward()
        if lib is minitorch:
            mine = (out.item(), x.grad.tolist(), y.grad.tolist())
        else:
            theirs = (out.item(), x.grad.tolist(), y.grad.tolist())
    assert mine[0] == pytest.approx(theirs[0])
    assert mine[1] == pytest.approx(theirs[1])
    assert mine[2] == pytest.approx(theirs[2])


def test_saving_an_input_then_modifying_it_in_place_is_refused():
    """The saved input's version is taken before the op: x.mul_(x) saves
    the x it reads, which the op then changes, as torch reports."""
    for lib in (minitorch, torch):
        x = lib.ones(3, requires_grad=True).clone()
        x.mul_(x)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            x.sum().backward()
