"""einops on minitorch tensors: rearrange, reduce and repeat give torch's
results on the same data, keep autograd, and the backend appears whether
einops is imported before or after minitorch."""
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt

einops = pytest.importorskip("einops")


def pair(shape, dtype="float32", seed=0):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mt.from_numpy(x.copy()), torch.from_numpy(x.copy())


CASES = [
    ("rearrange", "b c h w -> b h w c", {}),
    ("rearrange", "b c h w -> b (c h w)", {}),
    ("rearrange", "b c (h h2) (w w2) -> b (c h2 w2) h w", {"h2": 2, "w2": 3}),
    ("rearrange", "b c h w -> (b h) w c", {}),
    ("rearrange", "b ... w -> w ... b", {}),
    ("reduce", "b c h w -> b c", {"reduction": "mean"}),
    ("reduce", "b c (h h2) (w w2) -> b c h w", {"reduction": "max", "h2": 2, "w2": 3}),
    ("reduce", "b c h w -> c", {"reduction": "sum"}),
    ("reduce", "b c h w -> b () h ()", {"reduction": "min"}),
    ("reduce", "b c h w -> h w", {"reduction": "prod"}),
    ("repeat", "b c h w -> b c h w r", {"r": 3}),
    ("repeat", "b c h w -> b (c r) h w", {"r": 2}),
    ("repeat", "b c h w -> (r b) c h w", {"r": 2}),
]


@pytest.mark.parametrize("fn,pattern,kwargs", CASES)
def test_patterns_match_torch(fn, pattern, kwargs):
    x, t = pair((2, 3, 4, 6))
    kwargs = dict(kwargs)
    args = (kwargs.pop("reduction"),) if "reduction" in kwargs else ()
    mine = getattr(einops, fn)(x, pattern, *args, **kwargs)
    theirs = getattr(einops, fn)(t, pattern, *args, **kwargs)
    assert type(mine) is mt.Tensor and mine.shape == tuple(theirs.shape)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_lists_int_and_bool_tensors_and_parse_shape():
    x, t = pair((3, 4), dtype="int64")
    assert einops.rearrange([x, x], "n a b -> a (n b)").tolist() == \
        einops.rearrange([t, t], "n a b -> a (n b)").tolist()
    assert einops.reduce(x > 0, "a b -> a", "any").tolist() == \
        einops.reduce(t > 0, "a b -> a", "any").tolist()
    assert einops.parse_shape(x, "a b") == {"a": 3, "b": 4}


def test_gradients_flow_like_torch():
    x, t = pair((2, 6))
    x.requires_grad_()
    t.requires_grad_()
    for v in (x, t):
        y = einops.reduce(einops.rearrange(v, "a (b c) -> a b c", c=2) ** 2, "a b c -> b", "sum")
        y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("order", ["import einops, minitorch", "import minitorch, einops"])
def test_backend_found_whichever_is_imported_first(order):
    code = (f"{order}, gc; gc.collect(); "
            "print(einops.rearrange(minitorch.arange(6).reshape(2, 3), 'a b -> b a').tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[[0, 3], [1, 4], [2, 5]]"


def test_minitorch_import_does_not_import_einops():
    code = "import sys, minitorch; print('einops' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == "False", out.stderr
