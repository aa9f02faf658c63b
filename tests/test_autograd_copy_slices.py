"""The backward of an in-place op on a view (CopySlices) as torch computes it:
gradient values, and with create_graph the graph it records (the gradient
laid out as the base, the view's part written back in place), compared with
torch by node names."""
import pytest

from side_by_side import same, val

torch = pytest.importorskip("torch")


def _names(node, depth):
    """The node names below node, depth first, as nested tuples; edges of
    inputs given as numbers (which torch lists as None) are left out."""
    if depth == 0:
        return None
    name = node.name().replace("torch::autograd::", "")
    return name, tuple(_names(f, depth - 1) for f, _ in node.next_functions if f is not None)


# in-place ops on views of a non-leaf base, and whether the recorded graph is
# compared: an op whose formula reads its own result (exp_, relu_) unpacks it
# with a history of its own making here (a view of the CopySlices), where
# torch's carries the op's node itself
CASES = {
    "mul_on_slice": (lambda L, b, y: b[1:].mul_(y[1:]), True),
    "add_on_transposed": (lambda L, b, y: b.t().add_(y.t() * 2), True),
    "div_on_strided": (lambda L, b, y: b[:, ::2].div_(3.0), True),
    "mul_on_column": (lambda L, b, y: b.select(1, 2).mul_(y[:, 0]), True),
    "exp_on_row": (lambda L, b, y: b[0].exp_(), False),
    "relu_on_view": (lambda L, b, y: L.relu_(b.view(-1)), False),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_values_and_double_backward_graph(case):
    change, compare_graph = case

    def scenario(L):
        x = (L.arange(12.0).reshape(3, 4) / 7 - 0.4).requires_grad_()
        y = (L.arange(12.0).reshape(3, 4) / 5 + 0.3).requires_grad_()
        b = x.clone()
        change(L, b, y)
        out = (b * b).sum()
        gx, gy = L.autograd.grad(out, (x, y), create_graph=True, allow_unused=True)
        (gg,) = L.autograd.grad(gx.sum(), x, allow_unused=True, retain_graph=True)
        return _names(gx.grad_fn, 6) if compare_graph else None, val(gx), val(gy), val(gg)
    same(torch, scenario)


def test_base_with_gaps_takes_the_positions_path():
    # a base whose own layout is not dense (as_strided_ on it): the gradient
    # of its view's part still lands where the view's elements are
    def scenario(L):
        x = L.arange(1.0, 9.0).requires_grad_()
        b = x * 1
        b.as_strided_((2, 2), (4, 1))
        b[0].mul_(3)
        b.sum().backward()
        return val(x.grad)
    same(torch, scenario)
