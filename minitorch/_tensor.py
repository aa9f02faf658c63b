"""minitorch.Tensor: the Python class over the C TensorBase.

Everything hot lives in C (csrc/); this class adds the few pieces that are
naturally Python: printing, iteration and the NumPy protocol hooks, and the
__torch_function__ dispatch of the binding's autograd methods.
"""
import warnings
from typing import Any, Callable, Iterator, Optional

import numpy as np

from . import _C, _tensor_pickle, _tensor_str
from .overrides import overridable

__all__ = ["Tensor", "device"]


# torch's device types: any of them names a device, but a tensor lives only on the CPU.
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:
    """A device name (torch's types are accepted); tensors live on the CPU only."""

    __module__ = "minitorch"
    __slots__ = ("type", "index")

    def __init__(self, type: "str | device" = "cpu", index: "int | None" = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        name, colon, idx = str(type).partition(":")
        if name not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at "
                               f"start of device string: {type}")
        if colon and not idx.isdigit():
            raise RuntimeError(f"Invalid device string: '{type}'")
        object.__setattr__(self, "type", name)
        object.__setattr__(self, "index", int(idx) if idx else index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'minitorch.device' objects is not writable")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


_CPU = device("cpu")


_NUMPY_NO_COPY = (
    "Unable to avoid copy while creating an array as requested.\n"
    "If using `np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow a copy "
    "when needed (no behavior change in NumPy 1.x).\n"
    "For more details, see "
    "https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword.")


class Tensor(_C.TensorBase):
    """A multi-dimensional array of one dtype, with autograd.

    Make tensors with factories (``minitorch.tensor``, ``zeros``, ``randn``,
    ...), not with the constructor. A tensor is a view of a refcounted storage
    with a shape, strides and an offset; views share memory with their base.
    Subclasses work as in torch: results of operations keep the subclass, and a
    subclass may override ``__torch_function__``.
    """
    __module__ = "minitorch"
    # ndarray + Tensor defers to Tensor.__radd__ instead of making an array.
    __array_priority__ = 1000

    @property
    def is_sparse(self) -> bool:
        """Whether the layout is ``minitorch.sparse_coo`` (see
        ``minitorch._sparse_coo``, whose tensors answer True)."""
        return False

    # set on the instances _make_wrapper_subclass makes
    _is_wrapper_subclass = False

    @property
    def layout(self) -> Any:
        """How the elements are stored: ``minitorch.strided`` (a sparse COO
        tensor answers ``minitorch.sparse_coo``)."""
        import minitorch
        return minitorch.strided

    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None,
                               dtype=None, layout=None, device=None, pin_memory=False,
                               requires_grad=False, dispatch_sizes_strides_policy=None,
                               dispatch_device=False, dispatch_layout=False,
                               _extra_dispatch_keys=None, storage_size=None):
        """A tensor of subclass cls with the given geometry and dtype that
        holds no data of its own: every op on it goes to cls.__torch_dispatch__
        (minitorch.utils._python_dispatch), which usually runs it on tensors
        the instance wraps. Its memory is zeros no kernel reads."""
        import minitorch
        from .utils._python_dispatch import _wrapper_made
        if not isinstance(cls, type) or not issubclass(cls, Tensor):
            raise TypeError(f"_make_wrapper_subclass(): cls must be a subclass of "
                            f"minitorch.Tensor, got {cls!r}")
        if layout is not None and layout is not minitorch.strided:
            raise NotImplementedError(f"minitorch tensors are strided: _make_wrapper_subclass("
                                      f"layout={layout}) is not supported")
        if device is not None and device != "cpu" and device != _CPU:
            raise NotImplementedError(f"minitorch tensors live on the cpu: "
                                      f"_make_wrapper_subclass(device={device!r}) is not "
                                      f"supported")
        size = tuple(int(s) for s in size)
        if any(s < 0 for s in size):
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(size)}: {list(size)}")
        if strides is None:
            strides, step = [], 1
            for s in reversed(size):
                strides.insert(0, step)
                step *= max(s, 1)
        strides = tuple(int(s) for s in strides)
        if len(strides) != len(size):
            raise RuntimeError(f"mismatch in length of strides and shape: {len(strides)} "
                               f"strides for {len(size)} dimensions")
        offset = int(storage_offset or 0)
        lo = hi = offset
        for s, st in zip(size, strides):
            if s == 0:
                lo, hi = offset, offset - 1
                break
            lo, hi = lo + min(0, (s - 1) * st), hi + max(0, (s - 1) * st)
        if lo < 0:
            raise RuntimeError("_make_wrapper_subclass(): the strides and storage_offset reach "
                               "before the start of the storage")
        extent = max(hi + 1, int(storage_size or 0), 0)
        dtype = _C.get_default_dtype() if dtype is None else dtype
        backing = minitorch.zeros(extent, dtype=dtype)
        out = Tensor._make_subclass(cls, backing.as_strided(size, strides, offset), False)
        if requires_grad:
            out.requires_grad_(True)
        out._is_wrapper_subclass = True
        _wrapper_made(out)
        return out

    # Subclass handlers see Tensor.__repr__; the default one then runs it with
    # subclass dispatch off, so printing never recurses.
    @overridable
    def __repr__(self, *, tensor_contents: Any = None) -> str:
        name = self.dtype.__repr__()[len("minitorch."):]
        # NumPy has no bfloat16 or complex32: shown through float32 and complex64
        shown = (self.float() if name == "bfloat16" else
                 self.cfloat() if name == "complex32" else self)
        values = shown.detach().resolve_conj().numpy()
        suffixes = []
        try:
            grad_fn = self.grad_fn
        except RuntimeError:
            # a view made and changed in place in no_grad mode has no valid
            # history to show (reading it raises), as in torch
            grad_fn = None
            suffixes.append(("grad_fn", "<Invalid>"))
        if grad_fn is not None:
            suffixes.append(("grad_fn", "<%s>" % type(grad_fn).__name__))
        elif self.requires_grad and not suffixes:
            suffixes.append(("requires_grad", "True"))
        return _tensor_str.format_tensor(
            values, name, default_dtype_name=repr(_C.get_default_dtype())[len("minitorch."):],
            suffixes=suffixes)

    @overridable
    def __rdiv__(self, other: Any) -> "Tensor":
        """other / self: reflected true division under its Python 2 name."""
        return _C.TensorBase.__rtruediv__(self, other)

    def new_empty_strided(self, size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                          device: Any = None, requires_grad: bool = False,
                          pin_memory: bool = False) -> "Tensor":
        """An uninitialised tensor of the given size and strides, of self's
        dtype unless dtype is given (not overridable, as in torch)."""
        from .composites_empty import _strided
        return _strided(size, stride, self.dtype if dtype is None else dtype, requires_grad)

    @overridable
    def __reduce_ex__(self, protocol: Any) -> tuple:
        return _tensor_pickle.reduce_tensor(self)

    @overridable
    def __deepcopy__(self, memo: Any) -> "Tensor":
        return _tensor_pickle.deepcopy_tensor(self, memo)

    @overridable
    def share_memory_(self) -> "Tensor":
        """Moves the storage into shared memory (a no-op when it is there
        already); tensors sent to other processes then share it."""
        from . import multiprocessing  # noqa: F401  (registers the reductions)
        return _C._share_memory(self)

    @overridable
    def is_shared(self) -> bool:
        """Whether the storage lives in shared memory (after ``share_memory_()``, or when
        received from another process)."""
        return _C._is_shared(self)

    @overridable
    def untyped_storage(self) -> Any:
        """The storage this tensor views: the bytes it shares with every view
        of it (the same object for all of them while it lives)."""
        from .storage import UntypedStorage
        return UntypedStorage._of(self)

    @overridable
    def storage(self) -> Any:
        """The storage as a TypedStorage of the tensor's dtype; deprecated, as
        in torch, which warns: prefer ``untyped_storage()``."""
        from .storage import TypedStorage, UntypedStorage, _warn_typed
        _warn_typed(3)  # past overridable's frame, at the caller
        return TypedStorage._wrap(UntypedStorage._of(self), self.dtype)

    @property
    def device(self) -> device:
        """The device of the tensor: always ``device(type='cpu')``."""
        return _CPU

    @property
    def is_cpu(self) -> bool:
        """True: every tensor lives on the CPU."""
        return True

    @property
    def T(self) -> "Tensor":
        """The tensor with its dimensions reversed (a view); for other than 2 dimensions torch
        deprecates it and warns.
        """
        if self.dim() == 0:
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity "
                          "in these cases.", UserWarning, stacklevel=2)
        elif self.dim() != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
                "to reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(range(self.dim() - 1, -1, -1)))

    @property
    def real(self) -> "Tensor":
        """The real parts of a complex tensor as a real view; a real tensor itself."""
        return _C._functions["real"](self)

    @real.setter
    def real(self, value: Any) -> None:
        self.real.copy_(value)

    @property
    def imag(self) -> "Tensor":
        """The imaginary parts of a complex tensor as a real view."""
        return _C._functions["imag"](self)

    @imag.setter
    def imag(self, value: Any) -> None:
        self.imag.copy_(value)

    def __complex__(self) -> complex:
        return complex(self.item())

    @property
    def mT(self) -> "Tensor":
        """A view with the last two dimensions swapped (a batch of transposed matrices)."""
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self) -> "Tensor":
        """The conjugate transpose of a matrix: its transpose for real tensors, a
        conjugate view of it for complex ones (views either way)."""
        if self.dim() == 0:
            return self.conj() if self.is_complex() else self.view_as(self)
        if self.dim() != 2:
            hint = (" For batches of matrices, consider using tensor.mH" if self.dim() > 2
                    else "")
            raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). "
                               f"Got {self.dim()}-D tensor.{hint}")
        return self.transpose(0, 1).conj()

    @property
    def mH(self) -> "Tensor":
        """The conjugate transpose of a batch of matrices: ``mT`` for real tensors, a
        conjugate view of it for complex ones (views either way)."""
        if self.dim() == 0:
            return self.conj() if self.is_complex() else self.view_as(self)
        if self.dim() < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1).conj()

    @overridable
    def __format__(self, spec: str) -> str:
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __iter__(self) -> Iterator["Tensor"]:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # NumPy 2's protocol: copy=None shares memory when it can, True always
    # copies, False never does (and refuses when another dtype needs a copy).
    @overridable
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        arr = self.detach().numpy() if self.requires_grad else self.numpy()
        if dtype is not None and arr.dtype != np.dtype(dtype):
            if copy is False:
                raise ValueError(_NUMPY_NO_COPY)
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    # A NumPy function of tensors (np.sin(t), t @ array's fallback) gives a
    # tensor back as torch's does: bool results as uint8, and a tensor even
    # where NumPy would return a scalar.
    @overridable
    def __array_wrap__(self, array, context=None, return_scalar=False):
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return _C._functions["from_numpy"](array)

    @overridable
    def __contains__(self, element: Any) -> bool:
        return bool((self == element).any().item())

    # The binding's autograd methods, dispatching on self as torch's do.
    @overridable
    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Sets whether autograd records operations on this tensor, in place, and returns it.

        Only leaf tensors can change it (a non-leaf's flag comes from its inputs).

        Args:
            requires_grad (bool): the new flag. Default: ``True``.
        """
        return _C.TensorBase.requires_grad_(self, requires_grad)

    @overridable
    def retain_grad(self) -> None:
        """Makes backward fill ``.grad`` for this non-leaf tensor too (leaves always get one)."""
        return _C.TensorBase.retain_grad(self)

    @overridable
    def register_hook(
            self, hook: Callable[["Tensor"], Optional["Tensor"]]) -> "_C._RemovableHandle":
        """Registers ``hook(grad)`` to run when the gradient of this tensor is computed.

        The hook may return a tensor to use instead of ``grad``.

        Returns:
            A handle whose ``remove()`` unregisters the hook.
        """
        return _C.TensorBase.register_hook(self, hook)

    @overridable
    def register_post_accumulate_grad_hook(
            self, hook: Callable[["Tensor"], None]) -> "_C._RemovableHandle":
        """Registers ``hook(tensor)`` to run on a leaf after its ``.grad`` has been accumulated.

        Returns:
            A handle whose ``remove()`` unregisters the hook.
        """
        return _C.TensorBase.register_post_accumulate_grad_hook(self, hook)

    def new(self, *args: Any, **kwargs: Any) -> "Tensor":
        """A tensor of self's dtype by the legacy constructor rules: sizes give
        an uninitialised tensor, a sequence gives its data, nothing an empty one."""
        from ._legacy_tensor_types import legacy_new
        return legacy_new(self.dtype, args, kwargs)

    @overridable
    def detach_(self) -> "Tensor":
        """Detaches this tensor from the graph in place: it becomes a leaf that does not require
        grad.
        """
        return _C.TensorBase.detach_(self)

    @overridable
    def _is_view(self) -> bool:
        return _C.TensorBase._is_view(self)

    def __dir__(self) -> list:
        return sorted(set(super().__dir__()))


_C._set_tensor_class(Tensor)
