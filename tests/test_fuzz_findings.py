"""What the generated fuzz sweep (tests/fuzz_sweep.py) found, kept fixed: each
call crashed, read or wrote out of bounds, or hung, and now raises torch's
exception (compared with torch where torch has the function)."""
import time

import pytest

import minitorch as mt
from minitorch import _C

F = mt.nn.functional


def _torch():
    return pytest.importorskip("torch")


def _raises(f, lib):
    try:
        f(lib)
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return type(e).__name__, str(e)
    return None


SAME_AS_TORCH = {
    # scatter read src (and wrote self) past their ends when index was larger
    "scatter_src_empty": lambda T: T.scatter(T.zeros(2, 3), 0, T.zeros(2, 3, dtype=T.int64),
                                             T.zeros(0)),
    "scatter_src_smaller": lambda T: T.scatter(T.zeros(2, 3), 0,
                                               T.zeros(2, 3, dtype=T.int64), T.ones(1, 3)),
    "scatter_add_src_rank": lambda T: T.scatter_add(T.zeros(2, 3), 0,
                                                    T.zeros(2, 3, dtype=T.int64),
                                                    T.ones(2, 3, 1)),
    "scatter_index_wider_than_self": lambda T: T.scatter(T.zeros(2, 3), 0,
                                                         T.zeros(2, 4, dtype=T.int64),
                                                         T.ones(2, 4)),
    "scatter_value_index_wider_than_self": lambda T: T.zeros(2, 3).scatter_(
        0, T.zeros(2, 4, dtype=T.int64), 1.0),
    # searchsorted read the boundaries at any sorter value
    "searchsorted_sorter_too_large": lambda T: T.searchsorted(
        T.tensor([[0.0, 1.0, 2.0]]), T.tensor([[0.5]]), sorter=T.tensor([[0, 1, 5]])),
    "searchsorted_sorter_negative": lambda T: T.searchsorted(
        T.tensor([0.0, 1.0, 2.0]), T.tensor([0.5]), sorter=T.tensor([0, -1, 2])),
    # pooling windows beyond a C int made the kernels loop for ever
    "max_pool2d_huge_kernel_and_padding": lambda T: T.nn.functional.max_pool2d(
        T.ones(1, 2, 5, 5), kernel_size=2 ** 62, padding=2 ** 61),
    "max_pool2d_huge_dilation": lambda T: T.nn.functional.max_pool2d(
        T.ones(1, 2, 5, 5), kernel_size=2, dilation=2 ** 62),
    "avg_pool2d_huge_stride": lambda T: T.nn.functional.avg_pool2d(
        T.ones(1, 2, 5, 5), kernel_size=2, stride=2 ** 40),
    # tensor_split built 2**62 lengths in a Python list
    "tensor_split_huge_sections": lambda T: T.tensor_split(T.ones(3), 2 ** 62),
    # Tensor.__torch_function__ passed a non-mapping kwargs to the call: a segfault
    "torch_function_kwargs_not_a_mapping": lambda T: T.Tensor.__torch_function__(
        T.add, (T.Tensor,), (T.ones(2), T.ones(2)), 1),
}


@pytest.mark.parametrize("case", sorted(SAME_AS_TORCH))
def test_error_as_torch(case):
    torch = _torch()
    expected = _raises(SAME_AS_TORCH[case], torch)
    assert expected is not None
    got = _raises(SAME_AS_TORCH[case], mt)
    assert got is not None and got[0] == expected[0]
    if case != "torch_function_kwargs_not_a_mapping":  # names its callee differently
        assert got[1] == expected[1]


def test_scatter_within_bounds_is_unchanged():
    torch = _torch()
    for lib in (mt, torch):
        lib.manual_seed(0)
    idx = [[1, 0, 1], [0, 1, 0], [1, 1, 1]]
    src = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    got = mt.zeros(2, 3).scatter_add(0, mt.tensor(idx), mt.tensor(src))
    want = torch.zeros(2, 3).scatter_add(0, torch.tensor(idx), torch.tensor(src))
    assert got.tolist() == want.tolist()
    got = mt.zeros(2, 4).scatter(1, mt.tensor([[3], [0]]), mt.tensor([[1.0, 9.0], [2.0, 9.0]]))
    want = torch.zeros(2, 4).scatter(1, torch.tensor([[3], [0]]),
                                     torch.tensor([[1.0, 9.0], [2.0, 9.0]]))
    assert got.tolist() == want.tolist()


def test_searchsorted_with_a_valid_sorter_is_unchanged():
    torch = _torch()
    b, v, s = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], [[1.5, 2.5], [4.5, 0.0]], [[1, 2, 0], [0, 2, 1]]
    for right in (False, True):
        got = mt.searchsorted(mt.tensor(b), mt.tensor(v), sorter=mt.tensor(s), right=right)
        want = torch.searchsorted(torch.tensor(b), torch.tensor(v), sorter=torch.tensor(s),
                                  right=right)
        assert got.tolist() == want.tolist()


