"""default_collate / default_convert: how a DataLoader turns a list of
samples into a batch, as torch.utils.data's."""
import collections.abc
import re

import numpy as np

from ... import _C
from ..._tensor import Tensor
from . import _worker

_stack = _C._functions["stack"]
_cat = _C._functions["cat"]
_tensor = _C._functions["tensor"]
_as_tensor = _C._functions["as_tensor"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)


# minitorch's stack and cat take at most this many tensors per call (see
# csrc/python/parser.h MT_MAX_LIST), so larger batches are joined in rounds.
_MAX_LIST = 32


def _stack_batch(batch):
    if _worker.get_worker_info() is not None:
        shared = _stack_into_shared_memory(batch)
        if shared is not None:
            return shared
    parts = [_stack(batch[i:i + _MAX_LIST], 0) for i in range(0, len(batch), _MAX_LIST)]
    while len(parts) > 1:
        parts = [_cat(parts[i:i + _MAX_LIST], 0) for i in range(0, len(parts), _MAX_LIST)]
    return parts[0]


def _stack_into_shared_memory(batch):
    """In a DataLoader worker: the stacked batch built in shared memory, where
    it would be moved to cross to the main process anyway, as torch's workers
    do; None when the samples differ in shape or dtype, or need autograd
    (stack then gives the result, or its error)."""
    first = batch[0]
    shape, dtype = first.shape, first.dtype
    if first.numel() == 0 or any(t.shape != shape or t.dtype != dtype or t.requires_grad
                                 for t in batch):
        return None
    nbytes = len(batch) * first.numel() * dtype.itemsize
    out = _C._empty_shared(nbytes).view(dtype).view((len(batch),) + tuple(shape))
    for i, t in enumerate(batch):
        out[i].copy_(t)
    return out


def _rebuild_like(elem, values):
    """A container of elem's type holding values, or the plain form when the
    type cannot be built that way."""
    try:
        return type(elem)(values)
    except TypeError:
        return None


def default_convert(data):
    r"""Converts NumPy arrays and numbers inside data to tensors, keeping
    the structure of mappings and sequences; other objects are returned
    unchanged."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return _as_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "SaUO":
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        rebuilt = _rebuild_like(data, converted)
        return converted if rebuilt is None else rebuilt
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        rebuilt = _rebuild_like(data, converted)
        return converted if rebuilt is None else rebuilt
    return data


def default_collate(batch):
    r"""Puts each data field into a tensor with outer dimension batch size.

    * Tensor -> stacked Tensor; NumPy array -> stacked Tensor
    * float -> float64 Tensor; int -> int64 Tensor; bool -> bool Tensor
    * str/bytes -> unchanged list
    * Mapping -> Mapping of collated values, key by key
    * NamedTuple -> NamedTuple of collated fields
    * other Sequence (tuple, list) -> list of collated fields
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack_batch(batch)
    if type(elem).__module__ == "numpy" and not isinstance(elem, (np.str_, np.bytes_)):
        if isinstance(elem, np.ndarray):
            if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return default_collate([_as_tensor(b) for b in batch])
        if elem.shape == ():
            return _as_tensor(np.array(batch))
    if isinstance(elem, float):
        return _tensor(batch, dtype=_C.float64)
    if isinstance(elem, int):
        return _tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        rebuilt = _rebuild_like(elem, collated)
        return collated if rebuilt is None else rebuilt
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        collated = [default_collate(samples) for samples in transposed]
        rebuilt = _rebuild_like(elem, collated)
        return collated if rebuilt is None else rebuilt
    raise TypeError(default_collate_err_msg_format.format(type(elem)))
