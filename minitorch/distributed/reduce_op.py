"""ReduceOp: torch's reduction kinds, as torch spells them (ReduceOp.SUM is a
RedOpType member whose repr is <RedOpType.SUM: 0>)."""
import enum

__all__ = ["ReduceOp"]


class ReduceOp:
    """How a reducing collective combines tensors: SUM, AVG, PRODUCT, MIN, MAX and the
    bitwise BAND, BOR, BXOR (integer and bool tensors only)."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7

        def __str__(self):
            return f"RedOpType.{self.name}"

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
