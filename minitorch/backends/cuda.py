"""minitorch.backends.cuda: CUDA's matmul switches; settable, without effect here."""


class _MatmulSettings:
    """torch.backends.cuda.matmul: the TF32 and reduced-precision flags."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSettings()


def is_built() -> bool:
    """False: minitorch is not built with CUDA."""
    return False
