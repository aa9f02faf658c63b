"""The normalization kernels (csrc/kernels/norm.c) against torch: layer_norm,
rms_norm, group_norm, batch_norm and instance_norm values, input/weight/bias
gradients, running statistics, gradcheck and gradgradcheck in float64, odd and
empty shapes, non-contiguous inputs, half types and float32 accuracy."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(1234)
DT = {np.float32: (mt.float32, torch.float32), np.float64: (mt.float64, torch.float64)}


def pair(a, requires_grad=True):
    m = mt.tensor(a)
    t = torch.tensor(a)
    if requires_grad:
        m.requires_grad_(True)
        t.requires_grad_(True)
    return m, t


def close(m, t, tol):
    assert tuple(m.shape) == tuple(t.shape)
    np.testing.assert_allclose(m.detach().float().numpy() if m.dtype in (mt.float16, mt.bfloat16)
                               else m.detach().numpy(),
                               t.detach().float().numpy() if t.dtype in (torch.float16,
                                                                          torch.bfloat16)
                               else t.detach().numpy(), **tol)


def tol_of(dtype):
    return {"rtol": 2e-4, "atol": 2e-4} if dtype == np.float32 else {"rtol": 1e-10,
                                                                      "atol": 1e-10}


def run_both(fm, ft, arrays, dtype, grad=True):
    """Calls fm on minitorch tensors and ft on torch ones made from arrays (None
    stays None), backward of a random grad; compares outputs and grads."""
    ms, ts = [], []
    for a in arrays:
        if a is None:
            ms.append(None)
            ts.append(None)
        else:
            m, t = pair(a.astype(dtype))
            ms.append(m)
            ts.append(t)
    om, ot = fm(*ms), ft(*ts)
    close(om, ot, tol_of(dtype))
    if grad and om.numel():
        g = RNG.standard_normal(tuple(om.shape)).astype(dtype)
        om.backward(mt.tensor(g))
        ot.backward(torch.tensor(g))
        for m, t in zip(ms, ts):
            if m is not None:
                close(m.grad, t.grad, tol_of(dtype))
    return ms, ts


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 5])
@pytest.mark.parametrize("d", [1, 3, 17, 1000, 4097])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_matches_torch(dtype, rows, d, affine):
    x = RNG.standard_normal((rows, d)) * 3 + 1
    w = RNG.standard_normal(d) if affine != "none" else None
    b = RNG.standard_normal(d) if affine == "both" else None
    run_both(lambda x, w, b: F.layer_norm(x, [d], w, b),
             lambda x, w, b: TF.layer_norm(x, [d], w, b), [x, w, b], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 6])
@pytest.mark.parametrize("d", [1, 3, 17, 1000, 4097])
@pytest.mark.parametrize("weighted", [True, False])
def test_rms_norm_matches_torch(dtype, rows, d, weighted):
    x = RNG.standard_normal((rows, d))
    w = RNG.standard_normal(d) if weighted else None
    run_both(lambda x, w: F.rms_norm(x, [d], w, 1e-5),
             lambda x, w: TF.rms_norm(x, [d], w, 1e-5), [x, w], dtype)


def test_multi_dim_normalized_shape_and_non_contiguous():
    x = RNG.standard_normal((4, 3, 5, 6))
    w, b = RNG.standard_normal((5, 6)), RNG.standard_normal((5, 6))
    run_both(lambda x, w, b: F.layer_norm(x.transpose(0, 1), [5, 6], w, b),
             lambda x, w, b: TF.layer_norm(x.transpose(0, 1), [5, 6], w, b), [x, w, b],
             np.float64)
    run_both(lambda x, w: F.rms_norm(x[:, ::2].transpose(2, 3), [6, 5], w.T),
             lambda x, w: TF.rms_norm(x[:, ::2].transpose(2, 3), [6, 5], w.T), [x, w],
             np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, groups", [((2, 6, 5, 7), 3), ((3, 4), 2), ((1, 8, 17), 8),
                                           ((2, 4, 1), 1), ((0, 4, 3), 2), ((2, 32, 9, 9), 32)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_matches_torch(dtype, shape, groups, affine):
    c = shape[1]
    x = RNG.standard_normal(shape) * 2 - 1
    w = RNG.standard_normal(c) if affine else None
    b = RNG.standard_normal(c) if affine else None
    run_both(lambda x, w, b: F.group_norm(x, groups, w, b),
             lambda x, w, b: TF.group_norm(x, groups, w, b), [x, w, b], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(8, 3), (4, 5, 7), (3, 4, 5, 6), (2, 3, 1, 1), (5, 1, 17)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training_matches_torch(dtype, shape, affine):
    c = shape[1]
    w = RNG.standard_normal(c) if affine else None
    b = RNG.standard_normal(c) if affine else None
    rm_m, rv_m = mt.zeros(c, dtype=DT[dtype][0]), mt.ones(c, dtype=DT[dtype][0])
    rm_t, rv_t = torch.zeros(c, dtype=DT[dtype][1]), torch.ones(c, dtype=DT[dtype][1])
    for step in range(3):
        x = RNG.standard_normal(shape) * (step + 1) + step
        run_both(lambda x, w, b: F.batch_norm(x, rm_m, rv_m, w, b, True, 0.3, 1e-4),
                 lambda x, w, b: TF.batch_norm(x, rm_t, rv_t, w, b, True, 0.3, 1e-4),
                 [x, w, b], dtype)
        close(rm_m, rm_t, tol_of(dtype))
        close(rv_m, rv_t, tol_of(dtype))
    # eval on the running statistics
    x = RNG.standard_normal(shape)
    run_both(lambda x, w, b: F.batch_norm(x, rm_m, rv_m, w, b, False, 0.3, 1e-4),
             lambda x, w, b: TF.batch_norm(x, rm_t, rv_t, w, b, False, 0.3, 1e-4),
             [x, w, b], dtype)
    close(rm_m, rm_t, tol_of(dtype))


def test_batch_norm_without_running_stats_and_non_contiguous():
    x = RNG.standard_normal((6, 4, 5))
    run_both(lambda x: F.batch_norm(x.transpose(0, 2), None, None, training=True),
             lambda x: TF.batch_norm(x.transpose(0, 2), None, None, training=True), [x],
             np.float64)
    for call in (lambda f: f.batch_norm(mt_or_torch(f).ones(4, 3), None, None),
                 lambda f: f.batch_norm(mt_or_torch(f).ones(4, 3), None, None, training=True,
                                        eps=0.0)):
        with pytest.raises(Exception) as em:
            call(F)
        with pytest.raises(Exception) as et:
            call(TF)
        assert type(em.value) is type(et.value) and str(em.value) == str(et.value)
    run_both(lambda x: F.batch_norm(x[::2], None, None, training=True),
             lambda x: TF.batch_norm(x[::2], None, None, training=True), [x], np.float64)


def test_batch_norm_module_steps_and_version():
    m, t = mt.nn.BatchNorm2d(3, momentum=None), torch.nn.BatchNorm2d(3, momentum=None)
    for step in range(4):
        x = RNG.standard_normal((4, 3, 5, 5)).astype(np.float32) + step
        close(m(mt.tensor(x)), t(torch.tensor(x)), tol_of(np.float32))
    close(m.running_mean, t.running_mean, tol_of(np.float32))
    close(m.running_var, t.running_var, tol_of(np.float32))
    before = m.running_mean._version
    m(mt.tensor(x)), t(torch.tensor(x))
    assert m.running_mean._version > before
    m.eval(), t.eval()
    close(m(mt.tensor(x)), t(torch.tensor(x)), tol_of(np.float32))


def test_batch_norm_empty_batch_keeps_running_stats():
    rm, rv = mt.zeros(3), mt.ones(3)
    w, b = mt.tensor([2.0, 3.0, 4.0]), mt.tensor([1.0, 1.0, 1.0])
    out = F.batch_norm(mt.zeros(0, 3, 4), rm, rv, w, b, True)
    assert tuple(out.shape) == (0, 3, 4)
    assert rm.tolist() == [0, 0, 0] and rv.tolist() == [1, 1, 1]


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_matches_torch(use_input_stats):
    c = 4
    w, b = RNG.standard_normal(c), RNG.standard_normal(c)
    rm_m, rv_m = mt.zeros(c, dtype=mt.float64), mt.ones(c, dtype=mt.float64) * 2
    rm_t, rv_t = torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64) * 2
    for step in range(3):
        x = RNG.standard_normal((3, c, 5, 6)) + step
        run_both(lambda x, w, b: F.instance_norm(x, rm_m, rv_m, w, b, use_input_stats, 0.2),
                 lambda x, w, b: TF.instance_norm(x, rm_t, rv_t, w, b, use_input_stats, 0.2),
                 [x, w, b], np.float64)
        close(rm_m, rm_t, tol_of(np.float64))
        close(rv_m, rv_t, {"rtol": 1e-9, "atol": 1e-9})


def f64(*shape):
    return mt.tensor(RNG.standard_normal(shape), dtype=mt.float64, requires_grad=True)


@pytest.mark.parametrize("name, fn, shapes", [
    ("layer_norm", lambda x, w, b: F.layer_norm(x, [5], w, b), [(3, 5), (5,), (5,)]),
    ("layer_norm_plain", lambda x: F.layer_norm(x, [2, 3]), [(2, 2, 3)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, [4], w), [(3, 4), (4,)]),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    ("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, True), [(4, 3, 2), (3,),
                                                                            (3,)]),
    ("batch_norm_eval", lambda x, w, b: F.batch_norm(x, mt.zeros(3, dtype=mt.float64),
                                                     mt.ones(3, dtype=mt.float64), w, b),
     [(4, 3, 2), (3,), (3,)]),
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [(2, 3, 4), (3,),
                                                                             (3,)]),
])
def test_gradcheck_and_gradgradcheck(name, fn, shapes):
    inputs = [f64(*s) for s in shapes]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("mdt, tdt", [(mt.float16, torch.float16), (mt.bfloat16, torch.bfloat16)])
def test_half_types(mdt, tdt):
    tol = {"rtol": 2e-2, "atol": 2e-2} if mdt == mt.float16 else {"rtol": 5e-2, "atol": 5e-2}
    x = RNG.standard_normal((4, 8, 6)).astype(np.float32)
    w, b = RNG.standard_normal(6).astype(np.float32), RNG.standard_normal(6).astype(np.float32)
    g = RNG.standard_normal((4, 8, 6)).astype(np.float32)
    cases = [
        (lambda f, x, w, b: f.layer_norm(x, [6], w, b), True),
        (lambda f, x, w, b: f.rms_norm(x, [6], w), True),
        (lambda f, x, w, b: f.group_norm(x.transpose(1, 2), 2, w, b), True),
        (lambda f, x, w, b: f.batch_norm(x.transpose(1, 2), None, None, w, b, True), True),
    ]
    for fn, _ in cases:
        ms = [mt.tensor(a).to(mdt).requires_grad_(True) for a in (x, w, b)]
        ts = [torch.tensor(a).to(tdt).requires_grad_(True) for a in (x, w, b)]
        om, ot = fn(F, *ms), fn(TF, *ts)
        assert om.dtype == mdt
        close(om, ot, tol)
        om.backward(mt.tensor(g).to(mdt).reshape(om.shape))
        ot.backward(torch.tensor(g).to(tdt).reshape(ot.shape))
        for m, t in zip(ms, ts):
            assert (m.grad is None) == (t.grad is None)
            if t.grad is None:
                continue
            assert m.grad.dtype == mdt
            close(m.grad, t.grad, {"rtol": tol["rtol"] * 5, "atol": tol["atol"] * 5})


def test_float32_accuracy_is_at_least_torchs():
    # a large offset and a long row: the float32 statistics must not lose the
    # variance to cancellation or to long sums
    x = RNG.standard_normal((8, 40000)) * 0.01 + 300.0
    ref = TF.layer_norm(torch.tensor(x), [40000]).numpy()
    ours = F.layer_norm(mt.tensor(x.astype(np.float32)), [40000]).numpy()
    theirs = TF.layer_norm(torch.tensor(x.astype(np.float32)), [40000]).numpy()
    assert np.abs(ours - ref).max() <= max(2 * np.abs(theirs - ref).max(), 1e-4)
    xb = RNG.standard_normal((64, 3, 50, 50)) * 0.1 + 50.0
    ref = TF.batch_norm(torch.tensor(xb), None, None, training=True).numpy()
    ours = F.batch_norm(mt.tensor(xb.astype(np.float32)), None, None, training=True).numpy()
    theirs = TF.batch_norm(torch.tensor(xb.astype(np.float32)), None, None,
                           training=True).numpy()
    assert np.abs(ours - ref).max() <= max(2 * np.abs(theirs - ref).max(), 1e-4)


def test_threads_give_the_same_result():
    x = mt.tensor(RNG.standard_normal((512, 300)).astype(np.float32), requires_grad=True)
    w = mt.tensor(RNG.standard_normal(300).astype(np.float32), requires_grad=True)
    old = mt.get_num_threads()
    grads = []
    try:
        for n in (1, 2):
            mt.set_num_threads(n)
            x.grad = w.grad = None
            F.layer_norm(x, [300], w).pow(2).sum().backward()
            grads.append((x.grad.numpy().copy(), w.grad.numpy().copy()))
    finally:
        mt.set_num_threads(old)
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-4, atol=1e-4)


def test_grad_fn_names():
    x = mt.randn(2, 4, 3, requires_grad=True)
    assert type(F.layer_norm(x, [3]).grad_fn).__name__ == "NativeLayerNormBackward0"
    assert type(F.group_norm(x, 2).grad_fn).__name__ == "NativeGroupNormBackward0"
    assert type(F.batch_norm(x, None, None, training=True).grad_fn).__name__ == \
        "NativeBatchNormBackward0"
    assert type(F.rms_norm(x, [3]).grad_fn).__name__ == "MulBackward0"


@pytest.mark.parametrize("call", [
    lambda f, x: f.layer_norm(x, [5], f_ones(f, 4)),
    lambda f, x: f.layer_norm(x, [5], None, f_ones(f, 4)),
    lambda f, x: f.layer_norm(x, [4]),
    lambda f, x: f.rms_norm(x, [5], f_ones(f, 4)),
    lambda f, x: f.group_norm(x, 2, f_ones(f, 3)),
    lambda f, x: f.group_norm(x, 2, None, f_ones(f, 3)),
    lambda f, x: f.group_norm(x, 2, f_ones(f, 4), f_ones(f, 3)),
    lambda f, x: f.group_norm(x, 3),
])
def test_errors_match_torch(call):
    x = np.zeros((2, 4, 5), dtype=np.float32)
    with pytest.raises(Exception) as em:
        call(F, mt.tensor(x))
    with pytest.raises(Exception) as et:
        call(TF, torch.tensor(x))
    assert type(em.value) is type(et.value)
    assert str(em.value) == str(et.value)


@pytest.mark.parametrize("call", [
    lambda L, f: f.layer_norm(L.ones(2, 4, 3).double(), [3], L.ones(3), L.ones(3)),
    lambda L, f: f.layer_norm(L.ones(2, 4, 3), [3], L.ones(3).double(), None),
    lambda L, f: f.layer_norm(L.ones(2, 4, 3).half(), [3], L.ones(3).bfloat16(), None),
    lambda L, f: f.layer_norm(L.ones(2, 4, 3).long(), [3]),
    lambda L, f: f.group_norm(L.ones(2, 4, 3).double(), 2, L.ones(4), L.ones(4)),
    lambda L, f: f.group_norm(L.ones(2, 4, 3).long(), 2),
    lambda L, f: f.batch_norm(L.ones(2, 4, 3).double(), None, None, L.ones(4), None, True),
    lambda L, f: f.batch_norm(L.ones(2, 4, 3), None, None, L.ones(4).double(), None, True),
    lambda L, f: f.batch_norm(L.ones(2, 4, 3).long(), None, None, training=True),
    lambda L, f: f.rms_norm(L.ones(2, 4, 3).long(), [3]),
])
def test_dtype_errors_match_torch(call):
    with pytest.raises(Exception) as em:
        call(mt, F)
    with pytest.raises(Exception) as et:
        call(torch, TF)
    assert type(em.value) is type(et.value)
    assert str(em.value) == str(et.value)


def test_half_input_with_float_parameters():
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    w, b = RNG.standard_normal(5).astype(np.float32), RNG.standard_normal(5).astype(np.float32)
    om = F.layer_norm(mt.tensor(x).half(), [5], mt.tensor(w), mt.tensor(b))
    ot = TF.layer_norm(torch.tensor(x).half(), [5], torch.tensor(w), torch.tensor(b))
    assert om.dtype == mt.float16
    close(om, ot, {"rtol": 2e-2, "atol": 2e-2})


def mt_or_torch(f):
    return mt if f is F else torch


def f_ones(f, n):
    return mt.ones(n) if f is F else torch.ones(n)