def test_kwargs_of_torch_function_entry_points():
    x = mt.ones(2)
    with pytest.raises(TypeError, match="argument after \\*\\* must be a mapping, not int"):
        mt.Tensor.__torch_function__(mt.add, (mt.Tensor,), (x, x), 1)
    with pytest.raises(TypeError, match="must be a mapping, not list"):
        _C._disabled_torch_function_impl(mt.add, (mt.Tensor,), (x, x), [1])
    with pytest.raises(TypeError, match="must be a mapping, not str"):
        _C._handle_torch_function(mt.add, (x,), (x, x), "alpha")
    # any mapping works, as Python's **kwargs
    import types
    got = mt.Tensor.__torch_function__(mt.add, (mt.Tensor,), (x, x),
                                       types.MappingProxyType({"alpha": 3}))
    assert got.tolist() == [4.0, 4.0]


def test_max_pool2d_window_past_the_input_reads_nothing_outside():
    # dilation 3 over a 2x2 input: the last taps start past the row's end (they
    # were read from the next row); torch refuses the padding, we keep our rule
    x = mt.tensor([[[[-1.0, -2.0], [-3.0, -4.0]]]])
    out, idx = F.max_pool2d(x, kernel_size=3, dilation=3, padding=3, return_indices=True)
    assert out.tolist() == [[[[-1.0]]]] and idx.tolist() == [[[[0]]]]


def test_max_pool2d_huge_padded_kernel_is_fast():
    # a C-int window with as much padding: only the taps inside the input run
    t0 = time.perf_counter()
    out = F.max_pool2d(mt.arange(50.0).reshape(1, 2, 5, 5), kernel_size=2 ** 31 - 1,
                       padding=2 ** 30 - 1)
    assert time.perf_counter() - t0 < 5
    assert out.reshape(-1).tolist() == [24.0, 49.0]


@pytest.mark.parametrize("args", [
    ((2 ** 62, 2 ** 62), (1, 1), (0, 0), (1, 1)),   # looped 2**124 times
    ((2, 2), (1, 1), (2 ** 61, 0), (1, 1)),         # padding beyond the window
    ((2, 2), (1, 1), (0, 0), (1, 1)),               # grad not the pooled size (5x5)
])
def test_pool_backward_rows_check_the_window(args):
    x, g = mt.rand(1, 2, 6, 6), mt.rand(1, 2, 5, 5)
    k, s, p, d = args
    if args[0] == (2, 2) and args[2] == (0, 0):
        g = mt.rand(1, 2, 4, 4)
    with pytest.raises(RuntimeError):
        mt._max_pool2d_backward(g, x, k, s, p, d)
    with pytest.raises(RuntimeError):
        mt._avg_pool2d_backward(g, [1, 2, 6, 6], k, s, p, True, None)


def test_pool_backward_rows_still_match_the_forward():
    x = mt.rand(1, 2, 6, 6, requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    g = mt.ones(1, 2, 3, 3)
    assert mt.equal(mt._max_pool2d_backward(g, x.detach(), [2, 2], [2, 2], [0, 0], [1, 1]),
                    x.grad)


@pytest.mark.parametrize("args", [
    lambda: (mt.arange(12.0).reshape(3, 4).t(), mt.zeros(2, dtype=mt.int64), None, 1, -100),
    lambda: (mt.rand(2, 3), mt.zeros(3, dtype=mt.int64), None, 1, -100),
    lambda: (mt.rand(2, 3, 4), mt.zeros(2, 4, dtype=mt.int64), None, 1, -100),
    lambda: (mt.rand(2, 3), mt.zeros(2, dtype=mt.int64), None, 7, -100),
    lambda: (mt.rand(2, 3), mt.zeros(2, dtype=mt.int64), mt.ones(5), 1, -100),
])
def test_nll_loss_row_checks_its_shapes(args):
    # the kernel read input at the target's (wrong) geometry
    with pytest.raises(RuntimeError):
        mt._nll_loss(*args())


def test_nll_loss_backward_row_checks_its_shapes():
    t = mt.zeros(2, dtype=mt.int64)
    with pytest.raises(RuntimeError):  # unreduced grad must be shaped like the target
        mt._nll_loss_backward(mt.ones(5), t, None, [2, 3], 0, -100)
    with pytest.raises(RuntimeError):  # input_size does not fit the target
        mt._nll_loss_backward(mt.ones(()), t, None, [4, 3], 1, -100)
    assert mt._nll_loss_backward(mt.ones(()), t, None, [2, 3], 2, -100).tolist() == \
        [[-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]


def test_wrong_type_in_the_first_argument_is_torchs_type_error():
    """Where torch raises TypeError for a wrong-typed first argument of a
    function it shares with the op table, so do we."""
    torch = _torch()
    spaces = ((_C._functions, torch), (_C._nn_functions, torch.nn.functional),
              (_C.TensorBase.__dict__, torch.Tensor))
    checked, wrong = 0, []
    for ours, theirs in spaces:
        for name, f in sorted(ours.items()):
            tf = getattr(theirs, name, None)
            if not hasattr(f, "_signatures") or tf is None:
                continue
            for bad in ("abc", object(), [None]):
                expected = _raises(lambda lib: tf(bad), None)
                if expected is None or expected[0] != "TypeError":
                    continue
                checked += 1
                got = _raises(lambda lib: f(bad), None)
                if got is None or got[0] != "TypeError":
                    wrong.append((name, repr(bad), got))
    assert checked > 500
    assert wrong == []
