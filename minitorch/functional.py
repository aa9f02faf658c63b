"""Tensor contractions written over the C matrix products: einsum and tensordot
lower to permute + reshape + bmm/mm, so they share one kernel (and its BLAS)."""
import warnings
from typing import Any, List, Optional, Sequence, Tuple, Union

from . import _C
from ._tensor import Tensor
from ._out_param import write_out
from .linalg import _norms as _linalg
from .overrides import composite

__all__ = ["einsum", "tensordot", "chain_matmul"]

_mt = _C._functions


def _sum_last(t, n: int):
    """Sums the last n dims of t, as a product with a vector of ones."""
    if n == 0:
        return t
    keep = list(t.shape[: t.dim() - n])
    k = 1
    for s in t.shape[t.dim() - n:]:
        k *= s
    ones = _mt["ones"]([k], dtype=t.dtype)
    flat = t.reshape(keep + [k]) if keep else t.reshape([k])
    return _mt["matmul"](flat, ones)


def _is_label(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def _ellipsis_at(text: str, i: int) -> bool:
    """Whether the '.' at text[i] starts a whole '...'."""
    return i + 2 < len(text) and text[i + 1] == "." and text[i + 2] == "."


def _parse(equation: str, n: int) -> Tuple[List[str], Optional[str], int]:
    """The input terms ('...' as '.'), the output text after '->' (None when
    implicit) and the length of the input side; checked character by
    character in torch's order, so its first error is torch's."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    terms, ell, i = [""], False, 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == ".":
            if ell:
                raise RuntimeError(f"einsum(): found '.' for operand {len(terms) - 1} for which "
                                   "an ellipsis was already found")
            if not _ellipsis_at(lhs, i):
                raise RuntimeError(f"einsum(): found '.' for operand {len(terms) - 1} that is "
                                   "not part of any ellipsis")
            terms[-1] += "."
            ell, i = True, i + 2
        elif ch == ",":
            terms.append("")
            if len(terms) > n:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                                   "equation")
            ell = False
        elif ch != " ":
            if not _is_label(ch):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            terms[-1] += ch
        i += 1
    if len(terms) != n:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms, (None if arrow < 0 else equation[arrow + 2:]), len(lhs)


def _parse_output(rhs: str, terms: List[str], lhs_len: int) -> str:
    """The output term of the text after '->' ('...' as '.'), checked as torch's."""
    inputs = set("".join(terms))
    out, i = "", 0
    while i < len(rhs):
        ch = rhs[i]
        if ch == ".":
            if "." in out:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if not _ellipsis_at(rhs, i):
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            out += "."
            i += 2
        elif ch != " ":
            if not _is_label(ch):
                raise RuntimeError(f"einsum(): invalid subscript given at index "
                                   f"{lhs_len + 2 + i} in the equation string, subscripts must "
                                   "be in [a-zA-Z]")
            if ch not in inputs or ch in out:
                raise RuntimeError(f"einsum(): output subscript {ch} " + (
                    "appears more than once in the output" if ch in out else
                    "does not appear in the equation for any input operand"))
            out += ch
        i += 1
    return out


def _expand_ellipsis(terms, rhs, lhs_len, operands):
    """Replaces '.' by letters for the broadcast dims it covers (right-aligned, as in
    NumPy); returns the terms, the output term (implicit: ellipsis dims, then the
    letters seen once, sorted) and the ellipsis letters."""
    spare = [chr(c) for c in range(0x100, 0x100 + 64)]
    widths = []
    for i, (t, term) in enumerate(zip(operands, terms)):
        named = len(term) - ("." in term)
        if ("." in term and t.dim() < named) or ("." not in term and t.dim() != named):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) "
                               f"{'is more than' if '.' in term else 'does not match'} the "
                               f"number of dimensions ({t.dim()}) for operand {i}"
                               f"{'' if '.' in term else ' and no ellipsis was given'}")
        widths.append(t.dim() - named if "." in term else 0)
    out = None if rhs is None else _parse_output(rhs, terms, lhs_len)
    n_ell = max(widths, default=0)
    ell = "".join(spare[:n_ell])
    terms = [term.replace(".", ell[n_ell - w:]) for term, w in zip(terms, widths)]
    if out is None:
        counts = {}
        for c in "".join(terms):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    else:
        out = out.replace(".", ell)
    return terms, out, ell


