"""minitorch.stft and istft against torch's: frame counts, hops, window
lengths, centering and padding modes, normalization, one- and two-sided
spectra, batches, round trips, gradients and errors."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CASES = [dict(n_fft=16), dict(n_fft=16, hop_length=5, win_length=12), dict(n_fft=15),
         dict(n_fft=16, normalized=True), dict(n_fft=16, onesided=False),
         dict(n_fft=8, hop_length=2), dict(n_fft=32, hop_length=32, win_length=32)]


def windows(k):
    wl = k.get("win_length", k["n_fft"])
    return mt.hann_window(wl, dtype=mt.float64), torch.hann_window(wl, dtype=torch.float64)


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.parametrize("shape", [(100,), (3, 77)])
@pytest.mark.parametrize("window", [True, False])
@pytest.mark.parametrize("pad_mode", ["reflect", "constant"])
def test_stft_matches_torch(kw, shape, window, pad_mode):
    x = np.random.default_rng(0).standard_normal(shape)
    wm, wt = windows(kw) if window else (None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.stft(torch.tensor(x), window=wt, pad_mode=pad_mode, return_complex=True,
                          **kw).numpy()
    got = mt.stft(mt.tensor(x), window=wm, pad_mode=pad_mode, return_complex=True, **kw)
    assert got.dtype == mt.complex128 and tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kw", [k for k in CASES if k.get("hop_length", 4) < k["n_fft"]])
@pytest.mark.parametrize("length", [None, 60, 130])
@pytest.mark.parametrize("shape", [(100,), (2, 90)])
def test_istft_matches_torch_and_inverts(kw, length, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    wm, wt = windows(kw)
    spec = torch.stft(torch.tensor(x), window=wt, return_complex=True, **kw)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = torch.istft(spec, window=wt, length=length, **kw).numpy()
    except RuntimeError as e:
        # the padded window's zero edges reached by length: both refuse
        assert "window overlap add min" in str(e)
        with pytest.raises(RuntimeError, match="window overlap add min"):
            mt.istft(mt.tensor(spec.numpy()), window=wm, length=length, **kw)
        return
    got = mt.istft(mt.tensor(spec.numpy()), window=wm, length=length, **kw)
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-9, atol=1e-9)
    if length is None and kw.get("hop_length", 4) <= 4:
        np.testing.assert_allclose(got.numpy(), x[..., :got.shape[-1]], atol=1e-9)


def test_complex_input_and_return_complex_false():
    x = np.random.default_rng(2).standard_normal(64) + 1j
    got = mt.stft(mt.tensor(x), 16, return_complex=True)
    want = torch.stft(torch.tensor(x), 16, return_complex=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-10)
    r = np.random.default_rng(3).standard_normal(64)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        got = mt.stft(mt.tensor(r), 16, return_complex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.stft(torch.tensor(r), 16, return_complex=False)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-10)


def test_gradients_match_torch():
    x = np.random.default_rng(4).standard_normal(50)
    xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    wm, wt = mt.hann_window(16, dtype=mt.float64), torch.hann_window(16, dtype=torch.float64)
    mt.stft(xm, 16, window=wm, return_complex=True).abs().sum().backward()
    torch.stft(xt, 16, window=wt, return_complex=True).abs().sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-9)
    s = torch.stft(torch.tensor(x), 16, window=wt, return_complex=True).numpy()
    sm, st = mt.tensor(s, requires_grad=True), torch.tensor(s, requires_grad=True)
    (mt.istft(sm, 16, window=wm) ** 2).sum().backward()
    (torch.istft(st, 16, window=wt) ** 2).sum().backward()
    np.testing.assert_allclose(sm.grad.numpy(), st.grad.resolve_conj().numpy(), rtol=1e-9,
                               atol=1e-9)


def test_method_forms():
    x = mt.randn(40, dtype=mt.float64)
    s = x.stft(8, return_complex=True)
    assert tuple(s.shape) == (5, 21)
    assert tuple(s.istft(8).shape) == (40,)


@pytest.mark.parametrize("call, message", [
    (lambda t: t.stft(t.ones(100), 16), "requires the return_complex parameter"),
    (lambda t: t.stft(t.ones(100), 16, hop_length=0, return_complex=True),
     "expected hop_length > 0, but got hop_length=0"),
    (lambda t: t.stft(t.ones(100), 16, win_length=20, return_complex=True),
     "expected 0 < win_length <= n_fft, but got win_length=20"),
    (lambda t: t.stft(t.ones(100), 16, window=t.ones(5), return_complex=True),
     "expected a 1D window tensor of size equal to win_length=16, but got window with size"),
    (lambda t: t.stft(t.ones(2, 3, 100), 16, return_complex=True), "expected a 1D or 2D tensor"),
    (lambda t: t.stft(t.ones(100, dtype=t.complex64), 16, onesided=True, return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    (lambda t: t.stft(t.ones(100), 200, center=False, return_complex=True),
     "expected 0 < n_fft < 100, but got n_fft=200"),
    (lambda t: t.istft(t.ones(9, 26), 16), "istft requires a complex-valued input tensor"),
    (lambda t: t.istft(t.ones(9, 26, dtype=t.complex64), 16, window=t.hann_window(16),
                       center=False), "window overlap add min"),
])
def test_errors(call, message):
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match=message):
            call(lib)


@pytest.mark.parametrize("n_fft,hop,center,pad_mode", [(50, None, True, "constant"),
                                                       (27, 10, True, "reflect"),
                                                       (16, 4, False, "constant")])
@pytest.mark.parametrize("complex_input", [False, True])
def test_complex_window_round_trip(n_fft, hop, center, pad_mode, complex_input):
    # istft divides by the overlap-added window squared (not its modulus squared), so
    # a complex window inverts as torch's does
    rng = np.random.default_rng(1)
    x = rng.standard_normal(300) + (1j * rng.standard_normal(300) if complex_input else 0)
    w = rng.random(n_fft) + 0.5 + 1j * rng.random(n_fft)
    kw = dict(n_fft=n_fft, hop_length=hop, center=center)
    got = mt.stft(mt.tensor(x), window=mt.tensor(w), pad_mode=pad_mode, **kw)
    want = torch.stft(torch.tensor(x), window=torch.tensor(w), pad_mode=pad_mode, **kw)
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), atol=1e-10)
    length = 300 if center else None
    back = mt.istft(got, window=mt.tensor(w), length=length, return_complex=True, **kw)
    ref = torch.istft(want, window=torch.tensor(w), length=length, return_complex=True, **kw)
    np.testing.assert_allclose(np.asarray(back.tolist()), ref.numpy(), atol=1e-9)


@pytest.mark.parametrize("n,hop,win", [(10, 3, 8), (12, 5, 5), (8, 2, 8), (16, 4, 10)])
def test_align_to_window(n, hop, win):
    x = np.random.default_rng(2).standard_normal(64)
    w = np.hanning(win)
    got = mt.stft(mt.tensor(x), n, hop, win, mt.tensor(w), center=False, return_complex=True,
                  align_to_window=True)
    want = torch.stft(torch.tensor(x), n, hop, win, torch.tensor(w), center=False,
                      return_complex=True, align_to_window=True)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), atol=1e-12)
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="align_to_window should only be set when "
                                               "center = false"):
            lib.stft(lib.rand(100), 10, center=True, return_complex=True, align_to_window=False)


def _warnings(fn):
    # torch raises these once per process unless warn_always is set
    was = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
    finally:
        torch.set_warn_always(was)
    return [str(w.message).split(" (Triggered internally")[0] for w in caught]


@pytest.mark.parametrize("case", ["stft_no_window", "istft_no_window", "istft_short"])
def test_warnings_match_torch(case):
    def run(lib):
        dt = lib.float64
        if case == "stft_no_window":
            return lambda: lib.stft(lib.ones(100, dtype=dt), 10, return_complex=True)
        if case == "istft_no_window":
            return lambda: lib.istft(lib.ones(51, 5, dtype=lib.complex128), n_fft=100, length=100)
        spec = lib.stft(lib.ones(2, 500, dtype=dt), 256, 254, 256, lib.hamming_window(256, dtype=dt),
                        pad_mode="constant", return_complex=True)
        return lambda: lib.istft(spec, 256, 254, 256, lib.hamming_window(256, dtype=dt),
                                 length=500)
    assert _warnings(run(mt)) == _warnings(run(torch))
    assert _warnings(run(mt))
