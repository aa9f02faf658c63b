"""out= for the linalg functions: torch's resize-and-copy hand-over
(minitorch._out_param), or the result itself when out is None."""
from .._out_param import write_out as _write_out


def write_out(out, result):
    return result if out is None else _write_out(out, result)
