"""out= for functions written in Python, handed over by the op rows' own C
path (csrc/ops/out_param.c through _C._write_out): out must have the
result's dtype; one of another shape is resized (with torch's deprecation
warning unless it was empty) and given the values."""
from typing import Optional, Sequence

from . import _C
from ._tensor import Tensor


def write_out(out: Optional[Tensor], result: Tensor) -> Tensor:
    """result's values written into out, which is returned; result itself
    when out is None (the caller was given no out=)."""
    return result if out is None else _C._write_out(out, result)


def write_out_list(name: str, out: Sequence[Tensor], results: Sequence[Tensor]) -> None:
    """Each result written into its out tensor; the lists must be as long."""
    if len(out) != len(results):
        raise RuntimeError(f"{name} expected an out= argument of size {len(results)}, got size "
                           f"{len(out)}")
    for o, r in zip(out, results):
        write_out(o, r)
