"""The packed small-row products behind the recurrent layers
(kernels/gemm/gemm_small.c): every instruction-set level (AVX-512, AVX2 + FMA, the
portable level, chosen by MINITORCH_SMALL_GEMM or MINITORCH_NO_AVX512 in a
fresh process) against torch, on sizes that leave partial row blocks, partial
strips and partial runs of strips; and the thread split over sequences, which must not change a
single bit."""
import textwrap

import numpy as np
import pytest

import minitorch as mt
from kernel_levels import LEVELS, run_at_level

torch = pytest.importorskip("torch")


# Run in a child so the kernel level is picked from the environment afresh.
CHILD = textwrap.dedent("""
    import numpy as np, torch, minitorch as mt

    def check(cls, kw, T, N, I, H, dtype, tol):
        rng = np.random.default_rng(T * 1000 + N * 100 + H)
        tm = getattr(torch.nn, cls)(I, H, **kw).to(dtype[1])
        mm = getattr(mt.nn, cls)(I, H, **kw).to(dtype[0])
        for name, p in tm.named_parameters():
            getattr(mm, name).data.copy_(mt.tensor(p.detach().numpy()))
        a = rng.standard_normal((T, N, I))
        tx = torch.tensor(a, dtype=dtype[1], requires_grad=True)
        mx = mt.tensor(a, dtype=dtype[0], requires_grad=True)
        to, ts = tm(tx)
        mo, ms = mm(mx)
        ts = ts if isinstance(ts, tuple) else (ts,)
        ms = ms if isinstance(ms, tuple) else (ms,)
        pairs = [(to, mo)] + list(zip(ts, ms))
        (to.sin().sum() + sum((s * s).sum() for s in ts)).backward()
        (mo.sin().sum() + sum((s * s).sum() for s in ms)).backward()
        pairs.append((tx.grad, mx.grad))
        pairs += [(p.grad, getattr(mm, n).grad) for n, p in tm.named_parameters()]
        for t, m in pairs:
            t, m = t.detach().numpy(), m.detach().numpy()
            scale = max(1.0, float(np.abs(t).max()))
            np.testing.assert_allclose(m, t, rtol=tol, atol=tol * scale)

    f32, f64 = (mt.float32, torch.float32), (mt.float64, torch.float64)
    for cls in ("RNN", "LSTM", "GRU"):
        # 9 rows: two full blocks of 4 and one of 1; H 40 and I 20 pad strips;
        # the gate strips fill 3 runs (RNN: a partial run of 3)
        check(cls, {}, 6, 9, 20, 40, f32, 1e-4)
        check(cls, {"num_layers": 2, "bidirectional": True}, 3, 5, 7, 13, f32, 1e-4)
        check(cls, {"bias": False}, 1, 1, 3, 16, f32, 1e-4)
        check(cls, {"batch_first": True}, 4, 6, 33, 70, f64, 1e-9)
    print("ok")
""")


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_layers_match_torch_at_every_kernel_level(level):
    run_at_level(CHILD, LEVELS[level])


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_thread_split_changes_nothing(cls):
    rng = np.random.default_rng(11)
    m = getattr(mt.nn, cls)(24, 48, num_layers=2, bidirectional=True)
    x = rng.standard_normal((20, 13, 24)).astype(np.float32)
    results = []
    before = mt.get_num_threads()
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            m.zero_grad()
            mx = mt.tensor(x, requires_grad=True)
            out, _ = m(mx)
            out.sin().sum().backward()
            results.append([out.detach().numpy(), mx.grad.numpy()]
                           + [p.grad.numpy() for p in m.parameters()])
    finally:
        mt.set_num_threads(before)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
