"""Helpers the checkpoint tests share: arbitrary bit patterns of a dtype, a
tensor's raw bytes in either library, and a stream that cannot seek."""
import io

import numpy as np

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64"]


def random_bits(torch, dtype_name, shape, seed=0):
    """A torch tensor of arbitrary bit patterns of the dtype (NaN payloads
    and signed zeros included; bools 0 or 1)."""
    rng = np.random.default_rng(seed)
    dt = getattr(torch, dtype_name)
    n = int(np.prod(shape))
    if n == 0:
        return torch.empty(shape, dtype=dt)
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8)
    if dtype_name == "bool":
        raw &= 1
    return torch.from_numpy(raw.reshape(-1, dt.itemsize)).view(dt).reshape(shape)


def to_mt(t):
    """The minitorch copy of a torch tensor, bit for bit."""
    import minitorch as mt
    import torch

    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return mt.from_numpy(t.view(torch.int16).numpy().copy()).view(mt.bfloat16)
    return mt.from_numpy(t.numpy().copy())


def bits(t):
    """A tensor's values as raw bytes, for either library."""
    import minitorch as mt

    t = t.detach().contiguous()
    if t.dtype == mt.bfloat16:
        t = t.view(mt.int16)
    elif str(t.dtype) == "torch.bfloat16":
        import torch

        t = t.view(torch.int16)
    return t.numpy().tobytes()


class Unseekable(io.RawIOBase):
    """A readable stream of data that cannot seek, like a pipe."""

    def __init__(self, data):
        self.inner = io.BytesIO(data)

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, b):
        chunk = self.inner.read(len(b))
        b[:len(chunk)] = chunk
        return len(chunk)
