"""The mathematical constants torch re-exports (torch.pi, torch.e, ...)."""
import math

__all__ = ["e", "inf", "nan", "pi"]

e: float = math.e
inf: float = math.inf
nan: float = math.nan
pi: float = math.pi
