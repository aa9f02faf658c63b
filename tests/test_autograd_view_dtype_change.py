"""Views of another dtype than their base's (view_as_real, view_as_complex)
changed in place: such a view has no as_strided form over its base, so its
history after the change replays the ops that made it; compared with torch,
including torch's handling of an in-place view op on such a view (the view
replays without it, pytorch#49825). Without view replay on, torch names the
history of a chain of ops after the view_as_real/view_as_complex in it
AsStridedBackward0 (it replays that op then an as_strided), ours after the
chain's last op: the names are compared where the two agree."""
import pytest

from side_by_side import same, val

torch = pytest.importorskip("torch")

# (base dtype name, base shape, view maker, in-place view op or None)
CASES = {
    "real": ("complex64", (3, 3), lambda L, a: L.view_as_real(a), None),
    "real_t": ("complex64", (3, 3), lambda L, a: L.view_as_real(a).transpose(0, 1), None),
    "real_t_rect": ("complex128", (2, 4), lambda L, a: L.view_as_real(a).transpose(0, 1), None),
    "real_sel": ("complex64", (3, 4), lambda L, a: L.view_as_real(a).select(2, 1), None),
    "real_chain": ("complex128", (2, 3),
                   lambda L, a: L.view_as_real(a).permute(2, 0, 1).unsqueeze(0), None),
    "complex": ("float32", (4, 2), lambda L, a: L.view_as_complex(a), None),
    "complex_t": ("float64", (2, 3, 2), lambda L, a: L.view_as_complex(a).t(), None),
    "real_transpose_": ("complex64", (3, 3), lambda L, a: L.view_as_real(a), "transpose_"),
    "real_t_": ("complex128", (2, 2), lambda L, a: L.view_as_real(a)[:, :, 0], "t_"),
}


def as_plain(t):
    """A tensor's values as plain data, a complex one's as its real and imaginary parts."""
    return (val(t.real), val(t.imag)) if t.is_complex() else val(t)


@pytest.mark.parametrize("replay", [True, False])
@pytest.mark.parametrize("change", ["view", "base"])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_grad_after_in_place_change(case, change, replay):
    dtype, shape, make, inplace_view = case

    def scenario(L):
        n = 1
        for s in shape:
            n *= s
        start = (L.arange(float(n)).reshape(shape) / 8).to(getattr(L, dtype))
        x = (start + (1j if start.is_complex() else 0)).detach().requires_grad_()
        with L.autograd._force_original_view_tracking(replay):
            base = x.clone()
            out = make(L, base)
            if inplace_view:
                args = (0, 1) if inplace_view == "transpose_" else ()
                getattr(out, inplace_view)(*args)
            if change == "view":
                out.mul_(2)
            else:
                base.mul_(3)
        name = type(out.grad_fn).__name__
        if not replay and name in ("AsStridedBackward0", "TransposeBackward0", "SelectBackward0",
                                   "UnsqueezeBackward0", "TBackward0"):
            name = "a chain"
        w = L.arange(float(out.numel())).reshape(out.shape).to(out.dtype)
        loss = (out * w).sum()
        (loss.abs() if loss.is_complex() else loss).backward()
        return name, as_plain(x.grad)
    same(torch, scenario)
