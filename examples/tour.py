"""A short tour of minitorch: the torch API, with a C engine underneath.

    python examples/tour.py
"""
import numpy as np

import minitorch as torch

print("minitorch", torch.__version__)

# Creation: from Python data, or filled with zeros/ones.
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("a =", a)
print("a.shape:", a.shape, "dtype:", a.dtype, "strides:", a.stride())
print("zeros:", torch.zeros(2, 2, dtype=torch.int64))
print("ones:", torch.ones(3))

# Views share storage with their base: no copy, only new sizes and strides.
v = a.view(3, 2)
print("a.view(3, 2) =", v)
print("a.t() =", a.t(), "contiguous:", a.t().is_contiguous())
print("a.transpose(0, 1).stride():", a.transpose(0, 1).stride())
print("a.reshape(6) =", a.reshape(6))
print("a.unsqueeze(0).shape:", a.unsqueeze(0).shape)
print("a.permute(1, 0).shape:", a.permute(1, 0).shape)
print("row expanded to 3x3:", torch.tensor([1.0, 2.0, 3.0]).expand(3, 3))

# Broadcasting arithmetic, with torch's type promotion.
col = torch.tensor([[10.0], [20.0]])
print("a + col =", a + col)
print("a * 2 =", a * torch.tensor(2.0))
print("int64 + float32 ->", (torch.ones(2, dtype=torch.int64) + torch.ones(2)).dtype)

# In-place ops write through views; clone() makes an independent copy.
c = a.clone()
c.t().mul_(torch.tensor(0.5))
print("clone halved through a view:", c, "original unchanged:", a.tolist())

# NumPy interop: from_numpy shares memory, .numpy() returns a view of the tensor.
arr = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(arr)
arr[0, 0] = 100.0
print("from_numpy sees NumPy's write:", t)
print("back to NumPy:", (t + a).numpy())


# Subclasses survive operations, as in torch.
class Tagged(torch.Tensor):
    pass


s = torch.ones(2).as_subclass(Tagged)
print("subclass result type:", type(s + s).__name__)
