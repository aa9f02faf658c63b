"""The Tensor methods written in Python (overrides.composite's methods) take
no out= keyword, as torch's Tensor methods take none: the out= form is the
function's. The methods are read from minitorch.Tensor, so a new composite
is checked without editing a list."""
import re

import numpy as np

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def composite_methods():
    """The names of the methods Python code sets on minitorch.Tensor (the
    class bodies of _tensor.py and the extension's TensorBase excluded)."""
    own = mt._C.TensorBase.__dict__
    out = []
    for name, fn in sorted(vars(mt.Tensor).items()):
        wrapped = getattr(fn, "__wrapped__", None)
        if (name not in own and callable(fn) and getattr(fn, "__qualname__", "") == f"Tensor.{name}"
                and wrapped is not None and wrapped.__module__ != "minitorch._tensor"):
            out.append(name)
    return out


METHODS = composite_methods()


def _refusal(lib, name):
    """The TypeError's message of Tensor.<name>(x, out=x), called as
    x.<name>(out=x) calls it; None when lib's Tensor has no such method."""
    method = getattr(lib.Tensor, name, None)
    if method is None:
        return None
    x = lib.ones(2, 2)
    with pytest.raises(TypeError) as info:
        method(x, out=x)
    return str(info.value)


def test_the_walk_finds_the_composite_methods():
    assert len(METHODS) > 100
    assert {"frexp", "nansum", "diff", "lu", "quantile"} <= set(METHODS)


@pytest.mark.parametrize("name", METHODS)
def test_a_composite_method_refuses_out_as_torch_does(name):
    theirs = _refusal(torch, name)
    ours = _refusal(mt, name)
    # where torch's refusal is about out= (the method's other arguments could
    # be given), the message is torch's; elsewhere it may first name a missing
    # argument or list the overloads, which the composite has no rows for
    about_out = rf"(Tensor(Base)?\.)?{name}\(\) (got an unexpected keyword argument 'out'|" \
                r"takes no keyword arguments)"
    if theirs is not None and re.fullmatch(about_out, theirs):
        assert ours == theirs


@pytest.mark.parametrize("name", ["nansum", "diff", "logit", "frexp"])
def test_the_function_keeps_out(name):
    x = torch.rand(3, 3) * 0.8 + 0.1
    expected = getattr(torch, name)(x)
    pieces = len(expected) if isinstance(expected, tuple) else 1
    theirs = tuple(torch.empty(0, dtype=e.dtype) for e in (expected if pieces > 1 else [expected]))
    ours = tuple(mt.empty(0, dtype=getattr(mt, str(e.dtype)[6:])) for e in theirs)
    getattr(torch, name)(x, out=theirs if pieces > 1 else theirs[0])
    getattr(mt, name)(mt.tensor(x.numpy()), out=ours if pieces > 1 else ours[0])
    for a, b in zip(theirs, ours):
        assert a.shape == tuple(b.shape) and np.allclose(a.numpy(), b.numpy(), rtol=1e-6)
