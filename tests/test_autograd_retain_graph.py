"""A second backward through nodes whose saved values were freed fails as in
torch: only nodes that saved something (a number torch keeps as a wrapped
tensor counts) raise; retain_graph=True keeps them."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")

OPS = {
    "mul by a number": lambda lib, x: x * 2,
    "number times": lambda lib, x: 3 * x,
    "mul method": lambda lib, x: x.mul(3),
    "div by a number": lambda lib, x: x / 2,
    "true_divide": lambda lib, x: x.true_divide(3),
    "number over": lambda lib, x: 2 / x,
    "add a number": lambda lib, x: x + 2,
    "sub a number": lambda lib, x: x - 2,
    "number minus": lambda lib, x: 2 - x,
    "neg": lambda lib, x: -x,
    "pow of a number": lambda lib, x: x ** 2,
    "number to the power": lambda lib, x: 2 ** x,
    "mul by a tensor": lambda lib, x: x * lib.ones(3),
    "mul by a 0-dim tensor": lambda lib, x: x * lib.tensor(2.0),
    "exp": lambda lib, x: x.exp(),
    "relu": lambda lib, x: x.relu(),
    "view": lambda lib, x: x.view(3, 1),
    "lerp by a number": lambda lib, x: x.lerp(lib.zeros(3), 0.5),
    "where with a number": lambda lib, x: lib.where(x > 0, x, 0.0),
    "clamp": lambda lib, x: x.clamp(min=0.1),
    "matmul": lambda lib, x: x @ lib.ones(3),
    "fmod": lambda lib, x: x.fmod(2),
    "atan2": lambda lib, x: x.atan2(lib.ones(3)),
    "xlogy": lambda lib, x: x.xlogy(2),
    "addcmul": lambda lib, x: lib.addcmul(x, x, lib.ones(3), value=2),
}


def _twice(lib, op, first_kwargs, via_grad=False):
    x = lib.tensor([0.5, 1.5, 2.5], requires_grad=True)
    y = op(lib, x * 1).sum()  # a non-leaf input: its MulBackward0 runs too
    if via_grad:
        lib.autograd.grad(y, x, **first_kwargs)
    else:
        y.backward(**first_kwargs)
    try:
        y.backward()
    except RuntimeError as e:
        return "raised", str(e)
    return "ok", [round(v, 4) for v in x.grad.tolist()]


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("via_grad", [False, True], ids=["backward", "autograd.grad"])
def test_second_backward_raises_as_torch(name, via_grad):
    ours = _twice(mt, OPS[name], {}, via_grad)
    assert ours == _twice(torch, OPS[name], {}, via_grad)
    if ours[0] == "raised":
        assert ours[1] == FREED


@pytest.mark.parametrize("name", list(OPS))
def test_retain_graph_keeps_them(name):
    ours = _twice(mt, OPS[name], {"retain_graph": True})
    assert ours[0] == "ok"
    assert ours == _twice(torch, OPS[name], {"retain_graph": True})


def test_the_number_case_raises():
    # nodes that kept only a number raise too (torch saved it as a wrapped tensor)
    x = mt.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        y.backward()
    z = (x + 2).sum()  # nothing saved: runs again
    z.backward()
    z.backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_retained_then_freed():
    for lib in (mt, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [6.0, 12.0]
        with pytest.raises(RuntimeError, match="^Trying to backward through the graph"):
            y.backward()
