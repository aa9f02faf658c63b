"""minitorch._C declares that it needs the GIL (csrc/python/module.c says
why), so a free-threaded CPython (3.13t and later) turns the GIL on when it
loads _C. When the GIL was forced off (PYTHON_GIL=0 or -X gil=0) it stays
off: then importing minitorch fails here instead of running the engine
without the lock it relies on."""
import sys

from . import _C

if _C._requires_gil and not getattr(sys, "_is_gil_enabled", lambda: True)():
    raise ImportError(
        "minitorch requires the GIL, but this free-threaded Python runs with the GIL forced "
        "off (PYTHON_GIL=0 or -X gil=0): minitorch._C keeps interpreter-wide state that is "
        "only safe under the GIL. Run Python without that setting.")
