"""Moving torch's sample data to minitorch and comparing results: the one
conversion every conformance check uses, and the report line each check
writes for tools/gen_conformance.py."""
import json
import os

import numpy as np
import torch

import minitorch as mt

_DTYPES = {getattr(torch, n): getattr(mt, n) for n in (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex64", "complex128", "uint16", "uint32", "uint64", "complex32")}

# NumPy holds neither: their elements cross as integers of the same size,
# viewed back as the dtype on the other side
_BITS = {torch.bfloat16: (torch.int16, "bfloat16"), torch.complex32: (torch.int32, "complex32")}


class Unsupported(Exception):
    """The sample holds something minitorch has no counterpart for (a
    compressed sparse or quantized tensor, a dtype it lacks): the sample is
    skipped, not failed."""


def mt_dtype(d):
    try:
        return _DTYPES[d]
    except KeyError:
        raise Unsupported(f"dtype {d}") from None


def to_mt(obj, shared=None):
    """torch tensors (leaves keep requires_grad), dtypes, Sizes and devices
    inside obj as minitorch's; containers rebuilt; anything else as is.
    Given a dict `shared` (one per conversion), torch tensors that are one
    object, or views of one storage, come out so in minitorch too: error
    inputs pass an input as out= to be refused for the overlap."""
    if isinstance(obj, torch.Tensor):
        if shared is not None and id(obj) in shared:
            return shared[id(obj)]
        out = _tensor_to_mt(obj, shared)
        if shared is not None:
            # the torch tensor is held so that its id is not reused
            shared[id(obj)] = out
            shared.setdefault("held", []).append(obj)
        return out
    if isinstance(obj, torch.dtype):
        return mt_dtype(obj)
    if isinstance(obj, torch.Size):
        return mt.Size(obj)
    if isinstance(obj, torch.device):
        if obj.type != "cpu":
            raise Unsupported(f"device {obj}")
        return mt.device("cpu")
    if isinstance(obj, (list, tuple)):
        items = [to_mt(v, shared) for v in obj]
        return type(obj)(items) if type(obj) in (list, tuple) else type(obj)(*items)
    if isinstance(obj, dict):
        return {k: to_mt(v, shared) for k, v in obj.items()}
    if isinstance(obj, torch.memory_format):
        return getattr(mt, str(obj).split(".")[-1])
    if isinstance(obj, torch.nn.Module):
        return _mt_module(obj)
    return obj


def _tensor_to_mt(obj, shared):
    if obj.layout == torch.sparse_coo:
        # its coordinates and values as they are (duplicates, order), and
        # whether torch holds it coalesced
        indices, values = to_mt((obj._indices(), obj._values()), shared)
        out = mt.sparse_coo_tensor(indices, values, tuple(obj.shape),
                                   is_coalesced=obj.is_coalesced())
        return out.requires_grad_() if obj.requires_grad else out
    if obj.layout != torch.strided or obj.is_quantized:
        raise Unsupported(f"tensor of {obj.layout} {obj.dtype}")
    if obj.device.type != "cpu":
        raise Unsupported(f"tensor on {obj.device}")
    d = mt_dtype(obj.dtype)
    base = obj.detach()
    # the whole storage copied, then viewed with the sample's own strides
    # and offset: transposed, expanded and offset samples are the point
    key = ("storage", base.untyped_storage().data_ptr(), base.dtype)
    storage = shared.get(key) if shared is not None and key[1] else None
    if storage is None:
        count = base.untyped_storage().nbytes() // max(base.element_size(), 1)
        flat = torch.as_strided(base, (count,), (1,), 0).clone()
        if flat.dtype in _BITS:
            bits, name = _BITS[flat.dtype]
            storage = mt.tensor(flat.view(bits).numpy()).view(getattr(mt, name))
        else:
            storage = mt.tensor(flat.numpy()).to(d)
        if shared is not None and key[1]:
            shared[key] = storage
    out = storage.as_strided(tuple(base.shape), tuple(base.stride()), base.storage_offset())
    return out.requires_grad_() if obj.requires_grad else out


def _mt_module(module):
    """A torch module a sample passes as an argument (triplet_margin_with_
    distance_loss's distance_function, a PairwiseDistance) as minitorch's
    module of the same class and attributes; one holding state is not
    converted."""
    cls = getattr(mt.nn, type(module).__name__, None)
    if cls is None or any(True for _ in module.parameters()) or \
            any(True for _ in module.buffers()) or any(True for _ in module.children()):
        raise Unsupported(f"module {type(module).__name__} as an argument")
    out = cls.__new__(cls)
    mt.nn.Module.__init__(out)
    for key, value in vars(module).items():
        if not key.startswith("_"):
            setattr(out, key, value)
    return out


def to_np(x):
    """A tensor of either library as a NumPy array (bfloat16 as float32,
    complex32 as complex64; a sparse one as its dense form)."""
    if x.is_sparse:
        x = x.to_dense()
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x._is_zerotensor():
            # torch's gradient formulas may hand back a ZeroTensor, which
            # has no memory to show
            x = torch.zeros(x.shape, dtype=x.dtype)
        # a lazy conjugate (torch's ifft, ihfft, either library's conj) has to
        # be applied to be shown
        x = x.resolve_conj()
        return (x.float() if x.dtype == torch.bfloat16 else
                x.cfloat() if x.dtype == torch.complex32 else x).numpy()
    x = x.detach().resolve_conj()
    return (x.float() if x.dtype == mt.bfloat16 else
            x.cfloat() if x.dtype == mt.complex32 else x).numpy()


def dtype_name(d):
    return str(d).split(".")[-1]


def assert_same(got, want, rtol, atol, path="result"):
    """got (minitorch) equals want (torch) as torch.testing would judge:
    same structure (lists, tuples, dicts by key), shapes and dtypes, values
    within rtol/atol, NaN where NaN, exactly for integers and bools."""
    if isinstance(want, torch.Tensor):
        assert isinstance(got, mt.Tensor), f"{path}: {type(got).__name__}, expected a tensor"
        assert tuple(got.shape) == tuple(want.shape), \
            f"{path}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        assert dtype_name(got.dtype) == dtype_name(want.dtype), \
            f"{path}: dtype {got.dtype} != {want.dtype}"
        assert got.is_sparse == want.is_sparse, \
            f"{path}: layout {got.layout} != {want.layout}"
        if want.is_sparse:
            # the same elements: the coalesced coordinates and values
            g, w = got.detach().coalesce(), want.detach().coalesce()
            assert_same(g._indices(), w._indices(), 0, 0, f"{path} (indices)")
            assert_same(g._values(), w._values(), rtol, atol, f"{path} (values)")
            return
        g, w = to_np(got), to_np(want)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=path)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), \
            f"{path}: {type(got).__name__} of {len(got) if hasattr(got, '__len__') else '?'}, " \
            f"expected {len(want)} items"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict), f"{path}: {type(got).__name__}, expected a dict"
        assert sorted(got, key=repr) == sorted(want, key=repr), \
            f"{path}: keys {sorted(got, key=repr)} != {sorted(want, key=repr)}"
        for k, w in want.items():
            assert_same(got[k], w, rtol, atol, f"{path}[{k!r}]")
    elif isinstance(want, torch.dtype):
        assert dtype_name(got) == dtype_name(want), f"{path}: {got} != {want}"
    elif isinstance(want, (float, complex)) and isinstance(got, (int, float, complex)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


def report(kind, namespace, name, present, passed, detail=""):
    """One line for tools/gen_conformance.py, when MT_CONFORMANCE_REPORT
    names a file: kind 'op', 'module' or 'optim'; namespace as torch's
    ('torch', 'nn.functional', 'Tensor', 'nn', 'optim', ...)."""
    path = os.environ.get("MT_CONFORMANCE_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"kind": kind, "namespace": namespace, "name": name,
                                "present": present, "passed": passed, "detail": detail}) + "\n")
