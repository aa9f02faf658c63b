"""Discrete Fourier transforms: fft of complex64 and rfft of float32 signals
at 1024, 4096, 2^20 and the prime 4099 (Bluestein), fft of a batch of short
complex64 rows, and fft2 of 256x256, 512x512 and 1000x1000 complex64
images, minitorch vs NumPy (pocketfft, in double) and PyTorch."""
import numpy as np

from data import array
from harness import trio

GROUP = "fft"
LENGTHS = (("1024", 1024), ("4096", 4096), ("2^20", 1 << 20), ("4099 (prime)", 4099))


def _signal(lib, shape, complex_input):
    a = array(lib, shape)
    if not complex_input:
        return a
    b = array(lib, shape[:-1] + (shape[-1] + 1,))[..., 1:]
    if lib is np:
        return (a + 1j * b).astype(np.complex64)
    return lib.complex(a, b.contiguous())


def _case(stmt, shape, complex_input):
    def setup(lib):
        return stmt, {"lib": lib, "x": _signal(lib, shape, complex_input)}
    return setup


# (name, statement, input is complex, shapes)
OPS = (
    ("fft complex64", "lib.fft.fft(x)", True, [(label, (n,)) for label, n in LENGTHS]),
    ("rfft float32", "lib.fft.rfft(x)", False, [(label, (n,)) for label, n in LENGTHS]),
    ("fft complex64", "lib.fft.fft(x)", True, [("batch 4096 of 64", (4096, 64))]),
    ("fft2 complex64", "lib.fft.fft2(x)", True,
     [("256x256", (256, 256)), ("512x512", (512, 512)), ("1000x1000", (1000, 1000))]),
)


def cases():
    out = []
    for name, stmt, complex_input, shapes in OPS:
        for label, shape in shapes:
            out.append(trio(GROUP, "%s %s" % (name, label), _case(stmt, shape, complex_input),
                            _case(stmt, shape, complex_input), target=1.0,
                            notes=["NumPy: numpy.fft (pocketfft, computes in double)"]))
    return out
