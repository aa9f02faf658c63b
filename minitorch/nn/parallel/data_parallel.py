"""nn.DataParallel as torch's CPU build has it: with no accelerator to
replicate the module on, the wrapper keeps the module (its parameters and
state-dict keys under ``module.``) and calls it; ``data_parallel`` has no
device to run on and says so, as torch's does."""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; ``forward`` calls it (``device_ids`` is empty: there
    are no devices to split the batch over)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional form: needs an accelerator, which a CPU build lacks."""
    raise RuntimeError("device type could not be determined")
