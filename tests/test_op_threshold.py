"""threshold, threshold_, nn.functional.threshold (in place or not) and the
gradient row _threshold_backward, compared with torch: values over dtypes,
grad_fn names, first and second derivatives, and in place on a view."""
import pytest

import minitorch

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")

CALLS = {
    "function": lambda L, x, t, v: L.threshold(x, t, v),
    "function_": lambda L, x, t, v: L.threshold_(x, t, v),
    "nn": lambda L, x, t, v: L.nn.functional.threshold(x, t, v),
    "nn_inplace": lambda L, x, t, v: L.nn.functional.threshold(x, t, v, True),
    "nn_threshold_": lambda L, x, t, v: L.nn.functional.threshold_(x, t, v),
    "module": lambda L, x, t, v: L.nn.Threshold(t, v)(x),
}


def _values(L, dtype):
    return L.tensor([-2.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0]).to(getattr(L, dtype))


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8"])
@pytest.mark.parametrize("t,v", [(0.5, 7.0), (1, -2), (-1.5, 2.5), (0.0, 0.0)])
def test_values(call, dtype, t, v):
    def scenario(L):
        x = _values(L, dtype)
        got = []
        refused = errmsg(lambda: got.append(call(L, x, t, v)))
        if refused:  # a negative threshold or value for uint8
            return refused
        out = got[0]
        return val(out), str(out.dtype).split(".")[-1], out is x, x._version
    same(torch, scenario)


def test_nan_is_kept_and_bool_refused():
    def scenario(L):
        x = L.tensor([float("nan"), -1.0, 2.0])
        return str(L.threshold(x, 0.0, 9.0).tolist()), errmsg(lambda: L.threshold(L.tensor([True]), 0, 1))
    same(torch, scenario)


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_gradients_and_names(call):
    def scenario(L):
        x = (L.arange(12, dtype=L.float64) / 3 - 2).reshape(3, 4).requires_grad_()
        y = x * x
        out = call(L, y, 0.5, 4.0)
        (g,) = L.autograd.grad((out * out).sum(), x, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), x)
        return out.grad_fn.name(), val(g), val(gg)
    same(torch, scenario)


def test_in_place_on_a_view_records_torchs_double_backward():
    def scenario(L):
        inputs = L.ones((1, 3, 4, 4), requires_grad=True)
        tmp = (inputs + 1).view_as(inputs)
        L.nn.functional.threshold(tmp, 1.5, 0.0, True)
        prob = L.sigmoid(tmp)
        (g,) = L.autograd.grad(prob, inputs, L.ones(prob.shape), create_graph=True)
        node = g.sum().grad_fn.next_functions[0][0]
        return node.name().split("::")[-1], node.next_functions[1][0].name(), val(g.sum())
    same(torch, scenario)


def test_gradient_row_gradcheck():
    x = minitorch.tensor([-1.0, 0.2, 0.7, 2.0], dtype=minitorch.float64, requires_grad=True)
    g = minitorch.tensor([0.3, -1.0, 2.0, 0.5], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda gg: minitorch._threshold_backward(gg, x, 0.5), (g,))
    assert minitorch.autograd.gradgradcheck(lambda gg: minitorch._threshold_backward(gg, x, 0.5),
                                            (g,))
    out = minitorch._threshold_backward(g, x, 0.5)
    assert out.tolist() == [0.0, 0.0, 2.0, 0.5]
    assert out.grad_fn.name() == "ThresholdBackwardBackward0"


@pytest.mark.parametrize("relu", [lambda L, x: L.relu(x), lambda L, x: x.relu(),
                                  lambda L, x: L.nn.functional.relu(x),
                                  lambda L, x: L.nn.functional.relu(x * 1, inplace=True)])
def test_relu_gradient_is_the_threshold_row(relu):
    def scenario(L):
        x = L.tensor([-1.5, -0.0, 0.0, 0.5, 2.0], dtype=L.float64, requires_grad=True)
        y = relu(L, x)
        (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), x)
        return y.grad_fn.name(), g.grad_fn.name(), val(g), val(gg)
    same(torch, scenario)
