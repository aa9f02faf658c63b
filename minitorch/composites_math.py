"""Math functions torch itself writes over other ops (float_power, ldexp,
frexp, mvlgamma, addr, addbmm, cross, dist, renorm, isreal), written the same way
over minitorch's: their gradients, forward-mode derivatives and dtype rules
follow from the ops they are built of. Each dispatches __torch_function__
as a C op does."""
import math
import warnings
from typing import Optional, Union

from . import _C
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .broadcasting import broadcast_shapes, broadcast_tensors
from ._scalars_first import rewriter
from .overrides import composite

__all__ = ["float_power", "ldexp", "ldexp_", "frexp", "mvlgamma", "addr", "addbmm", "cross",
           "dist", "renorm", "isreal"]

_f = _C._functions


def _require_tensor(fn, arg, position, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def _into(out, result, fn):
    """result handed over through out= as torch's out variants do: out
    resized to the result's shape, its dtype one the result casts to."""
    if out is None:
        return result
    if not _C.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"{fn}: result type {result.dtype._scalar_name} can't be cast to the "
                           f"desired output type {out.dtype._scalar_name}")
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(result.shape)
    with no_grad():
        out.copy_(result)
    return out


def _float_power_dtype(*operands):
    """complex128 when an operand is complex, else float64: float_power's
    computing dtype."""
    complex_ = any(x.is_complex() if isinstance(x, Tensor) else isinstance(x, complex)
                   for x in operands)
    return _C.complex128 if complex_ else _C.float64


def _as_dtype(x, dtype):
    if isinstance(x, Tensor):
        return x.to(dtype)
    return complex(x) if dtype == _C.complex128 else float(x)


@composite()
def isreal(input: Tensor) -> Tensor:
    """True where an element has no imaginary part: everywhere for a real tensor."""
    _require_tensor("isreal", "input", 1, input)
    if not input.is_complex():
        return _f["ones_like"](input, dtype=_C.bool)
    return input.imag == 0


@composite()
def float_power(input: Union[Tensor, float], exponent: Union[Tensor, float], *,
                out: Optional[Tensor] = None) -> Tensor:
    """input ** exponent computed in float64 (complex128 when either is
    complex) whatever the operands' dtypes."""
    dtype = _float_power_dtype(input, exponent)
    if out is not None and out.dtype != dtype:
        raise RuntimeError(f"the output given to float_power has dtype "
                           f"{out.dtype._scalar_name} but the operation's result requires dtype "
                           f"{dtype._scalar_name}")
    return _f["pow"](_as_dtype(input, dtype), _as_dtype(exponent, dtype), out=out)


@composite(function=False)
def float_power_(self, exponent: Union[Tensor, float]) -> Tensor:
    """In place float_power: self must already have the computing dtype."""
    dtype = _float_power_dtype(self, exponent)
    if self.dtype != dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{self.dtype._scalar_name} but the operation's result requires dtype "
                           f"{dtype._scalar_name}")
    return self.pow_(_as_dtype(exponent, dtype))


@composite()
def ldexp(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """input * 2 ** other."""
    _require_tensor("ldexp", "input", 1, input)
    _require_tensor("ldexp", "other", 2, other)
    scale = _f["pow"](2.0, other)
    if out is not None:
        _check_ldexp_cast(input, scale, out)
    return _f["mul"](input, scale, out=out)


@composite()
def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    """In place ldexp."""
    _require_tensor("ldexp_", "other", 1, other)
    scale = _f["pow"](2.0, other)
    _check_ldexp_cast(input, scale, input)
    return input.mul_(scale)


def _check_ldexp_cast(input: Tensor, scale: Tensor, target: Tensor) -> None:
    """torch's refusal, in ldexp's name, of a result its target cannot hold."""
    result = _C.promote_types(input.dtype, scale.dtype)
    if not _C.can_cast(result, target.dtype):
        raise RuntimeError("ldexp can't be cast to the desired output type "
                           f"{target.dtype._scalar_name}")


_FrexpResult = _C._return_type("frexp", ("mantissa", "exponent"))


@composite()
def frexp(input: Tensor, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, the
    mantissa's magnitude in [0.5, 1) and the exponent int32; 0, infinities and
    NaN keep themselves with exponent 0. The exponent comes from log2, set
    right by one step where it rounded, and 2 ** -exponent is applied in two
    halves so that subnormal inputs scale without overflow."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with no_grad():
        a = input.abs()
        plain = (a == 0) | ~input.isfinite()
        e = _f["where"](plain, 1.0, a).log2().floor() + 1
        e = _f["where"](plain, 0.0, e)
        for _ in range(2):
            m = (a * _f["pow"](2.0, (-e / 2).floor())) * _f["pow"](2.0, -e - (-e / 2).floor())
            e = e + ((m >= 1) & ~plain).to(e.dtype) - ((m < 0.5) & ~plain).to(e.dtype)
        half = (-e / 2).floor()
        s1, s2 = _f["pow"](2.0, half), _f["pow"](2.0, -e - half)
    mantissa = _f["where"](plain, input, input * s1 * s2)
    exponent = e.to(_C.int32)
    if out is not None:
        _into(out[0], mantissa, "frexp")
        _into(out[1], exponent, "frexp")
        mantissa, exponent = out
    return _FrexpResult((mantissa, exponent))


@composite()
def mvlgamma(input: Tensor, p: int, *, out: Optional[Tensor] = None) -> Tensor:
    """The multivariate log-gamma of dimension p: the sum of lgamma(input -
    i / 2) for i < p, plus p (p - 1) / 4 log(pi)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.is_complex():
        # torch's sum builds its offsets with arange in input's dtype
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{input.dtype._scalar_name}'")
    if input.dtype == _C.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    halves = _f["arange"](-(p - 1) / 2, 0.5, 0.5, dtype=x.dtype)
    r = (x.unsqueeze(-1) + halves).lgamma().sum(-1) + p * (p - 1) / 4 * math.log(math.pi)
    return _into(out, r, "mvlgamma")


@composite(function=False)
def mvlgamma_(self, p: int) -> Tensor:
    """In place mvlgamma."""
    r = mvlgamma(self, p)
    if not _C.can_cast(r.dtype, self.dtype):
        raise RuntimeError(f"result type {r.dtype._scalar_name} can't be cast to the desired "
                           f"output type {self.dtype._scalar_name}")
    return self.copy_(r)


def _check_scalars(result_dtype, beta, alpha):
    """addr's refusals of scalars the result's dtype cannot hold, as torch's."""
    integral = not (result_dtype.is_floating_point or result_dtype.is_complex)
    for name, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, bool):
            if result_dtype != _C.bool:
                raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        elif isinstance(v, (float, complex)) and integral:
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                               "floating point number.")
        elif isinstance(v, complex) and not result_dtype.is_complex:
            raise RuntimeError(f"value cannot be converted to type {result_dtype._cpp_name} "
                               "without overflow")


