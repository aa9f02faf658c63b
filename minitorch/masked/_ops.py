"""torch.masked's reductions and normalizations over strided tensors: each
replaces the masked-out elements of its input by the identity of the
underlying op (masked._mask) and runs that op, so gradients and forward
derivatives come from the ops it is written with."""
import minitorch as mt
import minitorch.nn.functional as F

from ._mask import SMALL_INTEGRAL, canonical_dims, input_mask, masked_input

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin",
           "std", "sum", "var"]

def _promoted(input, dtype):
    """The result dtype of a masked sum or prod: dtype, else input's, with
    bool and the integral types narrower than int64 taken to int64."""
    if dtype is not None:
        return dtype
    return mt.int64 if input.dtype in SMALL_INTEGRAL else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the elements of input over dim (every dim when None) whose
    mask element is True; masked-out elements count as 0. mask broadcasts
    to input and may not have more dims. Integral and bool inputs sum in
    int64 unless dtype is given."""
    dtype = _promoted(input, dtype)
    dims = canonical_dims(dim, input.ndim)
    return mt.sum(masked_input("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the elements of input over dim (every dim when None)
    whose mask element is True; masked-out elements count as 1. Integral
    and bool inputs multiply in int64 unless dtype is given."""
    dtype = _promoted(input, dtype)
    dims = canonical_dims(dim, input.ndim)
    result = masked_input("prod", input, mask).to(dtype=dtype)
    # one dim at a time, last first, so the remaining dims keep their numbers
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    """Cumulative sum of input along dim, masked-out elements counting as 0;
    the result has input's dtype unless dtype is given."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dims(dim, input.ndim)[0]
    return mt.cumsum(masked_input("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Cumulative product of input along dim, masked-out elements counting
    as 1; the result has input's dtype unless dtype is given."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dims(dim, input.ndim)[0]
    return mt.cumprod(masked_input("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Maximum of the elements of input over dim (every dim when None) whose
    mask element is True; masked-out elements count as -inf (the least
    value of an integral dtype). The result is cast to dtype when given."""
    dtype = input.dtype if dtype is None else dtype
    x = masked_input("amax", input, mask)
    return mt.amax(x, canonical_dims(dim, x.ndim), bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Minimum of the elements of input over dim (every dim when None) whose
    mask element is True; masked-out elements count as inf (the greatest
    value of an integral dtype). The result is cast to dtype when given."""
    dtype = input.dtype if dtype is None else dtype
    x = masked_input("amin", input, mask)
    return mt.amin(x, canonical_dims(dim, x.ndim), bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the maximum of input along dim (of the flattened input when
    None) among the elements whose mask element is True, as torch.masked
    gives it: in input's dtype unless dtype is given."""
    dtype = input.dtype if dtype is None else dtype
    return mt.argmax(masked_input("argmax", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the minimum of input along dim (of the flattened input when
    None) among the elements whose mask element is True, as torch.masked
    gives it: in input's dtype unless dtype is given."""
    dtype = input.dtype if dtype is None else dtype
    return mt.argmin(masked_input("argmin", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def _count_and_total(input, dim, keepdim, dtype, mask):
    """The number of masked-in elements over dim (int64) and their sum in
    dtype; with the mask broadcast once, for mean, var and std."""
    if mask is None:
        count = sum(mt.ones(input.shape, dtype=mt.int64), dim, keepdim=keepdim)
        return count, sum(input, dim, keepdim=keepdim, dtype=dtype), None
    inmask = input_mask(input, mask)
    count = inmask.sum(dim=dim, keepdim=bool(keepdim))
    return count, sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask), inmask


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the elements of input over dim (every dim when None) whose
    mask element is True; NaN where every element is masked out. The input
    or dtype must be floating point."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not _inexact(dtype):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    count, total, _ = _count_and_total(input, dim, keepdim, dtype, mask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the elements of input along dim whose mask element is True
    (the lower of the two middle values); NaN where every element is
    masked out, which an integral input refuses."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dims(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=mt.float32)
    output = mt.nanmedian(masked_input("median", input, mask), d, keepdim).values
    if is_float:
        return output
    if bool(mt.isnan(output).any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return output.to(dtype=dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp(x))) over dim (every dim when None) of the elements whose
    mask element is True; -inf where every element is masked out."""
    dtype = input.dtype if dtype is None else dtype
    dims = canonical_dims(dim, input.ndim)
    x = masked_input("logsumexp", input, mask)
    return mt.logsumexp(x, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)) elementwise, a masked-out element of
    either operand counting as -inf; each mask broadcasts to its operand."""
    dtype = input.dtype if dtype is None else dtype
    return mt.logaddexp(masked_input("logaddexp", input, input_mask),
                        masked_input("logaddexp", other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector norm of order ord over dim (every dim when None) of the
    elements whose mask element is True; masked-out elements count as 0
    (as inf for ord=-inf)."""
    dtype = input.dtype if dtype is None else dtype
    x = masked_input("norm", input, mask, ord)
    return mt.linalg.vector_norm(x, ord, canonical_dims(dim, input.ndim), bool(keepdim),
                                 dtype=dtype)


def _inexact(dtype):
    return dtype.is_floating_point or dtype.is_complex


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    if dtype is None:
        dtype = input.dtype if _inexact(input.dtype) else mt.float32
    compute_dtype = dtype if _inexact(dtype) else mt.float32
    count, total, inmask = _count_and_total(input, dim, True, dtype, mask)
    x = input - total / count
    # |x|^2 kept in the compute dtype: a complex variance is complex, as torch's
    squares = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(squares.shape)
    if correction != 0:
        real = compute_dtype.to_real() if compute_dtype.is_complex else compute_dtype
        count = mt.clamp_min(count.to(real) - float(correction), 0)
    output = (squares / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the elements of input over dim (every dim when None) whose
    mask element is True, dividing by their count less correction (1 unless
    unbiased=False or correction says otherwise, never below 0)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Standard deviation of the elements of input over dim (every dim when
    None) whose mask element is True: the square root of masked.var."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax along dim over the elements whose mask element is True; the
    masked-out ones get 0, and a slice masked out entirely gets NaN."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dims(dim, input.ndim)[0]
    return F.softmax(masked_input("amax", input, mask), d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax along dim over the elements whose mask element is True;
    the masked-out ones get -inf, and a slice masked out entirely NaN."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dims(dim, input.ndim)[0]
    return F.log_softmax(masked_input("amax", input, mask), d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin along dim over the elements whose mask element is True; the
    masked-out ones get 0, and a slice masked out entirely gets NaN."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dims(dim, input.ndim)[0]
    return F.softmin(masked_input("amin", input, mask), d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input divided by its masked norm of order ord along dim (at least
    eps); masked-out elements of the result are 0."""
    dtype = input.dtype if dtype is None else dtype
    x = masked_input("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return mt.divide(x, mt.maximum(nrm, nrm.new_full([], eps)))
