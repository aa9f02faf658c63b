"""out= for the linalg functions: torch's resize-and-copy hand-over
(minitorch._out_param), or the result itself when out is None."""
from .._out_param import write_out as _write_out


def write_out(out, result):
    return result if out is None else _write_out(out, result)


def checked_out(name, out, result):
    """write_out for the functions torch guards with checkLinalgCompatibleDtype: an out
    the result cannot be cast to safely is refused in torch's words, any other receives the
    result cast to its dtype."""
    if out is not None:
        from .. import can_cast
        if not can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"{name}: Expected result to be safely castable from "
                               f"{result.dtype._scalar_name} dtype, but got result with "
                               f"dtype {out.dtype._scalar_name}")
        result = result.to(out.dtype)
    return write_out(out, result)


def tuple_out(out, results, kind):
    """results as the return type kind, written into out's tensors (and
    those returned) when out is given."""
    if out is None:
        return kind(tuple(results))
    for o, r in zip(out, results):
        write_out(o, r)
    return kind(tuple(out))
