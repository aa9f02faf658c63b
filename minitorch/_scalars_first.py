"""torch's deprecated overloads of addbmm that take beta (and alpha) as
leading positional numbers: torch.addbmm(beta, input, [alpha,] batch1,
batch2) and Tensor.addbmm[_](beta, [alpha,] batch1, batch2). rewriter()
makes the hook composite(deprecated=...) runs on a call's arguments before
anything else: a call in a deprecated form gets torch's warning and is
handed on in the keyword form; any other call is left as it is.

torch's parser warns about deprecated overloads once per process (one flag
for them all, shared with the C rows' deprecated forms) unless
set_warn_always is on."""
import numbers
import warnings
from typing import Callable, Optional, Tuple

from . import _C

__all__ = []

def _warn(name: str, old: str, new: str) -> None:
    if not _C._deprecated_overload_should_warn():
        return
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one "
                  f"of the following signatures instead:\n\t{name}({new})", UserWarning,
                  stacklevel=4)


def _number(x) -> bool:
    return isinstance(x, numbers.Number)


def rewriter(name: str, tensors: Tuple[str, str],
             method: bool) -> Callable[[tuple, dict], Optional[Tuple[tuple, dict]]]:
    """The hook for name's function (method false) or its method (self
    first): (args, kwargs) in the keyword form for a deprecated call, else
    None. tensors names the two operands after input (batch1, batch2)."""
    p, q = tensors
    done = (f"Tensor {p}, Tensor {q}, *, Number beta = 1, Number alpha = 1"
            + ("" if method else ", Tensor out = None"))

    def rewrite(args: tuple, kwargs: dict):
        head, rest = (args[:1], args[1:]) if method else ((), args)
        if not rest or not _number(rest[0]):
            return None
        if method:
            if len(rest) == 4 and _number(rest[1]):
                beta, alpha, operands = rest[0], rest[1], rest[2:]
            elif len(rest) == 3:
                beta, alpha, operands = rest[0], None, rest[1:]
            else:
                return None
            old = "Number beta, " + ("" if alpha is None else "Number alpha, ")
            _warn(name, f"{old}Tensor {p}, Tensor {q}", done)
        else:
            if len(rest) == 5 and _number(rest[2]):
                beta, alpha, operands = rest[0], rest[2], (rest[1],) + rest[3:]
            elif len(rest) == 4:
                beta, alpha, operands = rest[0], None, rest[1:]
            else:
                return None
            old = "Number beta, Tensor input, " + ("" if alpha is None else "Number alpha, ")
            _warn(name, f"{old}Tensor {p}, Tensor {q}, *, Tensor out = None",
                  "Tensor input, " + done)
        kwargs = dict(kwargs, beta=beta, alpha=1 if alpha is None else alpha)
        return head + operands, kwargs
    return rewrite
