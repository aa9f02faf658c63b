"""Anomaly detection for autograd: detect_anomaly and set_detect_anomaly.

While it is on, every graph node remembers the Python stack that made it; a
node whose backward fails warns with that stack (and the stacks of the nodes
whose backward made it), and with check_nan a node returning NaN fails with
"Function 'XBackward0' returned nan values in its 0th output.". The flags
live in C (csrc/autograd/grad_mode.h); the reports in the binding.
"""
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return _C.is_anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return _C.is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off."""
    _C._set_anomaly_enabled(bool(enabled), bool(check_nan))


class detect_anomaly:
    """Context manager that turns anomaly detection on for its body (forward
    and backward), restoring the previous setting on exit."""

    def __init__(self, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; as a context manager, the
    previous setting comes back on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)
