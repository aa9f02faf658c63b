"""minitorch.cuda: torch.cuda as a CPU-only torch build has it.

Scripts probe CUDA before they run (``'cuda' if torch.cuda.is_available()
else 'cpu'``) and seed it; those calls succeed and report no device, and the
calls that need a device fail as torch's do without CUDA.
"""
from typing import Any, Optional

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "is_bf16_supported", "current_device", "get_device_name",
           "synchronize", "empty_cache", "memory_allocated", "max_memory_allocated"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    """False: minitorch has no CUDA devices."""
    return False


def device_count() -> int:
    """0: the number of CUDA devices minitorch can use."""
    return 0


def is_initialized() -> bool:
    """False: CUDA is never initialised."""
    return False


def manual_seed(seed: int) -> None:
    """Seeds the current CUDA device: without CUDA, does nothing (as torch)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seeds every CUDA device: without CUDA, does nothing (as torch)."""
    int(seed)


def seed() -> None:
    """Seeds the current CUDA device randomly: without CUDA, does nothing."""


def seed_all() -> None:
    """Seeds every CUDA device randomly: without CUDA, does nothing."""


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: no CUDA device supports bfloat16 here."""
    return False


def current_device() -> int:
    """Raises AssertionError, as torch does without CUDA."""
    raise AssertionError(_NOT_COMPILED)


def get_device_name(device: Optional[Any] = None) -> str:
    """Raises AssertionError, as torch does without CUDA."""
    raise AssertionError(_NOT_COMPILED)


def synchronize(device: Optional[Any] = None) -> None:
    """Raises AssertionError, as torch does without CUDA."""
    raise AssertionError(_NOT_COMPILED)


def empty_cache() -> None:
    """Frees cached CUDA memory: without CUDA, does nothing."""


def memory_allocated(device: Optional[Any] = None) -> int:
    """0: no CUDA memory is allocated."""
    return 0


def max_memory_allocated(device: Optional[Any] = None) -> int:
    """0: no CUDA memory was ever allocated."""
    return 0


from . import amp  # noqa: E402,F401  (torch.cuda.amp's deprecated spellings)