def _take_diagonals(t, term: str, i: int):
    """Collapses repeated letters of term into one dim each (their diagonal)."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        a = term.index(c)
        b = term.index(c, a + 1)
        if t.shape[a] != t.shape[b]:
            raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the "
                               f"sizes don't match, {t.shape[b]} != {t.shape[a]}")
        t = t.diagonal(0, a, b)
        term = term[:a] + term[a + 1:b] + term[b + 1:] + c
    return t, term


def _reduce_single(t, term: str, keep: str):
    """Sums the letters of term that keep does not hold; returns (tensor, letters)."""
    summed = [c for c in term if c not in keep]
    if not summed:
        return t, term
    kept = [c for c in term if c in keep]
    order = [term.index(c) for c in kept + summed]
    return _sum_last(t.permute(order), len(summed)), "".join(kept)


def _contract(a, ta: str, b, tb: str, keep: str):
    """a (letters ta) times b (letters tb), keeping the letters in keep."""
    batch = [c for c in ta if c in tb and c in keep]
    contracted = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    sa = dict(zip(ta, a.shape))
    sb = dict(zip(tb, b.shape))

    def size(letters, sizes):
        n = 1
        for c in letters:
            n *= sizes[c]
        return n

    a3 = a.permute([ta.index(c) for c in batch + left + contracted]).reshape(
        [size(batch, sa), size(left, sa), size(contracted, sa)])
    b3 = b.permute([tb.index(c) for c in batch + contracted + right]).reshape(
        [size(batch, sb), size(contracted, sb), size(right, sb)])
    r = _mt["bmm"](a3, b3)
    shape = [sa[c] for c in batch] + [sa[c] for c in left] + [sb[c] for c in right]
    return r.reshape(shape), "".join(batch + left + right)


def _subscript(n) -> str:
    """The equation letter of sublist entry n: A-Z for 0-25, a-z for 26-51."""
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _from_sublists(args) -> Tuple[str, tuple]:
    """The equation and operands of einsum's sublist form (op1, sublist1, op2,
    sublist2, ..., [output sublist])."""
    equation = ",".join("".join(_subscript(n) for n in sub) for sub in args[1::2])
    if len(args) % 2:
        return equation + "->" + "".join(_subscript(n) for n in args[-1]), args[:-1:2]
    return equation, args[::2]


@composite(method=False)
def einsum(equation: str, *operands: Any) -> Tensor:
    """Sums the product of the elements of the operands along dimensions specified
    using a notation based on the Einstein summation convention."""
    if operands and isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    terms, rhs, lhs_len = _parse(equation, len(operands))
    terms, out, ell = _expand_ellipsis(terms, rhs, lhs_len, operands)
    seen = {}
    expanded = []
    for i, (t, term) in enumerate(zip(operands, terms)):
        t, terms[i] = _take_diagonals(t, term, i)
        term = terms[i]
        for c, s in zip(term, t.shape):
            if c in seen and seen[c] != s and s != 1 and seen[c] != 1:
                if c in ell:
                    raise RuntimeError(f"einsum(): dimension {term.index(c)} covered by "
                                       f"ellipsis in operand {i}has size {s} which does not "
                                       "broadcast with previously seen ellipsis with size "
                                       f"{seen[c]} for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} "
                                   f"which does not broadcast with previously seen size "
                                   f"{seen[c]}")
            seen[c] = max(seen.get(c, s), s)
        expanded.append(t)
    expanded = [t.expand([seen[c] for c in term]) if any(
        s != seen[c] for c, s in zip(term, t.shape)) else t for t, term in zip(expanded, terms)]
    acc, letters = None, ""
    for i, (t, term) in enumerate(zip(expanded, terms)):
        later = out + "".join(terms[i + 1:])
        if acc is None:
            acc, letters = _reduce_single(t, term, later)
            continue
        t, term = _reduce_single(t, term, later + letters)
        acc, letters = _contract(acc, letters, t, term, later)
    acc, letters = _reduce_single(acc, letters, out)
    return acc.permute([letters.index(c) for c in out]) if letters != out else acc


# a, b: Any, as torch's tensordot does not check them (overridable would refuse
# a non-tensor in a Tensor parameter)
@composite(method=False)
def tensordot(a: Any, b: Any, dims: Union[int, Sequence[Sequence[int]]] = 2, *,
              out: Optional[Tensor] = None) -> Tensor:
    """Returns a contraction of a and b over multiple dimensions."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    ca = [d % a.dim() for d in dims_a] if a.dim() else []
    cb = [d % b.dim() for d in dims_b] if b.dim() else []
    for da, db, ia, ib in zip(dims_a, dims_b, ca, cb):
        # a contracted dim of size 1 on one side broadcasts: the other side is summed over it
        if a.shape[ia] == 1 and b.shape[ib] != 1:
            b = b.sum(ib, keepdim=True)
        elif b.shape[ib] == 1 and a.shape[ia] != 1:
            a = a.sum(ia, keepdim=True)
        elif a.shape[ia] != b.shape[ib]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[ia]} in dim {da} and second has size "
                               f"{b.shape[ib]} in dim {db}")
    free_a = [i for i in range(a.dim()) if i not in ca]
    free_b = [i for i in range(b.dim()) if i not in cb]
    k = 1
    for i in ca:
        k *= a.shape[i]
    ma = 1
    for i in free_a:
        ma *= a.shape[i]
    nb = 1
    for i in free_b:
        nb *= b.shape[i]
    if not free_a and not free_b and a.dtype == _C.bool:
        # torch contracts everything with dot, which has no bool entry
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    a2 = a.permute(free_a + ca).reshape([ma, k])
    b2 = b.permute(cb + free_b).reshape([k, nb])
    shape = [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b]
    return write_out(out, _mt["mm"](a2, b2).reshape(shape))


_CHAIN_WARNED = set()


@composite(method=False)
def chain_matmul(*matrices: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """The product of the 2-D matrices (a copy of a lone one): torch's
    deprecated form of linalg.multi_dot, warning once per process for each
    of its out= and plain forms."""
    form = out is None
    if form not in _CHAIN_WARNED:
        _CHAIN_WARNED.add(form)
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                      "release. Use torch.linalg.multi_dot instead, which accepts a list of two "
                      "or more tensors rather than multiple parameters.", UserWarning,
                      stacklevel=3)
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return write_out(out, matrices[0].clone())
    return _linalg.multi_dot(list(matrices), out=out)
