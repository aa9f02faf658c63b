"""Non-reentrant checkpoint refuses a recomputation that saves other tensors
than the forward did, as torch's: fewer, more (with early stop off), or of
another shape or dtype (``determinism_check="none"`` skips the metadata);
``debug=True`` or ``set_checkpoint_debug_enabled`` adds the operators each
run called. Both variants recompute in the autocast state of the forward."""
import logging

import pytest

from side_by_side import same

torch = pytest.importorskip("torch")

DEBUG = "You are seeing this error because you passed `debug=True` to checkpoint"


def first_then(orig, again):
    calls = [0]

    def fn(x):
        calls[0] += 1
        return orig(x) if calls[0] == 1 else again(x)
    return fn


RUNS = {
    "three": lambda x: x.sin().exp().sin(),
    "two": lambda x: x.sin().exp(),
    "two_wide": lambda x: x.expand(3, 2).sin().exp(),
    "two_double": lambda x: x.double().sin().exp(),
}


def recompute_outcome(L, orig, again, kwargs, early_stop, debug_ctx):
    """(error type, which of torch's sentences the message has), or None."""
    cp = L.utils.checkpoint
    x = L.tensor([[0.5, -1.0]], requires_grad=True)
    stop = cp.set_checkpoint_early_stop(early_stop)
    dbg = cp.set_checkpoint_debug_enabled(debug_ctx)
    # torch's debug mode logs each operator, records pytest's log capture
    # cannot format: no logging while the scenario runs
    logging.disable(logging.CRITICAL)
    try:
        with stop, dbg:
            out = cp.checkpoint(first_then(RUNS[orig], RUNS[again]), x, use_reentrant=False,
                                **kwargs)
        out.sum().backward()
    except RuntimeError as e:
        text = str(e)
        marks = ["A different number of tensors was saved", "trying to save more tensors",
                 "tensors have different metadata", DEBUG, "Tip: To see a more detailed"]
        return type(e).__name__, [m for m in marks if m in text]
    finally:
        logging.disable(logging.NOTSET)
    return None


CASES = [
    ("three", "two", {}, True, None),
    ("two", "three", {}, False, None),
    ("two", "three", {}, True, None),
    ("two", "two_wide", {}, True, None),
    ("two", "two_double", {}, True, None),
    ("two", "two_wide", {"determinism_check": "none"}, True, None),
    ("two", "two_wide", {"debug": True}, True, None),
    ("two", "two_wide", {}, True, True),
    ("two", "two_wide", {"debug": True}, True, False),
    ("three", "two", {"debug": True}, True, None),
    ("two", "two", {"debug": True}, True, None),
]


@pytest.mark.parametrize("orig,again,kwargs,early_stop,debug_ctx", CASES)
def test_recomputation_must_match(orig, again, kwargs, early_stop, debug_ctx):
    got = same(torch, recompute_outcome, orig, again, kwargs, early_stop, debug_ctx)
    debug = debug_ctx if debug_ctx is not None else kwargs.get("debug", False)
    if orig == again or kwargs.get("determinism_check") == "none" or (
            again == "three" and early_stop):
        assert got is None
    else:
        assert got[0] == "CheckpointError" and (DEBUG in got[1]) == debug


def test_determinism_check_values():
    import minitorch as mt
    cp = mt.utils.checkpoint
    with pytest.raises(ValueError, match=r"determinism_check should be one of \['default', "
                                         r"'none'\], but got strict"):
        cp.checkpoint(lambda x: x.sin(), mt.ones(2, requires_grad=True), use_reentrant=False,
                      determinism_check="strict")
    assert issubclass(cp.CheckpointError, RuntimeError)


def autocast_dtypes(L, reentrant, enabled):
    seen = []

    def f(x, y):
        h = L.mm(x, y)
        seen.append(h.dtype)
        return L.mm(h, y)

    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = L.tensor([[0.5, 0.0], [1.0, -1.0]], requires_grad=True)
    with L.autocast(device_type="cpu", dtype=L.bfloat16, enabled=enabled):
        out = L.utils.checkpoint.checkpoint(f, x, y, use_reentrant=reentrant).sum()
    out.backward()
    return [str(d).split(".")[-1] for d in seen], str(x.grad.dtype).split(".")[-1], \
        L.is_autocast_enabled("cpu")


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("enabled", [True, False])
def test_recompute_in_forward_autocast_state(reentrant, enabled):
    seen, grad_dtype, after = same(torch, autocast_dtypes, reentrant, enabled)
    assert seen == ["bfloat16" if enabled else "float32"] * 2
    assert grad_dtype == "float32" and after is False
