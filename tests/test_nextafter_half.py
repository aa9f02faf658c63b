"""nextafter on float16 and bfloat16 steps in the 16-bit type's own bits, as
torch's: every pair of edge values (signed zeros, subnormals, the smallest
normal, one, the largest finite value, the infinities, NaN) in both
directions, compared bit for bit with torch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _edges(dtype):
    info = torch.finfo(dtype)
    tiny_sub = info.smallest_normal * info.eps  # the smallest subnormal
    values = [0.0, -0.0, tiny_sub, -tiny_sub, info.smallest_normal - tiny_sub,
              info.smallest_normal, -info.smallest_normal, 1.0, -1.0, 3.0, info.max, -info.max,
              float("inf"), float("-inf"), float("nan")]
    return values


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nextafter_half_types_match_torch_bit_for_bit(dtype):
    values = _edges(getattr(torch, dtype))
    xs = [a for a in values for _ in values]
    ys = [b for _ in values for b in values]
    t = torch.nextafter(torch.tensor(xs, dtype=getattr(torch, dtype)),
                        torch.tensor(ys, dtype=getattr(torch, dtype)))
    m = mt.nextafter(mt.tensor(xs, dtype=getattr(mt, dtype)),
                     mt.tensor(ys, dtype=getattr(mt, dtype)))
    assert m.dtype == getattr(mt, dtype)
    t_bits = t.view(torch.int16).numpy()
    m_bits = m.view(mt.int16).numpy()
    nan = np.isnan(t.float().numpy())
    np.testing.assert_array_equal(np.isnan(m.float().numpy()), nan)
    np.testing.assert_array_equal(m_bits[~nan], t_bits[~nan])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nextafter_half_types_in_place_strided_and_broadcast(dtype):
    x = [[0.0, 1.0, -2.5], [65504.0 if dtype == "float16" else 3.0, -0.0, 7.0]]

    def run(lib):
        a = lib.tensor(x, dtype=getattr(lib, dtype)).t()  # strided
        towards = lib.tensor([float("inf"), float("-inf"), 0.0], dtype=getattr(lib, dtype))
        r = lib.nextafter(a, towards.unsqueeze(-1))  # broadcast
        b = lib.tensor(x, dtype=getattr(lib, dtype))
        b.nextafter_(lib.tensor(float("-inf"), dtype=getattr(lib, dtype)))
        return r.float().tolist(), b.float().tolist()

    assert run(mt) == run(torch)


def test_nextafter_still_refuses_integers_as_torch():
    messages = []
    for lib in (torch, mt):
        with pytest.raises(NotImplementedError) as e:
            lib.nextafter(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64))
        messages.append(str(e.value))
    assert messages[1] == messages[0]
