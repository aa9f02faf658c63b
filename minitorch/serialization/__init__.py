"""minitorch.save / minitorch.load, as torch's.

save writes torch's zip checkpoint format (zip_writer), which torch.load
reads. load tells the formats apart by their first bytes: torch's zip format
(zip_reader), torch's legacy non-zip format (legacy_reader), both with
weights_only=True (the default) through the allow-listed unpickler of
weights_only, or minitorch's own earlier format (native). Other pickles are
refused, never unpickled.
"""
import io
import os
import pickle
from typing import Any, BinaryIO, List, Tuple, Union

from .._tensor import device
from . import native
from .weights_only import (  # the public allow-list API
    add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals, unsafe_globals,
)
from .legacy_reader import load_legacy
from .zip_reader import Archive, load_zip
from .zip_writer import write_zip

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint"]

FileLike = Union[str, os.PathLike, BinaryIO]
DEFAULT_PROTOCOL = 2
_ZIP_MAGIC = b"PK\x03\x04"
_LEGACY_MAGIC = b"\x80\x02"  # torch's legacy format: protocol-2 pickles
_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def save(obj: Any, f: FileLike, pickle_module=None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True) -> None:
    """Saves an object to a file path or a writable binary file object in
    torch's zip checkpoint format: torch.load reads it, and with the default
    weights_only=True so does minitorch.load when obj holds only tensors,
    Parameters, dtypes, Size and plain containers (state dicts). Any other
    picklable object is saved as a full pickle, as torch.save does."""
    if pickle_module not in (None, pickle):
        raise ValueError("minitorch.save: only the standard pickle module is supported")
    if not _use_new_zipfile_serialization:
        raise ValueError("minitorch.save writes only torch's zip format (minitorch.load "
                         "reads the legacy non-zip format too)")
    if not isinstance(pickle_protocol, int) or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"minitorch.save: pickle_protocol must be an int from 2 to "
                         f"{pickle.HIGHEST_PROTOCOL}, got {pickle_protocol!r}")
    if isinstance(f, (str, os.PathLike)):
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with open(f, "wb") as out:
            write_zip(obj, out, name, pickle_protocol)
    else:
        write_zip(obj, f, "archive", pickle_protocol)


def _weights_only_message(message: str) -> str:
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    return (f"Weights only load failed. {_UNSAFE_MESSAGE}\n\nWeightsUnpickler error: "
            f"{message}{_DOCS_MESSAGE}")


def _check_map_location(map_location) -> None:
    if map_location is None or isinstance(map_location, dict) or callable(map_location):
        return
    if isinstance(map_location, (str, device)) and str(map_location) == "cpu":
        return
    raise RuntimeError(f"minitorch.load: map_location={map_location!r} is not supported "
                       "(minitorch tensors live on the CPU)")


def _positioned(f: BinaryIO) -> Tuple[BinaryIO, int, int, bytes]:
    """f as a seekable stream, where the checkpoint starts in it, how many
    bytes it has from there, and its first bytes."""
    if not f.seekable():
        f = io.BytesIO(f.read())
    start = f.tell()
    size = f.seek(0, io.SEEK_END) - start
    f.seek(start)
    head = f.read(len(_ZIP_MAGIC))
    f.seek(start)
    return f, start, size, head


def _load_from(f: BinaryIO, map_location, weights_only: bool, mmap: bool) -> Any:
    f, start, size, head = _positioned(f)
    if head[:2] == _LEGACY_MAGIC:
        if mmap:
            raise RuntimeError("mmap can only be used with files saved with "
                               "`torch.save(_use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order "
                               "to use mmap.")
        return _unpickling(load_legacy, weights_only, f, start + size, map_location,
                           weights_only)
    if head != _ZIP_MAGIC:
        return native.load_from(f)
    if start:
        if mmap:
            raise ValueError("minitorch.load: mmap=True needs the checkpoint to start the file")
        # zipfile reads offsets from the start of the stream
        f = io.BytesIO(f.read())
    return _unpickling(load_zip, weights_only, f, size, map_location, weights_only, mmap)


def get_unsafe_globals_in_checkpoint(f: FileLike) -> List[str]:
    """The globals in a torch.save zip checkpoint that a weights_only load
    would refuse, read from the pickle's opcodes without unpickling it."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as src:
            return get_unsafe_globals_in_checkpoint(src)
    f, start, size, head = _positioned(f)
    if head != _ZIP_MAGIC:
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    if start:
        f = io.BytesIO(f.read())
    return unsafe_globals(Archive(f, size).read("data.pkl"))


def _unpickling(reader, weights_only: bool, *args) -> Any:
    try:
        return reader(*args)
    except pickle.UnpicklingError as e:
        if not weights_only:
            raise
        raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


def load(f: FileLike, map_location=None, pickle_module=None, *, weights_only=None,
         mmap=None, **pickle_load_args) -> Any:
    """Loads an object saved with torch.save or minitorch.save from a file
    path or a readable binary file object.

    With weights_only=True (the default, as torch's) the pickle may hold only
    tensors, Parameters, dtypes, Size, device and plain containers, plus the
    globals marked safe with add_safe_globals; anything else is refused with
    pickle.UnpicklingError before it runs. weights_only=False unpickles
    whatever the file holds, which can run arbitrary code: use it only for
    files from a trusted source. Tensors sharing a storage in the file share
    it after loading. A truncated, corrupted or oversized file raises
    RuntimeError before allocating more than about the file's size.
    mmap=True maps the file copy-on-write instead of reading it: storages
    then share the file's pages until written to."""
    if pickle_module not in (None, pickle):
        raise ValueError("minitorch.load: only the standard pickle module is supported")
    if pickle_load_args and set(pickle_load_args) - {"encoding"}:
        raise TypeError(f"minitorch.load: unexpected arguments {sorted(pickle_load_args)}")
    _check_map_location(map_location)
    weights_only = True if weights_only is None else bool(weights_only)
    mmap = bool(mmap)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as src:
            return _load_from(src, map_location, weights_only, mmap)
    if mmap:
        try:
            f.fileno()
        except (AttributeError, OSError):
            raise ValueError("minitorch.load: mmap=True needs a file path or a real file") from None
    return _load_from(f, map_location, weights_only, mmap)
