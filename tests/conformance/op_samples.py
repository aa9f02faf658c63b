"""An OpInfo's sample and reference inputs run on torch and on minitorch,
through every variant minitorch has (function, method, in-place, out=),
and the results compared. The number of samples is capped, taking a
deterministic spread of each generator, so the harness fits CI."""
import copy
import itertools
import types
import warnings

import numpy as np
import torch

from .convert import Unsupported, assert_same, dtype_name, to_mt, to_np
from .op_mapping import rebind

# per (OpInfo, dtype): the first SAMPLE_CAP sample inputs, and for OpInfos
# with their own reference inputs up to REFERENCE_CAP of the first
# REFERENCE_SPAN after them: those holding NaN or inf first (the extremal
# cases come in runs a fixed stride would step over), then non-contiguous
# ones, then every REFERENCE_STEP-th
SAMPLE_CAP = 6
REFERENCE_SPAN = 48
REFERENCE_CAP = 8
REFERENCE_STEP = 6

# torch.testing's defaults for float32, a little wider in rtol since
# minitorch's reductions and BLAS sum in another order
TOLERANCES = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-7, 1e-7),
              torch.complex64: (1e-5, 1e-5), torch.complex128: (1e-7, 1e-7)}


# OpInfos whose results hold eigenvectors (at this index), each fixed only up
# to a unit factor (a sign when real): the LAPACK build picks it (torch's MKL
# and minitorch's OpenBLAS pick differently), so minitorch's columns are
# first turned by the factor that gives each the phase torch's column has at
# torch's largest entry; a column that is no such multiple still disagrees.
EIGENVECTOR_RESULT = {"linalg.eig": 1, "linalg.eigh": 1}


