"""minitorch: a small torch-style tensor library whose engine is written in C.

    import minitorch as torch
"""
from . import _C
from . import _gil  # noqa: F401  (refuses a free-threaded Python with the GIL forced off)
from ._C import return_types  # noqa: F401
from ._C import (  # noqa: F401  dtypes and their torch aliases
    Size, dtype, bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
    complex64, complex128, uint16, uint32, uint64, complex32, half, float, double, short, int,
    long, cfloat, cdouble, chalf,
    get_default_dtype, set_default_dtype, promote_types, can_cast,
    set_num_threads, get_num_threads,
)
from ._tensor import Tensor, device  # noqa: F401
from ._tensor_str import set_printoptions, get_printoptions  # noqa: F401

# torch.special's rows live in minitorch.special only
globals().update({k: v for k, v in _C._functions.items() if not k.startswith("special_")})
from . import linalg  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from .functional import *  # noqa: E402,F403  (its __all__)
from .broadcasting import *  # noqa: E402,F403  (its __all__)
from .composites import *  # noqa: E402,F403  (its __all__)
from .composites_split import *  # noqa: E402,F403  (its __all__)
from .composites_index import *  # noqa: E402,F403  (its __all__)
from .composites_view_copy import *  # noqa: E402,F403  (its __all__)
from .composites_dispatch_test_ops import *  # noqa: E402,F403  (its __all__)
from .composites_forms import *  # noqa: E402,F403  (its __all__)
from .composites_inplace import *  # noqa: E402,F403  (its __all__)
from .composites_native_forms import *  # noqa: E402,F403  (its __all__)
from .composites_empty import *  # noqa: E402,F403  (its __all__)
from .composites_scatter_reduce import *  # noqa: E402,F403  (its __all__)
from .composites_put import *  # noqa: E402,F403  (its __all__)
from .composites_histogram import *  # noqa: E402,F403  (its __all__)
from .composites_search import *  # noqa: E402,F403  (its __all__)
from .composites_stft import *  # noqa: E402,F403  (its __all__)
from ._foreach import *  # noqa: E402,F403  (its __all__)
from .composites_conv import *  # noqa: E402,F403  (its __all__)
from .composites_math import *  # noqa: E402,F403  (its __all__)
from .composites_stats import *  # noqa: E402,F403  (its __all__)
from .composites_linalg import *  # noqa: E402,F403  (its __all__)
from . import composites_random  # noqa: E402,F401  (Tensor methods only)
from .composites_safe_softmax import *  # noqa: E402,F403  (its __all__)
from .composites_masked_index import *  # noqa: E402,F403  (its __all__)
from .composites_chunk_cat import *  # noqa: E402,F403  (its __all__)
from .composites_segment_reduce import *  # noqa: E402,F403  (its __all__)
from . import composites_aten  # noqa: E402,F401  (ops.aten overloads only)
from ._legacy_tensor_types import *  # noqa: E402,F403  (its __all__)
from ._global_flags import *  # noqa: E402,F403  (its __all__)
from ._sparse_coo import *  # noqa: E402,F403  (its __all__)
from . import sparse  # noqa: E402,F401
from ._dtype_info import finfo, iinfo  # noqa: E402,F401
from ._windows import *  # noqa: E402,F403  (its __all__)
from ._scalar_factory import scalar_tensor  # noqa: E402,F401
from . import special  # noqa: E402,F401
from . import signal  # noqa: E402,F401
from ._compile_stubs import compile  # noqa: E402,F401
from ._constants import e, inf, nan, pi  # noqa: E402,F401

__version__ = "0.1.0"


def is_tensor(obj) -> bool:
    """Returns True if obj is a minitorch tensor."""
    return isinstance(obj, Tensor)


def set_warn_always(b, /) -> None:
    """When b is True, warnings that are otherwise given once per process
    are given every time (useful in tests); False restores the default."""
    _C._set_warnAlways(b)


def is_warn_always_enabled() -> bool:
    """Whether set_warn_always is on."""
    return _C._get_warnAlways()


# Random number generation: one default Philox generator behind every sampler.
import builtins as _builtins  # noqa: E402
from ._C import Generator, default_generator  # noqa: E402


def manual_seed(seed) -> Generator:
    """Sets the seed for generating random numbers. Returns a `minitorch.Generator` object."""
    return default_generator.manual_seed(_builtins.int(seed))


def seed() -> int:
    """Sets the seed for generating random numbers to a non-deterministic random number."""
    return default_generator.seed()


def initial_seed() -> int:
    """Returns the initial seed for generating random numbers as a Python `long`."""
    return default_generator.initial_seed()


# Subpackages last: they build on everything above.
from . import autograd, func  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401  (torch.vmap is torch.func.vmap)
from .autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled,
)
from .autograd.grad_mode import (  # noqa: E402,F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)
from . import nn, overrides, testing  # noqa: E402,F401
from . import optim, profiler, utils  # noqa: E402,F401
from . import amp  # noqa: E402,F401
from .amp import autocast  # noqa: E402,F401
from .amp.autocast_mode import (  # noqa: E402,F401
    is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype,
    is_autocast_cache_enabled, set_autocast_cache_enabled, clear_autocast_cache,
)
from . import backends, cuda, jit  # noqa: E402,F401  (CPU-only stubs of torch's)
from . import distributed  # noqa: E402,F401  (imports no MPI until init_process_group)
from . import onnx  # noqa: E402,F401  (imports the onnx package only when export runs)
from . import distributions  # noqa: E402,F401
from . import masked  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import _function_pickle  # noqa: E402,F401  (C functions pickle by reference)
from .storage import TypedStorage, UntypedStorage  # noqa: E402,F401
from ._ops import ops  # noqa: E402,F401
from . import library  # noqa: E402,F401
from . import __config__  # noqa: E402,F401
from . import _weak_tensor_ref  # noqa: E402,F401  (installs _C._WeakTensorRef)

overrides._finish_registration()

from . import _einops_backend  # noqa: E402
_einops_backend.install()


def get_include() -> str:
    """The folder holding minitorch/minitorch.h, the header of the C API."""
    import os
    return os.path.join(os.path.dirname(__file__), "include")
