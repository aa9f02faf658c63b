"""Printing a sparse COO tensor, as torch's _tensor_str prints one."""
from .. import _tensor_str
from .._tensor import Tensor
from .coords import _mt


def _body(t: Tensor, indent: int) -> str:
    mt = _mt()
    name = repr(t.dtype)[len("minitorch."):]
    if t.numel() == 0:
        return f"[], size={tuple(t.shape)}"
    values = (t.float() if t.dtype == mt.bfloat16 else t).resolve_conj().numpy()
    text = _tensor_str.format_tensor(values, name, default_dtype_name=name, prefix=" " * indent)
    return text[indent:-1]


def _format(s: Tensor) -> str:
    mt = _mt()
    indent = len("tensor(")
    suffixes = [f"size={tuple(s.shape)}", f"nnz={s._nnz()}"]
    default = mt.get_default_dtype()
    default_complex = mt.complex128 if default == mt.float64 else mt.complex64
    if s.dtype not in (default, default_complex, mt.int64, mt.bool):
        suffixes.append(f"dtype={s.dtype!r}")
    suffixes.append("layout=minitorch.sparse_coo")
    if s.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(s.grad_fn).__name__}>")
    elif s.requires_grad:
        suffixes.append("requires_grad=True")
    text = ("tensor(indices=tensor(" + _body(s._sp_indices, indent + len("indices=tensor("))
            + "),\n" + " " * indent + "values=tensor("
            + _body(s._sp_values, indent + len("values=tensor(")) + ")")
    line = len(text) - text.rfind("\n") + 1
    width = _tensor_str.get_printoptions()["linewidth"]
    first = True
    for suffix in suffixes:
        if first or line + len(suffix) + 2 > width:
            text += ",\n" + " " * indent + suffix
            line = indent + len(suffix)
            first = False
        else:
            text += ", " + suffix
            line += len(suffix) + 2
    return text + ")"
