"""torch.stft and torch.istft over minitorch.fft: frames cut with unfold,
windowed and transformed; the inverse transforms each frame back and
overlap-adds them (index_add) divided by the summed squared window, as
torch's SpectralOps. Gradients come from the ops they are made of."""
import warnings
from typing import Optional

from . import _C
from ._tensor import Tensor
from .overrides import composite

__all__ = ["stft", "istft"]

_f = _C._functions


_NO_WINDOW = {
    "stft": "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.",
    "istft": "A window was not provided. A rectangular window will be applied.Please provide "
             "the same window used by stft to make the inversion lossless.",
}


def _window(window, n_fft, win_length, like, name):
    """The window, or a rectangular one (with torch's warning), zero-padded on both sides to
    n_fft."""
    if window is None:
        warnings.warn(_NO_WINDOW[name] + "To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning,
                      stacklevel=3)
        window = _f["ones"]([win_length], dtype=like.real.dtype if like.is_complex()
                            else like.dtype)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{name}: expected a 1D window tensor of size equal to "
                           f"win_length={win_length}, but got window with size "
                           f"{list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _f["cat"]([window.new_zeros([left]), window,
                            window.new_zeros([n_fft - win_length - left])])
    return window


@composite(python_method=True)
def stft(input: Tensor, n_fft: int, hop_length: Optional[int] = None,
         win_length: Optional[int] = None, window: Optional[Tensor] = None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided: Optional[bool] = None,
         return_complex: Optional[bool] = None, align_to_window: Optional[bool] = None) -> Tensor:
    """The short-time Fourier transform of input (signal or batch of signals): one column of
    frequencies per frame of n_fft samples taken every hop_length samples; align_to_window
    (center=False only) starts each frame's window, not its n_fft samples, at the hop."""
    from .fft import fft, rfft
    from .nn.functional import pad
    if return_complex is None and not input.is_complex() and (
            window is None or not window.is_complex()):
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input.dim() not in (1, 2):
        raise RuntimeError("stft: expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if center:
        x = pad(x.unsqueeze(1), (n_fft // 2, n_fft // 2), mode=pad_mode).squeeze(1)
    elif align_to_window and 0 < win < n_fft:
        # the window sits (n_fft - win) // 2 into each frame: frames start that much earlier
        left = (n_fft - win) // 2
        x = pad(x, (left, n_fft - win - left))
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    w = _window(window, n_fft, win, x, "stft")
    complex_parts = x.is_complex() or w.is_complex()
    if onesided is None:
        onesided = not complex_parts
    elif onesided and complex_parts:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = x.unfold(-1, n_fft, hop) * w
    norm = "ortho" if normalized else "backward"
    if onesided:
        out = rfft(frames, norm=norm)
    else:
        out = fft(frames, norm=norm)
    out = out.transpose(-1, -2)
    if input.dim() == 1:
        out = out.squeeze(0)
    if return_complex is False:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.", UserWarning)
        return _f["view_as_real"](out.contiguous().resolve_conj())
    return out


@composite(python_method=True)
def istft(input: Tensor, n_fft: int, hop_length: Optional[int] = None,
          win_length: Optional[int] = None, window: Optional[Tensor] = None,
          center: bool = True, normalized: bool = False, onesided: Optional[bool] = None,
          length: Optional[int] = None, return_complex: bool = False) -> Tensor:
    """The inverse of stft: each frame transformed back, windowed and overlap-added, divided
    by the overlap-added squared window."""
    from .fft import ifft, irfft
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but "
                           f"got {input.dim()}")
    if not 0 < hop <= win:
        raise RuntimeError("istft: expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError("istft: expected 0 < win_length <= n_fft")
    x = input.unsqueeze(0) if input.dim() == 2 else input
    n_freq, n_frames = x.shape[-2], x.shape[-1]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided and n_fft // 2 + 1 != n_freq:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{n_freq}")
    if not onesided and n_fft != n_freq:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft when onesided=False, but got "
                           f"{n_freq}")
    w = _window(window, n_fft, win, x, "istft")
    norm = "ortho" if normalized else "backward"
    spec = x.transpose(-1, -2)
    if return_complex:
        if onesided:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = ifft(spec, n=n_fft, norm=norm)
    else:
        if w.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        frames = irfft(spec, n=n_fft, norm=norm) if onesided else ifft(spec, norm=norm).real
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    index = (_f["arange"](n_fft).unsqueeze(0)
             + hop * _f["arange"](n_frames).unsqueeze(1)).reshape(-1)
    batch = frames.shape[0]
    y = frames.new_zeros([batch, total]).index_add(1, index, frames.reshape(batch, -1))
    # the squared window, complex for a complex one: frames were multiplied by it twice
    envelope = w.new_zeros([total]).index_add(0, index, (w * w).expand(n_frames, n_fft)
                                              .reshape(-1))
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    end = min(end, total)
    y = y[:, start:end]
    envelope = envelope[start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError(f"istft: window overlap add min: {float(envelope.abs().min()):g}")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=3)
        y = _f["cat"]([y, y.new_zeros([batch, length - y.shape[-1]])], 1)
    return y.squeeze(0) if input.dim() == 2 else y
