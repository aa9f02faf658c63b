"""The row kernels of softmax, log_softmax and cross_entropy (kernels/softmax_row.h):
rows a block of 8 at a time, a row's tail as one vector overlapping the one
before, float32 in 16 AVX-512 lanes where the machine has them and 8 lanes
otherwise (MINITORCH_NO_AVX512=1, run in a subprocess). Against torch: row
lengths around the vector widths, row counts around the block, -inf / +inf /
NaN at the row's ends, float64, and cross_entropy's weights, smoothing,
ignore_index and class dims other than the last."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(2024)
LENGTHS = list(range(1, 41)) + [63, 64, 65, 1000, 1025]
ROWS = [1, 7, 8, 9, 19]
DTYPES = [(np.float32, 2e-6), (np.float64, 1e-12)]


def close(got, want, tol):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype,tol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("n", LENGTHS)
def test_rows_of_every_length_forward_and_backward(name, dtype, tol, n):
    for rows in ROWS:
        x = (RNG.standard_normal((rows, n)) * 4).astype(dtype)
        g = RNG.standard_normal((rows, n)).astype(dtype)
        tx = torch.tensor(x, requires_grad=True)
        mx = mt.tensor(x).requires_grad_(True)
        ty, my = getattr(torch, name)(tx, -1), getattr(mt, name)(mx, -1)
        close(my.detach().numpy(), ty.detach().numpy(), tol)
        tg = torch.autograd.grad(ty, tx, torch.tensor(g))[0]
        mg = mt.autograd.grad(my, mx, mt.tensor(g))[0]
        close(mg.numpy(), tg.numpy(), tol * 10)


def special_rows(n):
    """Rows of n with -inf, +inf, NaN or a huge value at the first, last and
    middle place (the last place is the overlapping vector's only fresh lane
    when n is one more than a vector; rows of 8 vectors and more take their
    max in four running maxima)."""
    out = []
    for at in sorted({0, n // 2, n - 1}):
        for v in (-np.inf, np.inf, np.nan, 80.0, -1e30):
            row = np.linspace(-3, 3, n)
            row[at] = v
            out.append(row)
    out.append(np.full(n, -np.inf))
    return np.array(out)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype,tol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("n", [1, 5, 16, 17, 33, 65, 130, 1025])
def test_special_values_at_the_row_ends(name, dtype, tol, n):
    x = special_rows(n).astype(dtype)
    want = getattr(torch, name)(torch.tensor(x), -1).numpy()
    got = getattr(mt, name)(mt.tensor(x), -1).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    close(got, want, tol)


def ce_case(c, rows, inner, weighted, smoothing, ignore, dtype):
    shape = (rows, c) if inner is None else (rows, c, inner)
    x = (RNG.standard_normal(shape) * 3).astype(dtype)
    t = RNG.integers(0, c, (rows,) if inner is None else (rows, inner))
    if ignore and t.size > 2:
        t.reshape(-1)[[0, t.size - 1]] = 1 if c > 1 else 0
    w = (RNG.random(c) + 0.5).astype(dtype) if weighted else None
    return x, t, w


@pytest.mark.parametrize("dtype,tol", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("c", [1, 2, 15, 16, 17, 65, 1000])
@pytest.mark.parametrize("inner", [None, 3])
def test_cross_entropy_rows_match_torch(dtype, tol, c, inner):
    for rows in (1, 9, 19):
        for weighted, smoothing, ignore in ((False, 0.0, False), (True, 0.2, True),
                                            (False, 0.1, True)):
            x, t, w = ce_case(c, rows, inner, weighted, smoothing, ignore, dtype)
            for reduction in ("mean", "none"):
                kw = dict(reduction=reduction, label_smoothing=smoothing,
                          ignore_index=1 if ignore else -100)
                tx = torch.tensor(x, requires_grad=True)
                mx = mt.tensor(x).requires_grad_(True)
                tl = torch.nn.functional.cross_entropy(
                    tx, torch.tensor(t), None if w is None else torch.tensor(w), **kw)
                ml = mt.nn.functional.cross_entropy(
                    mx, mt.tensor(t), None if w is None else mt.tensor(w), **kw)
                close(ml.detach().numpy(), tl.detach().numpy(), tol * 10)
                tl.sum().backward()
                ml.sum().backward()
                close(mx.grad.numpy(), tx.grad.numpy(), tol * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_special_logits(dtype):
    n = 17
    x = special_rows(n).astype(dtype)
    t = np.arange(len(x)) % n
    tl = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t), reduction="none")
    ml = mt.nn.functional.cross_entropy(mt.tensor(x), mt.tensor(t), reduction="none")
    got, want = ml.numpy(), tl.numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    close(got, want, 1e-5)


SCRIPT = r"""
import json, sys, numpy as np, minitorch as mt
cases = json.loads(sys.argv[1])
out = []
for name, rows, n, seed in cases:
    x = np.random.default_rng(seed).standard_normal((rows, n)).astype(np.float32) * 4
    mx = mt.tensor(x).requires_grad_(True)
    if name == "cross_entropy":
        t = mt.tensor(np.arange(rows) % n)
        y = mt.nn.functional.cross_entropy(mx, t, reduction="none")
    else:
        y = getattr(mt, name)(mx, -1)
    y.backward(mt.tensor(np.random.default_rng(seed + 1000).standard_normal(y.shape)
                         .astype(np.float32)))
    out.append([y.detach().numpy().tolist(), mx.grad.numpy().tolist()])
print(json.dumps(out))
"""


def test_eight_lane_path_matches_torch():
    shapes = [(9, n) for n in range(1, 41)] + [(19, 17), (3, 63), (3, 65), (2, 130),
                                               (2, 1000), (2, 1025)]
    cases = [[name, rows, n, k] for k, (name, rows, n) in enumerate(
        [(nm, r, n) for nm in ("softmax", "log_softmax", "cross_entropy") for r, n in shapes])]
    env = dict(os.environ, MINITORCH_NO_AVX512="1")
    res = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(cases)], env=env,
                         capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(mt.__file__))))
    for (name, rows, n, seed), (y, g) in zip(cases, json.loads(res.stdout)):
        x = np.random.default_rng(seed).standard_normal((rows, n)).astype(np.float32) * 4
        tx = torch.tensor(x, requires_grad=True)
        if name == "cross_entropy":
            ty = torch.nn.functional.cross_entropy(tx, torch.tensor(np.arange(rows) % n),
                                                   reduction="none")
        else:
            ty = getattr(torch, name)(tx, -1)
        ty.backward(torch.tensor(np.random.default_rng(seed + 1000).standard_normal(
            tuple(ty.shape)).astype(np.float32)))
        close(y, ty.detach().numpy(), 2e-6)
        close(g, tx.grad.numpy(), 2e-5)
