"""View replay (autograd._force_original_view_tracking): a view whose base is
changed in place gets the op that made it replayed on the base's new history
instead of an as_strided view; compared with torch."""
import pytest

from side_by_side import same, val

torch = pytest.importorskip("torch")

# views made straight from a base, and whether torch replays them by name
VIEWS = {
    "view": lambda t: t.view(-1),
    "transpose": lambda t: t.transpose(0, 1),
    "select": lambda t: t.select(0, 1),
    "narrow": lambda t: t.narrow(1, 1, 2),
    "getitem": lambda t: t[1:, ::2],
    "unsqueeze": lambda t: t.unsqueeze(0),
    "permute": lambda t: t.permute(1, 0),
    "expand_view": lambda t: t[:1].expand(3, 3),
    "diagonal": lambda t: t.diagonal(),
    "chain": lambda t: t.t().unsqueeze(0),
}


@pytest.mark.parametrize("make", VIEWS.values(), ids=VIEWS.keys())
@pytest.mark.parametrize("replay", [True, False])
@pytest.mark.parametrize("change", ["view", "base"])
def test_history_after_an_in_place_change(make, replay, change):
    def scenario(L):
        x = (L.arange(9.0).reshape(3, 3) / 4).requires_grad_()
        with L.autograd._force_original_view_tracking(replay):
            base = x.clone()
            out = make(base)
            if change == "view" and not out.stride().count(0):
                out.mul_(2)
            else:
                base.mul_(3)
            name = type(out.grad_fn).__name__
        w = L.arange(float(out.numel())).reshape(out.shape)
        (out * w).sum().backward()
        return name, val(x.grad)
    same(torch, scenario)


def test_switch_as_function_context_and_decorator():
    def scenario(L):
        ag = L.autograd
        seen = [ag.is_view_replay_enabled()]
        with ag._force_original_view_tracking(True):
            seen.append(ag.is_view_replay_enabled())
            with ag._force_original_view_tracking(False):
                seen.append(L._C._is_view_replay_enabled())
            seen.append(ag.is_view_replay_enabled())
        seen.append(ag.is_view_replay_enabled())
        with ag._force_original_view_tracking(False):
            ag._force_original_view_tracking(True)
            seen.append(ag.is_view_replay_enabled())
        seen.append(ag.is_view_replay_enabled())

        @ag._force_original_view_tracking(True)
        def inside():
            return ag.is_view_replay_enabled()
        seen.append((inside(), ag.is_view_replay_enabled()))
        ag._force_original_view_tracking(True)
        seen.append(ag.is_view_replay_enabled())
        ag._force_original_view_tracking(False)
        seen.append(ag.is_view_replay_enabled())
        return seen
    same(torch, scenario)


@pytest.mark.parametrize("grad_mode", [True, False])
def test_in_place_view_op_drops_the_replay(grad_mode):
    # after t_() the op that made the view no longer makes it: the view's
    # history after its base changes reads the base through its geometry
    # (torch replays the stale op here and fails in backward)
    import minitorch as mt
    with mt.autograd._force_original_view_tracking(True):
        x = mt.arange(12.0).reshape(3, 4).requires_grad_()
        base = x.clone()
        v = base.t()
        with mt.set_grad_enabled(grad_mode):
            v.t_()
        base.mul_(2)
        name = type(v.grad_fn).__name__
    w = mt.arange(12.0).reshape(3, 4)
    (v * w).sum().backward()
    assert name == "AsStridedBackward0"
    assert tuple(v.shape) == (3, 4)
    assert x.grad.tolist() == (2 * w).tolist()