def phase_aligned(got, want, index):
    """got (minitorch's results) with the eigenvector columns of got[index]
    turned to the phases of want[index]'s (torch's)."""
    import minitorch as mt
    g, w = to_np(got[index]), to_np(want[index])
    if w.size == 0 or g.shape != w.shape:
        return got
    row = np.abs(w).argmax(axis=-2)[..., None, :]
    gk, wk = np.take_along_axis(g, row, axis=-2), np.take_along_axis(w, row, axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where((gk != 0) & (wk != 0), (wk / np.abs(wk)) / (gk / np.abs(gk)), 1)
    turned = mt.from_numpy(np.ascontiguousarray((g * factor).astype(g.dtype)))
    return tuple(got[:index]) + (turned,) + tuple(got[index + 1:])


def torch_agrees(a, b):
    """a and b (both torch's) equal within the tolerance of b's dtype."""
    try:
        torch.testing.assert_close(a, b, rtol=result_tolerance(b)[0], atol=result_tolerance(b)[1],
                                   equal_nan=True)
    except AssertionError:
        return False
    return True


def tolerance(dtype):
    return TOLERANCES.get(dtype, (0.0, 0.0))


def result_tolerance(want):
    """The tolerance of the least precise floating dtype among the results
    (an int64 input may give a float32 result)."""
    floats = [t.dtype for t in tensors(want) if t.is_floating_point() or t.is_complex()]
    single = {torch.float32, torch.complex64} & set(floats)
    return tolerance(torch.float32 if single or not floats else floats[0])


def samples(op, dtype, requires_grad=False):
    """The capped, deterministic selection of op's inputs for dtype."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = list(itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=requires_grad),
                                    SAMPLE_CAP))
        if op.reference_inputs_func is not None and not requires_grad:
            out += _pick_references(list(itertools.islice(
                op.reference_inputs("cpu", dtype), SAMPLE_CAP, REFERENCE_SPAN)))
    return out


def _nonfinite(sample):
    return any(t.is_floating_point() and not bool(torch.isfinite(t).all())
               for t in tensors((sample.input, sample.args, sample.kwargs)))


def _noncontiguous(sample):
    return isinstance(sample.input, torch.Tensor) and not sample.input.is_contiguous()


def _pick_references(refs):
    order = [i for i, r in enumerate(refs) if _nonfinite(r)]
    order += [i for i, r in enumerate(refs) if _noncontiguous(r)]
    order += range(0, len(refs), REFERENCE_STEP)
    chosen = list(dict.fromkeys(order))[:REFERENCE_CAP]
    return [refs[i] for i in sorted(chosen)]


def tensors(obj):
    """The tensors inside obj, depth first, in a fixed order."""
    if isinstance(obj, torch.Tensor) or type(obj).__name__ == "Tensor" and hasattr(obj, "grad_fn"):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj for t in tensors(v)]
    if isinstance(obj, dict):
        return [t for k in obj for t in tensors(obj[k])]
    return []


def call_torch(fn, sample, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(sample.input, *sample.args, **sample.kwargs, **extra)


def call_mt(fn, sample, **extra):
    """fn (minitorch's) on a fresh minitorch copy of sample; returns
    (inputs as passed, result)."""
    args = to_mt((sample.input, sample.args, sample.kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return args, fn(args[0], *args[1], **args[2], **extra)


def is_random(op):
    """Outputs that depend on a random state or on uninitialised memory:
    compared by structure, shape and dtype only."""
    if op.has_nondeterministic_output:
        return True
    fn = op.op
    return isinstance(fn, types.FunctionType) and "wrapper_set_seed" in fn.__code__.co_names


def assert_meta(got, want, path="result"):
    """The structure, shapes and dtypes of got match want's."""
    gt, wt = tensors(got), tensors(want)
    assert len(gt) == len(wt), f"{path}: {len(gt)} tensors, expected {len(wt)}"
    for i, (g, w) in enumerate(zip(gt, wt)):
        assert tuple(g.shape) == tuple(w.shape), f"{path}[{i}]: shape {tuple(g.shape)} != " \
            f"{tuple(w.shape)}"
        assert dtype_name(g.dtype) == dtype_name(w.dtype), f"{path}[{i}]: dtype {g.dtype} != " \
            f"{w.dtype}"


class Tally:
    """Counts of what agreed, and the first few disagreements."""

    def __init__(self):
        self.total = self.agree = 0
        self.failures = []
        # variant -> [cases, agreeing], for the report's per-variant figures
        self.variants = {}

    def record(self, label, check, variant=None):
        try:
            check()
        except Unsupported:
            return
        except Exception as e:  # noqa: BLE001 - any difference is a finding
            self.total += 1
            if variant:
                self.variants.setdefault(variant, [0, 0])[0] += 1
            lines = [line.strip() for line in str(e).splitlines() if line.strip()]
            text = " / ".join(line for line in lines
                              if not line.startswith(("x:", "y:", "ACTUAL", "DESIRED", "array(")))
            self.failures.append(f"{label}: {type(e).__name__}: {text[:400]}")
            return
        self.total += 1
        self.agree += 1
        if variant:
            counts = self.variants.setdefault(variant, [0, 0])
            counts[0] += 1
            counts[1] += 1

    def raise_if_failed(self, what):
        if self.failures:
            shown = "\n  ".join(self.failures[:8])
            more = f"\n  ... and {len(self.failures) - 8} more" if len(self.failures) > 8 else ""
            raise AssertionError(f"{len(self.failures)} of {self.total} {what} disagree:\n  "
                                 f"{shown}{more}")
        if self.total == 0:
            raise Unsupported("no case torch runs on CPU that minitorch's types can hold")


def _out_like(want):
    if isinstance(want, torch.Tensor):
        return torch.empty_like(want)
    return type(want)(_out_like(w) for w in want)


def _mt_empty_like(want):
    import minitorch as mt
    if isinstance(want, torch.Tensor):
        return mt.empty(tuple(want.shape), dtype=to_mt(want.dtype))
    return type(want)(_mt_empty_like(w) for w in want)


def check_complex_values(mapped):
    """check_values at the complex dtypes the OpInfo lists."""
    return check_values(mapped, mapped.complex_dtypes)


def check_values(mapped, dtypes=None):
    """Every capped sample and reference input of every dtype (of
    mapped.dtypes, or of dtypes given), through function, method, in-place
    and out= variants; returns the Tally."""
    op = mapped.op
    random = is_random(op)
    tally = Tally()
    eigenvectors = EIGENVECTOR_RESULT.get(op.name)

    def same(got, want, path):
        if random:
            assert_meta(got, want, path)
        else:
            if eigenvectors is not None:
                got = phase_aligned(got, want, eigenvectors)
            assert_same(got, want, *result_tolerance(want), path)

    for dtype in mapped.dtypes if dtypes is None else dtypes:

        for i, sample in enumerate(samples(op, dtype)):
            label = f"{dtype_name(dtype)} sample {i}"
            try:
                want = call_torch(op.op, sample)
            except Exception:  # noqa: BLE001 - torch refuses: not a conformance case
                continue

            def function(sample=sample, want=want):
                same(call_mt(mapped.function, sample)[1], want, "function")
            tally.record(f"{label} function", function, "function")

            if op.method_variant is not None and isinstance(sample.input, torch.Tensor):
                def method(sample=sample, want=want):
                    assert mapped.method is not None, "no method variant"
                    same(call_mt(mapped.method, sample)[1], want, "method")
                tally.record(f"{label} method", method, "method")

            # writing in place into memory that several elements share is
            # undefined (torch checks it only where it can tell cheaply)
            if op.inplace_variant is not None and isinstance(sample.input, torch.Tensor) and \
                    torch._debug_has_internal_overlap(sample.input) == 0:
                target = strided_clone(sample.input)
                try:
                    call_torch(op.inplace_variant, _replace(sample, target))
                except Exception:  # noqa: BLE001 - torch refuses this in-place case
                    target = None
                if target is not None:
                    def inplace(sample=sample, target=target):
                        assert mapped.inplace is not None, "no in-place variant"
                        args, got = call_mt(mapped.inplace, sample)
                        assert got is args[0], "in-place variant did not return its input"
                        same(args[0], target, "in-place")
                    tally.record(f"{label} inplace", inplace, "inplace")

            if op.supports_out and not random and tensors(want) and \
                    all(isinstance(w, torch.Tensor) for w in tensors(want)):
                out = _out_like(want)
                try:
                    call_torch(op.op, sample, out=out)
                except Exception:  # noqa: BLE001 - torch refuses out= here
                    out = None
                if out is not None and not torch_agrees(out, want):
                    # torch's out= form disagrees with its own function form
                    # (2.13's fft.ihfft2 over one dim leaves out unwritten):
                    # the function's result is the reference
                    out = want
                if out is not None:
                    def out_variant(sample=sample, out=out):
                        mt_out = _mt_empty_like(out)
                        _, got = call_mt(mapped.function, sample, out=mt_out)
                        same(mt_out, out, "out=")
                        assert all(g is m for g, m in zip(tensors(got), tensors(mt_out))), \
                            "out= variant did not return out"
                    tally.record(f"{label} out=", out_variant, "out=")
    return tally


def strided_clone(t):
    """A copy of t with its strides and offset, as to_mt makes it, so an
    in-place call torch refuses on the sample (overlapping memory) is
    refused on the copy too."""
    base = t.detach()
    count = base.untyped_storage().nbytes() // max(base.element_size(), 1)
    flat = torch.as_strided(base, (count,), (1,), 0).clone()
    return flat.as_strided(tuple(base.shape), tuple(base.stride()), base.storage_offset())


def _replace(sample, new_input):
    s = copy.copy(sample)
    s.input = new_input
    return s


def process_fn(sample):
    """sample.output_process_fn_grad for minitorch's outputs."""
    fn = sample.output_process_fn_grad
    if isinstance(fn, types.FunctionType):
        return rebind(fn) or fn
    return fn