@composite(deprecated=lambda method: rewriter("addr", ("vec1", "vec2"), method))
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Union[int, float] = 1,
         alpha: Union[int, float] = 1, out: Optional[Tensor] = None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2); input is ignored when beta
    is 0 (its NaN do not pass)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    prod = _f["outer"](vec1, vec2)
    _check_scalars(_C.promote_types(input.dtype, prod.dtype), beta, alpha)
    if prod.dtype == _C.bool and input.dtype == _C.bool:
        r = prod if alpha else _f["zeros_like"](prod)
        if beta:
            r = r | input
        return _into(out, r.expand(broadcast_shapes(input.shape, prod.shape)), "addr")
    scaled = prod if alpha == 1 else prod * alpha
    if beta == 0:
        shape = broadcast_shapes(input.shape, prod.shape)
        dtype = _C.promote_types(input.dtype, scaled.dtype)
        return _into(out, scaled.to(dtype).expand(shape).clone(), "addr")
    return _f["add"](input if beta == 1 else input * beta, scaled, out=out)


@composite(function=False, deprecated=lambda method: rewriter("addr_", ("vec1", "vec2"), method))
def addr_(self, vec1: Tensor, vec2: Tensor, *, beta: Union[int, float] = 1,
          alpha: Union[int, float] = 1) -> Tensor:
    """In place addr."""
    return self.copy_(addr(self, vec1, vec2, beta=beta, alpha=alpha))


def _side_by_side(batch1, batch2):
    """batch1's matrices side by side and batch2's stacked, whose product is
    the sum of the batch's products."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise IndexError("Dimension out of range (expected to be in range of "
                         f"[{-max(batch2.dim(), 1)}, {max(batch2.dim(), 1) - 1}], but got 2)")
    b, n, m = batch1.shape
    if batch2.shape[0] != b:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{b} and {batch2.shape[0]}")
    if batch2.shape[1] != m:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    return batch1.transpose(0, 1).reshape(n, b * m), batch2.reshape(b * m, batch2.shape[2])


@composite(deprecated=lambda method: rewriter("addbmm", ("batch1", "batch2"), method))
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Union[int, float] = 1,
           alpha: Union[int, float] = 1, out: Optional[Tensor] = None) -> Tensor:
    """beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i],
    as one addmm."""
    left, right = _side_by_side(batch1, batch2)
    return _f["addmm"](input, left, right, beta=beta, alpha=alpha, out=out)


@composite(function=False,
           deprecated=lambda method: rewriter("addbmm_", ("batch1", "batch2"), method))
def addbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Union[int, float] = 1,
            alpha: Union[int, float] = 1) -> Tensor:
    """In place addbmm; like torch's, it resizes a self that only broadcasts
    to the result."""
    return _into(self, addbmm(self, batch1, batch2, beta=beta, alpha=alpha), "addbmm_")


@composite()
def cross(input: Tensor, other: Tensor, dim: Optional[int] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The cross product of 3-vectors along dim (by default, with a warning,
    the first dimension of size 3): c_i = a_(i+1) b_(i+2) - a_(i+2) b_(i+1)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=3)
        dim = next((d for d, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    nd = max(input.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dim})")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    a, b = broadcast_tensors(input, other)
    r = a.roll(-1, dim) * b.roll(-2, dim) - a.roll(-2, dim) * b.roll(-1, dim)
    return _into(out, r, "cross")


@composite()
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other."""
    diff = input - other
    if not (diff.is_floating_point() or diff.is_complex()):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {diff.dtype._scalar_name} instead.")
    return diff.norm(p)


@composite()
def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *,
           out: Optional[Tensor] = None) -> Tensor:
    """input with each slice along dim whose p-norm exceeds maxnorm scaled
    down to it (by maxnorm / (norm + 1e-7), as torch)."""
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dim})")
    dims = [d for d in range(nd) if d != dim % nd]
    norm = input.norm(p, dims, True)
    factor = _f["where"](norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return _f["mul"](input, factor, out=out)


@composite(function=False)
def renorm_(self, p: float, dim: int, maxnorm: float) -> Tensor:
    """In place renorm; the norms are taken of a copy, which the gradient
    still needs after self is overwritten."""
    return self.copy_(renorm(self.clone(), p, dim, maxnorm))
