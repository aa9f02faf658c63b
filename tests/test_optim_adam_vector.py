"""The fused Adam/AdamW step on parameter sizes that exercise its vector body
(8 or 16 float32 lanes on x86-64) and its scalar tail: against torch.optim on
the same seeds, the two parts against each other bit for bit, and the 8-lane
path (MINITORCH_NO_AVX512=1, in a subprocess) against this process's."""
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from minitorch import optim

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [1, 7, 33, 1000]
CONFIGS = [
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, betas=(0.3, 0.5), amsgrad=True, maximize=True, weight_decay=0.2)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.0, amsgrad=True)),
    ("AdamW", dict(lr=0.02, betas=(0.6, 0.9), weight_decay=0.3, amsgrad=True, maximize=True)),
]
DTYPES = {"float32": (np.float32, 2e-6), "float64": (np.float64, 1e-13)}


def arrays(sizes, np_dtype, steps, seed):
    """Initial values and per-step gradients; some gradients are zero, so the
    amsgrad maximum keeps its old value in some lanes and not in others."""
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(n).astype(np_dtype) for n in sizes]
    grads = []
    for s in range(steps):
        step = [rng.standard_normal(n).astype(np_dtype) * (1 + s) for n in sizes]
        if s % 2:
            for g in step:
                g[::3] = 0
        grads.append(step)
    return inits, grads


def run_mt(name, kw, inits, grads):
    ps = [mt.nn.Parameter(mt.tensor(x)) for x in inits]
    opt = getattr(optim, name)(ps, **kw)
    for step in grads:
        for p, g in zip(ps, step):
            p.grad = mt.tensor(g)
        opt.step()
    return ps, opt


def state_arrays(ps, opt):
    """Each parameter's values, then its state buffers in torch's key order."""
    out = []
    for p in ps:
        out.append(p.detach().numpy())
        for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            if key in opt.state[p]:
                out.append(opt.state[p][key].numpy())
    return out


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
@pytest.mark.parametrize("dt", list(DTYPES))
def test_matches_torch_on_odd_sizes(name, kw, dt):
    np_dtype, tol = DTYPES[dt]
    inits, grads = arrays(SIZES, np_dtype, steps=6, seed=len(name) + len(kw))
    ps, opt = run_mt(name, kw, inits, grads)
    tp = [torch.nn.Parameter(torch.tensor(x)) for x in inits]
    topt = getattr(torch.optim, name)(tp, **kw)
    for step in grads:
        for p, g in zip(tp, step):
            p.grad = torch.tensor(g)
        topt.step()
    want = []
    for p in tp:
        want.append(p.detach().numpy())
        for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            if key in topt.state[p]:
                want.append(topt.state[p][key].numpy())
    got = state_arrays(ps, opt)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np_dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
@pytest.mark.parametrize("dt", list(DTYPES))
def test_vector_body_and_scalar_tail_agree_bit_for_bit(name, kw, dt):
    # One 40-element parameter goes mostly through the vector body; forty
    # 1-element ones go through the scalar loop alone.
    np_dtype, _ = DTYPES[dt]
    inits, grads = arrays([40], np_dtype, steps=5, seed=3)
    whole = state_arrays(*run_mt(name, kw, inits, grads))
    split = state_arrays(*run_mt(name, kw, [x.reshape(40, 1)[i] for x in inits for i in range(40)],
                                 [[g.reshape(40, 1)[i] for g in step for i in range(40)]
                                  for step in grads]))
    per_param = len(whole)
    for j in range(per_param):
        joined = np.concatenate([split[i * per_param + j] for i in range(40)])
        assert joined.tobytes() == whole[j].tobytes()


def digest():
    """A hash of every config's final float32 and float64 parameters and state."""
    h = hashlib.sha256()
    for name, kw in CONFIGS:
        for dt in DTYPES:
            inits, grads = arrays(SIZES + [17, 100003], DTYPES[dt][0], steps=4, seed=7)
            for a in state_arrays(*run_mt(name, kw, inits, grads)):
                h.update(a.tobytes())
    return h.hexdigest()


def test_8_lane_path_gives_the_same_bits():
    env = dict(os.environ, MINITORCH_NO_AVX512="1")
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(mt.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_root, HERE] + env.get("PYTHONPATH", "").split(os.pathsep))
    r = subprocess.run([sys.executable, "-c", "import test_optim_adam_vector as t; print(t.digest())"],
                       env=env, cwd=HERE, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == digest()
