"""Summary protocol buffers for SummaryWriter: scalars, histograms, images
(PNG-encoded here with zlib, so no imaging library is needed) and text, laid
out as torch's writer lays them out so TensorBoard shows them the same way."""
import struct
import zlib
from typing import Any

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

import minitorch


def make_np(x: Any) -> np.ndarray:
    """A NumPy array from a minitorch tensor, an array or a Python number."""
    if isinstance(x, minitorch.Tensor):
        return np.asarray(x.detach().numpy())
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name: str, value: Any, new_style: bool = False,
           double_precision: bool = False) -> Summary:
    """A scalar summary: a simple_value, or a scalars-plugin tensor when new_style."""
    array = make_np(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). "
                             f"Was given size: {array.size} and {array.ndim} dimensions.")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    proto = (TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[number], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=meta)])


def default_bins() -> list:
    """TensorFlow's bucket edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    v, buckets = 1e-12, []
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0] + buckets


def histogram(name: str, values: Any, bins: Any, max_bins: Any = None) -> Summary:
    """A histogram summary with empty outer buckets trimmed (TensorFlow's layout)."""
    values = make_np(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        step = len(counts) // max_bins
        if len(counts) % step:
            counts = np.pad(counts, [[0, step - len(counts) % step]])
        counts = counts.reshape(-1, step).sum(axis=-1)
        limits = np.append(limits[:-1:step], limits[-1])
    cum = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum, [0, cum[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    hist = HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(),
                          bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shorthand twice. "
                             f"input_format: {dataformats}")
    if array.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. "
                             f"tensor shape: {array.shape}, input_format: {dataformats}")
    fmt = dataformats.upper()
    if len(fmt) == 3:
        hwc = array.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return np.stack([array.transpose([fmt.find(c) for c in "HW"])] * 3, 2)
    raise NotImplementedError(f"add_image takes a CHW, HWC or HW image, got format {dataformats}")


def _png(pixels: np.ndarray) -> bytes:
    """PNG bytes of an HxWx(3|4) uint8 image: unfiltered rows, zlib-compressed."""
    height, width, channels = pixels.shape
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc
    header = struct.pack(">IIBBBBB", width, height, 8, 2 if channels == 3 else 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def image(tag: str, tensor: Any, dataformats: str = "CHW") -> Summary:
    """An image summary; floats in [0, 1] are scaled to 0..255, uint8 kept."""
    array = make_np(tensor)
    hwc = _to_hwc(array, dataformats)
    scale = 1 if hwc.dtype == np.uint8 else 255
    pixels = np.ascontiguousarray((hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8))
    height, width, channels = pixels.shape
    img = Summary.Image(height=height, width=width, colorspace=channels,
                        encoded_image_string=_png(pixels))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def text(tag: str, text_string: str) -> Summary:
    """A text-plugin summary under tag + '/text_summary'."""
    plugin = SummaryMetadata.PluginData(plugin_name="text",
                                        content=TextPluginData(version=0).SerializeToString())
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode(encoding="utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary",
                                        metadata=SummaryMetadata(plugin_data=plugin),
                                        tensor=proto)])
