"""As torch's parser, an op row takes a Tensor-like for any argument (an
int, a Scalar, a dtype, an element of a size) only to dispatch on: the
handler gets the call as made, compared with torch."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def make_duck(index):
    class Duck:
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append((func.__name__, types, args, kwargs))
            return "duck"

    if index:
        Duck.__index__ = lambda self: 1
    return Duck


CALLS = {
    "select_dim": lambda t, d: t.select(t.ones(2, 3), d, 0),
    "sum_dim": lambda t, d: t.ones(2, 3).sum(d),
    "sum_dim_list": lambda t, d: t.ones(2, 3).sum([d]),
    "reshape_list": lambda t, d: t.ones(2, 3).reshape([d, 6]),
    "view_varargs_first": lambda t, d: t.ones(2, 3).view(d, 6),
    "view_varargs_later": lambda t, d: t.ones(2, 3).view(6, d),
    "permute_varargs": lambda t, d: t.ones(2, 3).permute(d, 0),
    "flip_list": lambda t, d: t.ones(2, 3).flip([d]),
    "ones_size_list": lambda t, d: t.ones([d, 2]),
    "ones_size": lambda t, d: t.ones(d),
    "full_scalar": lambda t, d: t.full((2,), d),
    "add_alpha": lambda t, d: t.add(t.ones(2), 1, alpha=d),
    "max_pool2d_kernel": lambda t, d: t.max_pool2d(t.ones(1, 2, 3), d),
}


@pytest.mark.parametrize("index", [False, True], ids=["plain", "with_index"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_tensor_like_in_any_argument_dispatches(name, index):
    got = {}
    # torch fails an internal assert on these (an int-like where a size may be one int)
    torch_asserts = index and name in ("ones_size", "max_pool2d_kernel", "sum_dim")
    for lib in (mt,) if torch_asserts else (torch, mt):
        Duck = make_duck(index)
        d = Duck()
        assert CALLS[name](lib, d) == "duck"
        (func, types, args, kwargs), = Duck.calls
        assert types == (Duck,)
        flat = [a for x in args for a in (x if isinstance(x, (list, tuple)) else (x,))]
        assert any(a is d for a in flat + list((kwargs or {}).values()))
        got[lib] = func
    assert torch_asserts or got[mt] == got[torch]


def test_dispatch_off_makes_it_an_argument_again():
    Duck = make_duck(True)
    with mt._C.DisableTorchFunction():
        assert mt.ones(2, 3).sum(Duck()).tolist() == [3.0, 3.0]
        assert mt.ones([Duck(), 2]).shape == (1, 2)
    Plain = make_duck(False)
    with mt._C.DisableTorchFunction(), pytest.raises(TypeError, match="invalid combination"):
        mt.ones(2, 3).sum(Plain())


def test_a_tensor_subclass_in_a_size_is_read_as_its_value():
    class Sub(mt.Tensor):
        pass

    assert mt.ones(2, 3).reshape([mt.tensor(6).as_subclass(Sub)]).shape == (6,)
