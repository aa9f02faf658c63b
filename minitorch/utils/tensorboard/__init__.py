"""minitorch.utils.tensorboard: SummaryWriter, a thin adapter writing
minitorch tensors into TensorBoard event files through the `tensorboard`
package (an optional dependency: importing this module without it raises
ImportError, as torch.utils.tensorboard does)."""
try:
    import tensorboard
except ImportError as e:  # torch's import fails the same way without the package
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from e


def _version(text: str) -> tuple:
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


if _version(getattr(tensorboard, "__version__", "0")) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
