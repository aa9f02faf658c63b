"""The *_copy functions against torch: each gives its view op's values as
fresh contiguous tensors sharing no memory with the input, with the view's
gradient, torch's out= (resize warning, dtype check, list outs) and torch's
narrow_copy messages."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

# (name, input shape, arguments)
CASES = [
    ("alias_copy", (2, 3), ()),
    ("as_strided_copy", (3, 4), ((2, 2), (1, 3), 1)),
    ("diagonal_copy", (3, 4), (1, 0, 1)),
    ("diagonal_copy", (2, 3, 4), (-1, 2, 0)),
    ("expand_copy", (3, 1), ((3, 4),)),
    ("expand_copy", (3,), ((2, -1),)),
    ("narrow_copy", (4, 5), (1, 1, 3)),
    ("narrow_copy", (4, 5), (0, -2, 2)),
    ("permute_copy", (2, 3, 4), ((2, 0, 1),)),
    ("squeeze_copy", (2, 1, 3, 1), ()),
    ("squeeze_copy", (2, 1, 3, 1), (1,)),
    ("squeeze_copy", (2, 1, 3, 1), ((1, 3),)),
    ("t_copy", (2, 3), ()),
    ("t_copy", (3,), ()),
    ("transpose_copy", (2, 3, 4), (0, 2)),
    ("unfold_copy", (6, 2), (0, 2, 2)),
    ("unsqueeze_copy", (2, 3), (-1,)),
    ("view_copy", (2, 6), ((3, -1),)),
    ("view_copy", (2, 3), (mt.int32,)),
]
LIST_CASES = [
    ("unbind_copy", (3, 2), ()),
    ("unbind_copy", (3, 2), (1,)),
    ("split_with_sizes_copy", (5, 2), ([2, 3],)),
    ("split_with_sizes_copy", (2, 5), ([1, 0, 4], 1)),
]


def _torch_args(args):
    return tuple(torch.int32 if a is mt.int32 else a for a in args)


def _pair(shape, dtype="float64"):
    data = (np.arange(1, 1 + int(np.prod(shape))) % 3).astype(dtype).reshape(shape)
    return mt.tensor(data), torch.tensor(data)


@pytest.mark.parametrize("name,shape,args", CASES)
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_values_are_fresh_and_contiguous(name, shape, args, dtype):
    if dtype == "bool" and mt.int32 in args:
        pytest.skip("a bool tensor has no int32 view")
    x, tx = _pair(shape, dtype)
    got = getattr(mt, name)(x, *args)
    want = getattr(torch, name)(tx, *_torch_args(args))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.dtype == getattr(mt, str(want.dtype).split(".")[1])
    assert got.is_contiguous() and got._base is None
    if got.numel():
        assert got.data_ptr() != x.data_ptr()
        before = x.clone()
        got.zero_()
        assert mt.equal(x, before)


@pytest.mark.parametrize("name,shape,args", LIST_CASES)
def test_list_results(name, shape, args):
    x, tx = _pair(shape)
    got = getattr(mt, name)(x, *args)
    want = getattr(torch, name)(tx, *args)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        assert g.is_contiguous() and g._base is None


@pytest.mark.parametrize("name,shape,args", [c for c in CASES if mt.int32 not in c[2]])
def test_gradients_match_torch(name, shape, args):
    if name == "narrow_copy" and args[1] < 0:
        pytest.skip("torch's narrow_copy backward fails for a negative start")
    x = mt.randn(*shape, dtype=mt.float64, requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    out, tout = getattr(mt, name)(x, *args), getattr(torch, name)(tx, *args)
    w = np.random.default_rng(0).standard_normal(tuple(tout.shape))
    (out * mt.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert mt.autograd.gradcheck(lambda t: getattr(mt, name)(t, *args), (x,))


@pytest.mark.parametrize("name,shape,args", LIST_CASES)
def test_list_gradients(name, shape, args):
    x = mt.randn(*shape, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: getattr(mt, name)(t, *args), (x,))


def test_out_is_written_resized_and_returned():
    x = mt.arange(6.).reshape(2, 3)
    out = mt.empty(3, 2)
    assert mt.t_copy(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), x.numpy().T)
    grown = mt.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.diagonal_copy(x, out=grown)
    assert grown.tolist() == [0.0, 4.0]
    wrong = mt.empty(5)
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required "
                                         r"output shape \[3, 2\]"):
        mt.permute_copy(x, (1, 0), out=wrong)
    assert wrong.shape == (3, 2)


@pytest.mark.parametrize("out_dtype,name", [(mt.float64, "double"), (mt.int64, "long int"),
                                            (mt.bool, "bool")])
def test_out_of_another_dtype_is_refused(out_dtype, name):
    with pytest.raises(RuntimeError, match=f"Expected out tensor to have dtype float, but got "
                                           f"{name} instead"):
        mt.t_copy(mt.ones(2, 3), out=mt.empty(3, 2, dtype=out_dtype))


def test_out_may_be_the_input():
    for lib in (mt, torch):
        x = lib.arange(9.).reshape(3, 3)
        lib.t_copy(x, out=x)
        assert x.tolist() == [[0.0, 3.0, 6.0], [1.0, 4.0, 7.0], [2.0, 5.0, 8.0]]
        y = lib.arange(9.).reshape(3, 3)
        lib.diagonal_copy(y, out=y[0])
        assert y[0].tolist() == [0.0, 4.0, 8.0]


def test_list_out():
    x = mt.arange(6.).reshape(3, 2)
    outs = [mt.empty(2), mt.empty(0), mt.empty(2)]
    assert mt.unbind_copy(x, out=outs) is None
    assert [o.tolist() for o in outs] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match="unbind_copy_int_out expected an out= argument of "
                                           "size 3, got size 1"):
        mt.unbind_copy(x, out=[mt.empty(2)])
    with pytest.raises(RuntimeError, match="split_with_sizes_copy_out expected an out= argument "
                                           "of size 2, got size 3"):
        mt.split_with_sizes_copy(x, [1, 2], out=outs)


@pytest.mark.parametrize("args", [(3, 0, 0), (5, 0, 1), (-4, 0, 0), (1, -3, -1), (1, 2, 4),
                                  (1, 5, -1), (1, 6, -1), (1, -6, 1), (1, 0, -1), (-1, 0, 0),
                                  (1, -5, 5), (1, 5, 0)])
def test_narrow_copy_checks_as_torch(args):
    x, tx = mt.ones(10, 5, 20), torch.ones(10, 5, 20)
    try:
        want = torch.narrow_copy(tx, *args)
    except Exception as e:  # noqa: BLE001 - compared with minitorch's
        with pytest.raises(type(e)) as got:
            mt.narrow_copy(x, *args)
        assert str(got.value) == str(e)
    else:
        assert mt.narrow_copy(x, *args).shape == tuple(want.shape)
        assert x.narrow_copy(*args).shape == tuple(want.shape)


def test_narrow_copy_of_0d():
    with pytest.raises(RuntimeError, match=r"narrow\(\) cannot be applied to a 0-dim tensor\."):
        mt.narrow_copy(mt.tensor(1.0), 0, 0, 1)


def test_view_errors_name_the_shape():
    with pytest.raises(RuntimeError, match=r"shape '\[0, -1\]' is invalid for input of size 1"):
        mt.view_copy(mt.ones(1), (0, -1))
    with pytest.raises(RuntimeError, match="cannot reshape tensor of 0 elements into shape "
                                           r"\[0, -1\] because"):
        mt.ones(0, 5).view(0, -1)
    with pytest.raises(RuntimeError, match=r"shape '\[0, -1\]' is invalid for input of size 1"):
        mt.ones(1).reshape(0, -1)


def test_only_narrow_copy_is_a_method():
    assert hasattr(mt.Tensor, "narrow_copy")
    assert not hasattr(mt.Tensor, "t_copy") and not hasattr(mt.Tensor, "view_copy")
