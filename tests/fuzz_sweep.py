"""The generated fuzz sweep (issue 13): every op-table row and every public
Python function, called with wrong-typed values in each argument position.

Run as a program it sweeps and writes a JSON summary (tests/test_fuzz_sweep.py
runs it in a child process, so a crash or a sanitizer abort is reported with
the call that caused it instead of killing the test run):

    python tests/fuzz_sweep.py SUMMARY.json PROGRESS_FILE

The targets are read at run time: the rows from minitorch._C._op_rows() and
the functions from the public namespaces, so a new row or function is swept
without a change here. Each target first needs a baseline call that works
(found by trying the PROFILES below, or given in BASELINES); a target with no
working baseline is reported as uncovered. Then every parameter position gets
every value of the pool while the other arguments keep their baseline values.
A call passes when it returns or raises an Exception other than SystemError.

Every differentiable row (its baseline call returns a floating tensor with a
grad_fn when its floating tensor arguments require grad) is then driven
backward with hooks that return values of the wrong shape, the wrong dtype,
None or a non-tensor: on the output, on the output's grad_fn (prehook) and
on a leaf input. A wrong value must be refused with torch's error ("hook ...
has changed the size/type of value", "expected Variable"), and None must
leave the backward as it was; anything else is a finding.
"""
import functools
import faulthandler
import gc
import inspect
import io
import json
import os
import sys
import time
import warnings

import numpy as np

import minitorch as mt
import minitorch.linalg
import minitorch.nn.functional as F
from minitorch import _C, nn, optim
from minitorch.optim import lr_scheduler

SEED = 20261123
SLOW_CALL_S = 10.0
TARGET_TIMEOUT_S = 60.0
VERBOSE = int(os.environ.get("FUZZ_VERBOSE", "0"))  # 1: each target, 2: baseline tries
ONLY = os.environ.get("FUZZ_ONLY")  # sweep only the targets whose key contains this  # one call taking longer is a finding (a hang, or a size check missing)


class Duck:
    """A tensor-like: dispatches through __torch_function__."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return "duck"


class BadIndex:
    def __index__(self):
        raise ValueError("fuzz: __index__ raised")

    def __float__(self):
        raise ValueError("fuzz: __float__ raised")


class BadSequence:
    def __len__(self):
        return 3

    def __getitem__(self, i):
        raise ValueError("fuzz: __getitem__ raised")


def _rng():
    return np.random.default_rng(SEED)


def _pool():
    """(label, factory) for the wrong values; each factory makes a fresh value,
    since an in-place op may change the one it was given."""
    nan, inf = float("nan"), float("inf")
    return [
        ("0", lambda: 0), ("1", lambda: 1), ("-1", lambda: -1), ("2.5", lambda: 2.5),
        ("True", lambda: True), ("1+2j", lambda: 1 + 2j),
        ("2**62", lambda: 2 ** 62), ("2**63", lambda: 2 ** 63),
        ("-2**63-1", lambda: -2 ** 63 - 1), ("2**70", lambda: 2 ** 70),
        ("nan", lambda: nan), ("inf", lambda: inf), ("-inf", lambda: -inf),
        ("None", lambda: None), ("'abc'", lambda: "abc"), ("''", lambda: ""),
        ("b'x'", lambda: b"x"), ("[]", lambda: []), ("[1, 2]", lambda: [1, 2]),
        ("(2, 3)", lambda: (2, 3)), ("[[1, 2], [3]]", lambda: [[1, 2], [3]]),
        ("[[1.5, 2.0], [3.0, 4.0]]", lambda: [[1.5, 2.0], [3.0, 4.0]]),
        ("[2**70]", lambda: [2 ** 70]), ("[-1, -1]", lambda: [-1, -1]),
        ("[None]", lambda: [None]), ("['a']", lambda: ["a"]),
        ("[ones(2), 1]", lambda: [mt.ones(2), 1]), ("[[ones(2)]]", lambda: [[mt.ones(2)]]),
        ("object()", lambda: object()), ("Duck()", lambda: Duck()),
        ("[Duck()]", lambda: [Duck()]), ("BadIndex()", lambda: BadIndex()),
        ("[BadIndex()]", lambda: [BadIndex()]), ("BadSequence()", lambda: BadSequence()),
        ("slice(None)", lambda: slice(None)), ("...", lambda: Ellipsis),
        ("{}", lambda: {}), ("iter([1, 2])", lambda: iter([1, 2])),
        ("mt.int64", lambda: mt.int64), ("mt.bool", lambda: mt.bool),
        ("np.zeros((2, 3))", lambda: np.zeros((2, 3))),
        ("np.arange(6, dtype=int32)[::2]", lambda: np.arange(6, dtype=np.int32)[::2]),
        ("np.array(['a'])", lambda: np.array(["a"])),
        ("np.zeros(2, complex)", lambda: np.zeros(2, dtype=np.complex128)),
        ("np.float64(1.5)", lambda: np.float64(1.5)), ("np.int64(3)", lambda: np.int64(3)),
        ("np.bool_(True)", lambda: np.bool_(True)),
        ("zeros(0)", lambda: mt.zeros(0)), ("zeros(0, 3)", lambda: mt.zeros(0, 3)),
        ("zeros(1, 3).expand(2, 3)", lambda: mt.zeros(1, 3).expand(2, 3)),
        ("arange(12.).reshape(3, 4).t()", lambda: mt.arange(12.0).reshape(3, 4).t()),
        ("arange(12.)[::3]", lambda: mt.arange(12.0)[::3]),
        ("tensor(1.5)", lambda: mt.tensor(1.5)),
        ("tensor([[True, False, True]])", lambda: mt.tensor([[True, False, True]])),
        ("arange(6).reshape(2, 3)", lambda: mt.arange(6).reshape(2, 3)),
        ("tensor([-1, 5, 2**40])", lambda: mt.tensor([-1, 5, 2 ** 40])),
        ("tensor([200, 3], uint8)", lambda: mt.tensor([200, 3], dtype=mt.uint8)),
        ("ones(2, 3, float16)", lambda: mt.ones(2, 3, dtype=mt.float16)),
        ("1+2j", lambda: 1 + 2j),
        ("ones(2, 3, complex128)", lambda: mt.ones(2, 3, dtype=mt.complex128)),
        ("tensor([1+2j, nan+infj], complex64)",
         lambda: mt.tensor([1 + 2j, complex(nan, inf)], dtype=mt.complex64)),
        ("ones(3, 2, complex64).t()", lambda: mt.ones(3, 2, dtype=mt.complex64).t()),
        ("tensor([nan, inf, -inf], float64)",
         lambda: mt.tensor([nan, inf, -inf], dtype=mt.float64)),
        ("ones(2, 3, requires_grad=True)", lambda: mt.ones(2, 3, requires_grad=True)),
        ("ones((1,) * 8)", lambda: mt.ones((1,) * 8)),
    ]


# ---------------------------------------------------------------- baselines


class Profile:
    """One guess at working arguments: the shape of float tensors, and what
    an index, a mask, a size, dims and an int look like for it."""

    def __init__(self, name, shape, dtype=None, index=None, weight=None, ints=1, dims=None):
        self.name, self.shape, self.dtype = name, shape, dtype
        self.index = index if index is not None else shape
        self.weight = weight
        self.ints = ints
        self.dims = dims if dims is not None else list(range(len(shape)))[::-1][:2] or [0]

    def tensor(self, role):
        rng = np.random.default_rng(len(role) + len(self.shape))
        if role in ("index", "indices", "idx", "target", "index_tensor") and self.dtype is None:
            return mt.zeros(*self.index, dtype=mt.int64)
        if role == "mask":
            return mt.tensor(rng.integers(0, 2, self.shape).astype(bool))
        shape = self.shape
        if self.weight is not None and role == "weight":
            shape = self.weight
        elif self.weight is not None and role == "bias":
            shape = self.weight[:1]
        if self.dtype is mt.bool:
            return mt.tensor(rng.integers(0, 2, shape).astype(bool))
        if self.dtype is mt.int64:
            return mt.tensor(rng.integers(1, 4, shape))
        return mt.tensor(rng.uniform(0.25, 0.75, shape).astype(np.float32))

    def value(self, name, type_text):
        """A plausible value for a required parameter (a factory)."""
        t = type_text.rstrip("?")
        if t == "Tensor":
            return lambda: self.tensor(name)
        if t == "Tensor[]":
            return lambda: [self.tensor(name), self.tensor(name)]
        if t in ("int[]", "int[1]", "int[2]", "int[3]"):
            if name in ("size", "shape", "sizes", "output_size"):
                return lambda: list(self.shape)
            if name in ("dims", "dim", "perm"):
                return lambda: list(self.dims)
            return lambda: [self.ints] * max(1, len(self.shape) - 2)
        if t == "int":
            return lambda: 0 if name in ("dim", "dim0", "axis") else self.ints
        if t in ("Scalar", "float"):
            return lambda: 0.5
        if t == "bool":
            return lambda: False
        if t == "dtype":
            return lambda: mt.float32
        if t == "str":
            return lambda: {"reduce": "sum", "rounding_mode": "floor", "padding": "same",
                            "equation": "ij->ji"}.get(name, "sum")
        if t == "Generator":
            return lambda: mt.Generator()
        if t == "object":
            if name == "data":
                return lambda: np.ones(self.shape).tolist()
            if name in ("indices", "key"):
                return lambda: 0
            return lambda: np.ones(self.shape, dtype=np.float32)
        return lambda: self.tensor(name)


PROFILES = [
    Profile("2x3", (2, 3)),
    Profile("3", (3,), dims=[0]),
    Profile("2x2", (2, 2), index=(2,)),
    Profile("int64 2x3", (2, 3), dtype=mt.int64),
    Profile("bool 2x3", (2, 3), dtype=mt.bool),
    Profile("conv2d", (1, 2, 5, 5), weight=(3, 2, 2, 2), index=(1, 2, 5, 5)),
    Profile("conv1d", (1, 2, 5), weight=(3, 2, 2), index=(1, 2, 5)),
    Profile("2x3 ints 2", (2, 3), ints=2),
    Profile("0-dim", ()),
    Profile("int64 0-dim", (), dtype=mt.int64),
    Profile("2x3x4", (2, 3, 4), index=(2,)),
]


def _idx(*v):
    return mt.tensor(list(v), dtype=mt.int64)


class _SweepWrapper(mt.Tensor):
    """The subclass Tensor._make_wrapper_subclass is swept with: it answers
    no op, so any op reaching one raises."""

    @classmethod
    def __torch_dispatch__(cls, func, types, args, kwargs):
        return NotImplemented


def _f(*shape):
    return mt.tensor(np.random.default_rng(len(shape)).uniform(0.25, 0.75, shape)
                     .astype(np.float32))


def _sparse():
    """A 2 x 3 sparse COO tensor with duplicate coordinates (uncoalesced)."""
    return mt.sparse_coo_tensor(mt.tensor([[0, 1, 0], [2, 0, 2]]), _f(3), (2, 3))


def _spd():
    """A symmetric positive-definite 3 x 3 float32 matrix (the linalg baselines)."""
    a = _f(3, 3)
    return a @ a.mT + mt.eye(3)


def _params(*p):
    return lambda: mt.nn.Parameter(_f(*p))


def _saved():
    f = io.BytesIO()
    mt.save(mt.ones(2), f)
    f.seek(0)
    return f


def _opt(cls=None):
    return lambda: (cls or optim.SGD)([_params(2, 3)()], lr=0.1)


# Working arguments for the targets no profile fits: target key ->
# factory of (args, kwargs).
BASELINES = {
    "mt.bincount": lambda: ((_idx(0, 2, 2),), {}),
    "Tensor.bincount": lambda: ((_idx(0, 2, 2),), {}),
    "mt.load": lambda: ((_saved(),), {}),
    "mt.scatter_reduce": lambda: ((_f(2, 3), 0, _idx(0, 1, 0).expand(2, 3), _f(2, 3), "amax"), {}),
    "Tensor.scatter_reduce": lambda: ((_f(2, 3), 0, _idx(0, 1, 0).expand(2, 3), _f(2, 3), "prod"),
                                      {}),
    "Tensor.scatter_reduce_": lambda: ((_f(2, 3), 0, _idx(0, 1, 0).expand(2, 3), _f(2, 3), "sum"),
                                       {}),
    "mt.index_reduce": lambda: ((_f(3, 2), 0, _idx(0, 2, 2), _f(3, 2), "amin"), {}),
    "mt.native_layer_norm": lambda: ((_f(2, 3), [3], _f(3), _f(3), 1e-5), {}),
    "mt.native_group_norm": lambda: ((_f(2, 4, 3), _f(4), _f(4), 2, 4, 3, 2, 1e-5), {}),
    "mt.native_batch_norm": lambda: ((_f(4, 3), _f(3), _f(3), _f(3), _f(3), True, 0.1, 1e-5),
                                     {}),
    "mt.grid_sampler_2d": lambda: ((_f(1, 2, 3, 4), _f(1, 2, 2, 2), 0, 0, False), {}),
    "mt.grid_sampler_3d": lambda: ((_f(1, 2, 3, 4, 2), _f(1, 2, 2, 2, 3), 0, 0, False), {}),
    "mt.segment_reduce": lambda: ((_f(4), "sum"), {"lengths": _idx(1, 3)}),
    "Tensor.index_reduce": lambda: ((_f(3, 2), 0, _idx(0, 2, 2), _f(3, 2), "mean"), {}),
    "Tensor.index_reduce_": lambda: ((_f(3, 2), 0, _idx(0, 2, 2), _f(3, 2), "prod"), {}),

    "mt.sparse_coo_tensor": lambda: ((mt.tensor([[0, 1], [2, 0]]), _f(2), (2, 3)), {}),
    # the sparse layout's methods, which a strided tensor refuses
    **{f"Tensor.{name}": (lambda: ((_sparse().coalesce(),), {}))
       for name in ("coalesce", "is_coalesced", "indices", "values", "_indices", "_values",
                    "_nnz", "sparse_dim", "dense_dim")},
    "Tensor.sparse_mask": lambda: ((_f(2, 3), _sparse().coalesce()), {}),

    "mt.can_cast": lambda: ((mt.int64, mt.float32), {}),
    "mt.promote_types": lambda: ((mt.int64, mt.float32), {}),
    "mt.set_default_dtype": lambda: ((mt.float32,), {}),
    "mt.set_num_threads": lambda: ((1,), {}),
    "mt.set_warn_always": lambda: ((False,), {}),
    "mt.set_default_device": lambda: (("cpu",), {}),
    "mt.use_deterministic_algorithms": lambda: ((False,), {}),
    "mt.autocast": lambda: (("cpu",), {}),
    "mt.get_autocast_dtype": lambda: (("cpu",), {}),
    "mt.set_autocast_dtype": lambda: (("cpu", mt.bfloat16), {}),
    "mt.set_autocast_enabled": lambda: (("cpu", False), {}),
    "mt.set_autocast_cache_enabled": lambda: ((True,), {}),
    "mt.iinfo": lambda: ((mt.int32,), {}),
    "mt.hann_window": lambda: ((4,), {}),
    "mt.hamming_window": lambda: ((4,), {}),
    "mt.blackman_window": lambda: ((4,), {}),
    "mt.bartlett_window": lambda: ((4,), {}),
    "mt.kaiser_window": lambda: ((4,), {}),
    "mt.cartesian_prod": lambda: ((_f(2), _f(3)), {}),
    "mt.chain_matmul": lambda: ((_f(2, 3), _f(3, 4), _f(4, 2)), {}),
    "mt.einsum": lambda: (("ij,jk->ik", _f(2, 3), _f(3, 2)), {}),
    "mt.select_scatter": lambda: ((_f(2, 3), _f(3), 0, 1), {}),
    "Tensor.select_scatter": lambda: ((_f(2, 3), _f(3), 0, 1), {}),
    "Tensor.unfold": lambda: ((_f(2, 6), 1, 2, 2), {}),
    "mt.as_strided_copy": lambda: ((_f(2, 3), (2, 2), (1, 2)), {}),
    "mt.as_strided_scatter": lambda: ((_f(2, 3), _f(2, 2), (2, 2), (1, 2)), {}),
    "Tensor.as_strided_scatter": lambda: ((_f(2, 3), _f(2, 2), (2, 2), (1, 2)), {}),
    "mt.diagonal_scatter": lambda: ((_f(2, 3), _f(2)), {}),
    "Tensor.diagonal_scatter": lambda: ((_f(2, 3), _f(2)), {}),
    "mt.empty_permuted": lambda: (((2, 3, 4), (2, 0, 1)), {}),
    "mt.empty_strided": lambda: (((2, 3), (1, 2)), {}),
    "Tensor.new_empty_strided": lambda: ((_f(2), (2, 3), (1, 2)), {}),
    "mt.expand_copy": lambda: ((_f(3, 1), (3, 4)), {}),
    "mt.narrow_copy": lambda: ((_f(2, 6), 1, 2, 3), {}),
    "Tensor.narrow_copy": lambda: ((_f(2, 6), 1, 2, 3), {}),
    "mt.permute_copy": lambda: ((_f(2, 3), (1, 0)), {}),
    "mt.split_with_sizes_copy": lambda: ((_f(5, 2), [2, 3]), {}),
    "mt.transpose_copy": lambda: ((_f(2, 3), 0, 1), {}),
    "mt.unfold_copy": lambda: ((_f(2, 6), 1, 2, 2), {}),
    "mt.unsqueeze_copy": lambda: ((_f(2, 3), 1), {}),
    "mt.view_copy": lambda: ((_f(2, 3), (3, 2)), {}),
    "Tensor.sum_to_size": lambda: ((_f(2, 3), 1, 3), {}),
    "mt.addbmm": lambda: ((_f(2, 2), _f(3, 2, 4), _f(3, 4, 2)), {}),
    "Tensor.addbmm": lambda: ((_f(2, 2), _f(3, 2, 4), _f(3, 4, 2)), {}),
    "Tensor.addbmm_": lambda: ((_f(2, 2), _f(3, 2, 4), _f(3, 4, 2)), {}),
    "Tensor.addr_": lambda: ((_f(2, 3), _f(2), _f(3)), {}),
    "Tensor.float_power_": lambda: ((_f(2, 3).double(), 2.0), {}),
    "mt.mvlgamma": lambda: ((_f(2, 3) + 2, 3), {}),
    "Tensor.mvlgamma": lambda: ((_f(2, 3) + 2, 3), {}),
    "Tensor.mvlgamma_": lambda: ((_f(2, 3) + 2, 3), {}),
    "mt.renorm": lambda: ((_f(2, 3), 2.0, 0, 0.5), {}),
    "Tensor.renorm": lambda: ((_f(2, 3), 2.0, 0, 0.5), {}),
    "Tensor.renorm_": lambda: ((_f(2, 3), 2.0, 0, 0.5), {}),
    "mt.cholesky": lambda: ((_spd(),), {}),
    "mt.stft": lambda: ((_f(40), 8), {"return_complex": True}),
    "Tensor.stft": lambda: ((_f(40), 8), {"return_complex": True}),
    "mt.istft": lambda: ((mt.stft(_f(40), 8, return_complex=True), 8), {}),
    "Tensor.istft": lambda: ((mt.stft(_f(40), 8, return_complex=True), 8), {}),
    "fft.fftfreq": lambda: ((5,), {}),
    "fft.rfftfreq": lambda: ((5,), {}),
    "Tensor.cholesky": lambda: ((_spd(),), {}),
    "linalg.cholesky": lambda: ((_spd(),), {}),
    "mt.lu_solve": lambda: ((_f(3, 2), *mt.linalg.lu_factor(_spd())), {}),
    "Tensor.lu_solve": lambda: ((_f(3, 2), *mt.linalg.lu_factor(_spd())), {}),
    "linalg.lu_solve": lambda: ((*mt.linalg.lu_factor(_spd()), _f(3, 2)), {}),
    "mt.lu_unpack": lambda: (tuple(mt.linalg.lu_factor(_spd())), {}),
    "linalg.ldl_solve": lambda: ((*mt.linalg.ldl_factor(_spd()), _f(3, 2)), {}),
    "linalg.solve_triangular": lambda: ((_spd(), _f(3, 2)), {"upper": True}),
    "linalg.tensorinv": lambda: ((_spd().reshape(3, 3, 1), 1), {}),
    "linalg.tensorsolve": lambda: ((_spd().reshape(3, 3, 1), _f(3)), {}),
    # iteration counts as keywords (a swept 2**62 iterations would only be slow, as in torch)
    "mt.svd_lowrank": lambda: ((_f(4, 3),), {"q": 2, "niter": 1}),
    "mt.pca_lowrank": lambda: ((_f(4, 3),), {"q": 2, "niter": 1}),
    "Tensor.fill_diagonal_": lambda: ((_f(3, 3), 1.5), {}),
    "Tensor.__format__": lambda: ((mt.tensor(1.5), ".2f"), {}),
    "Tensor.__deepcopy__": lambda: ((_f(2), {}), {}),
    "Tensor.__array_wrap__": lambda: ((_f(2), np.ones(2)), {}),
    "Tensor.__new__": lambda: ((mt.Tensor, [1.0, 2.0]), {}),
    "Tensor.__torch_function__": lambda: ((mt.add, (mt.Tensor,), (_f(2), _f(2)), {}), {}),
    "Tensor._make_subclass": lambda: ((mt.Tensor, _f(2)), {}),
    "Tensor._make_wrapper_subclass": lambda: ((_SweepWrapper, (2, 3)), {"dtype": mt.float64}),
    "Tensor.as_subclass": lambda: ((_f(2), mt.Tensor), {}),
    "Tensor.backward": lambda: ((_f(2).requires_grad_().sum(),), {}),
    "Tensor.retain_grad": lambda: ((_f(2).requires_grad_().exp(),), {}),
    "Tensor.register_hook": lambda: ((_f(2).requires_grad_(), lambda g: g), {}),
    "Tensor.register_post_accumulate_grad_hook":
        lambda: ((_f(2).requires_grad_(), lambda p: None), {}),
    "Tensor.data": lambda: ((_f(2), _f(2)), {}),
    "Tensor.grad": lambda: ((_f(2), _f(2)), {}),
    "Tensor.requires_grad": lambda: ((_f(2), True), {}),
    "Tensor.real": lambda: ((_f(2), _f(2)), {}),
    "Tensor.imag": lambda: ((mt.zeros(2, dtype=mt.complex64), _f(2)), {}),
    "nn.CosineSimilarity.forward": lambda: ((_f(2, 3), _f(2, 3)), {}),
    # torch's kl_div refuses an integral target, which the profiles try first
    "F.kl_div": lambda: ((_f(2, 3), _f(2, 3)), {}),
    "nn.KLDivLoss.forward": lambda: ((_f(2, 3), _f(2, 3)), {}),
    "nn.PairwiseDistance.forward": lambda: ((_f(2, 3), _f(2, 3)), {}),
    "F.adaptive_avg_pool1d": lambda: ((_f(1, 2, 6), 3), {}),
    "F.interpolate": lambda: ((_f(1, 2, 4, 4), 3), {}),
    "F.upsample": lambda: ((_f(1, 2, 4, 4), 3), {}),
    "F.upsample_nearest": lambda: ((_f(1, 2, 4, 4), 3), {}),
    "F.upsample_bilinear": lambda: ((_f(1, 2, 4, 4), 3), {}),
    "F.pixel_shuffle": lambda: ((_f(1, 4, 2, 2), 2), {}),
    "F.pixel_unshuffle": lambda: ((_f(1, 1, 4, 4), 2), {}),
    "F.unfold": lambda: ((_f(1, 2, 4, 4), 2), {}),
    "F.fold": lambda: ((_f(1, 4, 9), 4, 2), {}),
    "F.affine_grid": lambda: ((_f(1, 2, 3), [1, 1, 3, 3], False), {}),
    "F.grid_sample": lambda: ((_f(1, 2, 3, 3), _f(1, 2, 2, 2)), {"align_corners": False}),
    "nn.Upsample": lambda: ((), {"scale_factor": 2}),
    "nn.UpsamplingNearest2d": lambda: ((), {"scale_factor": 2}),
    "nn.UpsamplingBilinear2d": lambda: ((), {"scale_factor": 2}),
    "nn.Upsample.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.UpsamplingNearest2d.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.UpsamplingBilinear2d.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.DataParallel": lambda: ((mt.nn.Linear(3, 2),), {}),
    "nn.DataParallel.forward": lambda: ((_f(2, 3),), {}),
    "nn.ChannelShuffle": lambda: ((2,), {}),
    "nn.ChannelShuffle.forward": lambda: ((_f(1, 4, 2, 2),), {}),
    "nn.LocalResponseNorm": lambda: ((2,), {}),
    "nn.LocalResponseNorm.forward": lambda: ((_f(1, 4, 2, 2),), {}),
    "nn.PixelShuffle": lambda: ((2,), {}),
    "nn.PixelShuffle.forward": lambda: ((_f(1, 4, 2, 2),), {}),
    "nn.PixelUnshuffle": lambda: ((2,), {}),
    "nn.PixelUnshuffle.forward": lambda: ((_f(1, 1, 4, 4),), {}),
    "nn.Fold": lambda: (((3, 3), 2), {}),
    "nn.Fold.forward": lambda: ((_f(1, 4, 4),), {}),
    "nn.Unfold": lambda: ((2,), {}),
    "nn.Unfold.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "F.max_pool3d": lambda: ((_f(1, 2, 4, 4, 4), 2), {}),
    "F.avg_pool3d": lambda: ((_f(1, 2, 4, 4, 4), 2), {}),
    "mt.conv3d": lambda: ((_f(1, 2, 4, 4, 4), _f(3, 2, 2, 2, 2)), {}),
    "F.conv3d": lambda: ((_f(1, 2, 4, 4, 4), _f(3, 2, 2, 2, 2)), {}),
    "mt.conv_transpose1d": lambda: ((_f(1, 2, 5), _f(2, 3, 2)), {}),
    "F.conv_transpose1d": lambda: ((_f(1, 2, 5), _f(2, 3, 2)), {}),
    "mt.conv_transpose2d": lambda: ((_f(1, 2, 4, 4), _f(2, 3, 2, 2)), {}),
    "F.conv_transpose2d": lambda: ((_f(1, 2, 4, 4), _f(2, 3, 2, 2)), {}),
    "mt.conv_transpose3d": lambda: ((_f(1, 2, 3, 3, 3), _f(2, 3, 2, 2, 2)), {}),
    "F.conv_transpose3d": lambda: ((_f(1, 2, 3, 3, 3), _f(2, 3, 2, 2, 2)), {}),
    "nn.Conv3d.forward": lambda: ((_f(1, 2, 4, 4, 4),), {}),
    "nn.ConvTranspose1d.forward": lambda: ((_f(1, 2, 5),), {}),
    "nn.ConvTranspose2d.forward": lambda: ((_f(1, 2, 4, 4),), {}),
    "nn.ConvTranspose3d.forward": lambda: ((_f(1, 2, 3, 3, 3),), {}),
    "F.batch_norm": lambda: ((_f(2, 3), _f(3), _f(3)), {}),
    "F.bilinear": lambda: ((_f(2, 3), _f(2, 4), _f(5, 3, 4)), {}),
    "F.embedding": lambda: ((_idx(0, 2), _f(4, 3)), {}),
    "F.layer_norm": lambda: ((_f(2, 3), [3]), {}),
    "nn.BatchNorm1d": lambda: ((3,), {}),
    "nn.BatchNorm2d": lambda: ((2,), {}),
    "nn.BatchNorm3d": lambda: ((2,), {}),
    "nn.BatchNorm3d.forward": lambda: ((_f(2, 2, 2, 2, 2),), {}),
    "nn.SyncBatchNorm": lambda: ((2,), {}),
    "nn.SyncBatchNorm.forward": lambda: ((_f(3, 2, 2),), {}),
    "F.lp_pool3d": lambda: ((_f(1, 2, 4, 4, 4), 2.0, 2), {}),
    "nn.LPPool1d": lambda: ((2.0, 2), {}),
    "nn.LPPool1d.forward": lambda: ((_f(1, 2, 6),), {}),
    "nn.LPPool2d": lambda: ((2.0, 2), {}),
    "nn.LPPool2d.forward": lambda: ((_f(1, 2, 4, 4),), {}),
    "nn.LPPool3d": lambda: ((2.0, 2), {}),
    "nn.LPPool3d.forward": lambda: ((_f(1, 2, 4, 4, 4),), {}),
    "nn.LazyConv2d": lambda: ((3, 2), {}),
    "nn.LazyConv2d.forward": lambda: ((_f(1, 2, 5, 5),), {}),
    "nn.LazyConv3d": lambda: ((3, 2), {}),
    "nn.LazyConv3d.forward": lambda: ((_f(1, 2, 4, 4, 4),), {}),
    "nn.LazyConvTranspose2d": lambda: ((3, 2), {}),
    "nn.LazyConvTranspose2d.forward": lambda: ((_f(1, 2, 4, 4),), {}),
    "nn.LazyConvTranspose3d": lambda: ((3, 2), {}),
    "nn.LazyConvTranspose3d.forward": lambda: ((_f(1, 2, 3, 3, 3),), {}),
    "nn.Bilinear": lambda: ((3, 3, 2), {}),
    "nn.Conv1d": lambda: ((2, 3, 2), {}),
    "nn.Conv2d": lambda: ((2, 3, 2), {}),
    "nn.Conv3d": lambda: ((2, 3, 2), {}),
    "nn.ConvTranspose1d": lambda: ((2, 3, 2), {}),
    "nn.ConvTranspose2d": lambda: ((2, 3, 2), {}),
    "nn.ConvTranspose3d": lambda: ((2, 3, 2), {}),
    "nn.Embedding": lambda: ((4, 3), {}),
    "nn.FractionalMaxPool2d": lambda: ((2,), {"output_size": 2}),
    "nn.FractionalMaxPool3d": lambda: ((2,), {"output_size": 2}),
    "nn.FractionalMaxPool2d.forward": lambda: ((_f(1, 2, 4, 4),), {}),
    "nn.FractionalMaxPool3d.forward": lambda: ((_f(1, 2, 4, 4, 4),), {}),
    "F.fractional_max_pool2d": lambda: ((_f(1, 2, 4, 4), 2, 2), {}),
    "F.fractional_max_pool2d_with_indices": lambda: ((_f(1, 2, 4, 4), 2, 2), {}),
    "F.fractional_max_pool3d": lambda: ((_f(1, 2, 4, 4, 4), 2, 2), {}),
    "F.fractional_max_pool3d_with_indices": lambda: ((_f(1, 2, 4, 4, 4), 2, 2), {}),
    "F.max_pool3d_with_indices": lambda: ((_f(1, 2, 4, 4, 4), 2), {}),
    "nn.EmbeddingBag": lambda: ((4, 3), {}),
    "nn.GRU": lambda: ((3, 4), {}),
    "nn.LSTM": lambda: ((3, 4), {}),
    "nn.RNN": lambda: ((3, 4), {}),
    "nn.RNNBase": lambda: (("RNN_TANH", 3, 4), {}),
    "nn.RNNCell": lambda: ((3, 4), {}),
    "nn.LSTMCell": lambda: ((3, 4), {}),
    "nn.GRUCell": lambda: ((3, 4), {}),
    "nn.RNNCellBase": lambda: ((3, 4, True, 1), {}),
    "nn.GroupNorm": lambda: ((1, 2), {}),
    "nn.LayerNorm": lambda: ((3,), {}),
    "nn.Linear": lambda: ((3, 2), {}),
    "nn.MultiheadAttention": lambda: ((4, 2), {}),
    "nn.Threshold": lambda: ((0.5, 0.0), {}),
    "nn.Unflatten": lambda: ((1, (3, 1)), {}),
    "nn.AdaptiveAvgPool1d": lambda: ((2,), {}),
    "nn.Embedding.forward": lambda: ((_idx(0, 2),), {}),
    "nn.EmbeddingBag.forward": lambda: ((_idx(0, 2, 3), _idx(0, 2)), {}),
    "nn.LinearCrossEntropyLoss": lambda: ((3, 2), {}),
    "nn.LinearCrossEntropyLoss.forward": lambda: ((_f(2, 3), _idx(0, 1)), {}),
    "F.ctc_loss": lambda: ((_f(4, 2, 3), _idx(1, 2, 2, 1), [4, 4], [2, 2]), {}),
    "nn.CTCLoss.forward": lambda: ((_f(4, 2, 3), _idx(1, 2, 2, 1), [4, 4], [2, 2]), {}),
    "F.embedding_bag": lambda: ((_idx(0, 2, 3), _f(4, 3), _idx(0, 2)), {}),
    "nn.Linear.forward": lambda: ((_f(2, 3),), {}),
    "nn.LayerNorm.forward": lambda: ((_f(2, 3),), {}),
    "nn.Conv1d.forward": lambda: ((_f(1, 2, 5),), {}),
    "nn.Conv2d.forward": lambda: ((_f(1, 2, 5, 5),), {}),
    "nn.GroupNorm.forward": lambda: ((_f(1, 2, 5, 5),), {}),
    "nn.AdaptiveAvgPool1d.forward": lambda: ((_f(1, 2, 6),), {}),
    "nn.MultiheadAttention.forward": lambda: ((_f(2, 4), _f(2, 4), _f(2, 4)), {}),
    # attention, transformers and the extra norms: small sizes, layer counts as
    # keywords (a swept 2**62 layers would only be slow, as in torch)
    "F.scaled_dot_product_attention": lambda: ((_f(2, 4), _f(3, 4), _f(3, 4)), {}),
    "F.multi_head_attention_forward": lambda: (
        (_f(2, 4), _f(3, 4), _f(3, 4), 4, 2, _f(12, 4), _f(12), None, None, False, 0.0,
         _f(4, 4), _f(4)), {}),
    "F.rms_norm": lambda: ((_f(2, 3), [3]), {}),
    "F.instance_norm": lambda: ((_f(1, 2, 3),), {}),
    "nn.RMSNorm": lambda: ((3,), {}),
    "nn.RMSNorm.forward": lambda: ((_f(2, 3),), {}),
    "nn.InstanceNorm1d": lambda: ((2,), {}),
    "nn.InstanceNorm1d.forward": lambda: ((_f(1, 2, 3),), {}),
    "nn.InstanceNorm2d": lambda: ((2,), {}),
    "nn.InstanceNorm2d.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.InstanceNorm3d": lambda: ((2,), {}),
    "nn.InstanceNorm3d.forward": lambda: ((_f(1, 2, 2, 2, 2),), {}),
    "nn.TransformerEncoderLayer": lambda: ((4, 2), {"dim_feedforward": 8}),
    "nn.TransformerEncoderLayer.forward": lambda: ((_f(3, 1, 4),), {}),
    "nn.TransformerDecoderLayer": lambda: ((4, 2), {"dim_feedforward": 8}),
    "nn.TransformerDecoderLayer.forward": lambda: ((_f(3, 1, 4), _f(2, 1, 4)), {}),
    "nn.TransformerEncoder": lambda: ((nn.TransformerEncoderLayer(4, 2, 8),),
                                      {"num_layers": 1}),
    "nn.TransformerEncoder.forward": lambda: ((_f(3, 1, 4),), {}),
    "nn.TransformerDecoder": lambda: ((nn.TransformerDecoderLayer(4, 2, 8),),
                                      {"num_layers": 1}),
    "nn.TransformerDecoder.forward": lambda: ((_f(3, 1, 4), _f(2, 1, 4)), {}),
    "nn.Transformer": lambda: ((4, 2), {"num_encoder_layers": 1, "num_decoder_layers": 1,
                                        "dim_feedforward": 8}),
    "nn.Transformer.forward": lambda: ((_f(3, 1, 4), _f(2, 1, 4)), {}),
    "nn.CosineEmbeddingLoss.forward": lambda: ((_f(2, 3), _f(2, 3), mt.tensor([1, -1])), {}),
    "nn.HingeEmbeddingLoss.forward": lambda: ((_f(2, 3), mt.ones(2, 3)), {}),
    "nn.MarginRankingLoss.forward": lambda: ((_f(3), _f(3), mt.ones(3)), {}),
    "nn.RNN.forward": lambda: ((_f(2, 3),), {}),
    "nn.GRU.forward": lambda: ((_f(2, 3),), {}),
    "nn.LSTM.forward": lambda: ((_f(2, 3),), {}),
    "nn.RNNBase.forward": lambda: ((_f(2, 3),), {}),
    "nn.RNNCell.forward": lambda: ((_f(2, 3),), {}),
    "nn.LSTMCell.forward": lambda: ((_f(2, 3),), {}),
    "nn.GRUCell.forward": lambda: ((_f(2, 3),), {}),
    "nn.CircularPad1d.forward": lambda: ((_f(1, 2, 3),), {}),
    "nn.ReflectionPad1d.forward": lambda: ((_f(1, 2, 3),), {}),
    "nn.ReplicationPad1d.forward": lambda: ((_f(1, 2, 3),), {}),
    "nn.CircularPad2d.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.ReflectionPad2d.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.ReplicationPad2d.forward": lambda: ((_f(1, 2, 3, 3),), {}),
    "nn.CircularPad3d.forward": lambda: ((_f(1, 2, 3, 3, 3),), {}),
    "nn.ReflectionPad3d.forward": lambda: ((_f(1, 2, 3, 3, 3),), {}),
    "nn.ReplicationPad3d.forward": lambda: ((_f(1, 2, 3, 3, 3),), {}),
    "optim.Adagrad": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.Adam": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.AdamW": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.RMSprop": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.SGD": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.Adadelta": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.Adafactor": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.Muon": lambda: (([_params(2, 3)()],), {"lr": 0.02}),
    "optim.NAdam": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.RAdam": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.Adamax": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.Rprop": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.ASGD": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.SparseAdam": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "optim.LBFGS": lambda: (([_params(2, 3)()],), {"lr": 0.1}),
    "lr_scheduler.CosineAnnealingLR": lambda: ((_opt()(), 10), {}),
    "lr_scheduler.ExponentialLR": lambda: ((_opt()(), 0.5), {}),
    "lr_scheduler.LambdaLR": lambda: ((_opt()(), lambda e: 0.5), {}),
    "lr_scheduler.MultiStepLR": lambda: ((_opt()(), [2, 4]), {}),
    "lr_scheduler.OneCycleLR": lambda: ((_opt()(), 1.0), {"total_steps": 10}),
    "lr_scheduler.StepLR": lambda: ((_opt()(), 2), {}),
    "lr_scheduler.ConstantLR": lambda: ((_opt()(),), {}),
    "lr_scheduler.LinearLR": lambda: ((_opt()(),), {}),
    "lr_scheduler.PolynomialLR": lambda: ((_opt()(),), {}),
    "lr_scheduler.ReduceLROnPlateau": lambda: ((_opt()(),), {}),
    "lr_scheduler.MultiplicativeLR": lambda: ((_opt()(), lambda e: 0.5), {}),
    "lr_scheduler.CyclicLR": lambda: ((_opt(optim.Adam)(), 0.01, 0.1), {}),
    "lr_scheduler.CosineAnnealingWarmRestarts": lambda: ((_opt()(), 3), {}),
    "lr_scheduler.SequentialLR": lambda: (
        (lambda o: (o, [lr_scheduler.StepLR(o, 2)], []))(_opt()()), {}),
    "lr_scheduler.ChainedScheduler": lambda: (([lr_scheduler.StepLR(_opt()(), 2)],), {}),
}
# Modules whose forward is not meant to be called: calling it is the test.
NO_FORWARD = ("ModuleDict", "ModuleList", "ParameterList", "ParameterDict", "RNNBase",
              "RNNCellBase")
# Public callables that always raise, as torch's do: swept, never expected to return.
ALWAYS_RAISE = {
    "mt.dtype": "dtype instances cannot be created",
    "Tensor.cuda": "no CUDA, as in a CPU-only torch",
    "mt.eig": "removed from torch in 1.9: raises the error that points to linalg.eig",
    "Tensor.eig": "removed from torch in 1.9: raises the error that points to linalg.eig",
    **{f"{space}.{name}": "removed from torch in 1.9: raises the error that points to linalg"
       for space in ("mt", "Tensor") for name in ("solve", "lstsq", "symeig")},
    "mt.matrix_rank": "removed from torch in 1.9: raises the error that points to linalg",
}


# ---------------------------------------------------------------- targets


class Target:
    """One callable with its parameters: each (name, type_text, kwonly,
    required, positional)."""

    def __init__(self, key, func, params, row=None, method=False):
        self.key, self.func, self.params, self.row, self.method = key, func, params, row, method
        self.baseline = None  # {param name: factory}
        self.baseline_ok = False
        self.calls = 0


def _row_targets(rows):
    """A Target per published (row, kind): kinds are f (minitorch.name),
    m (Tensor.name), n (nn.functional.name)."""
    spaces = {"f": (_C._functions, "mt."), "m": (_C.TensorBase.__dict__, "Tensor."),
              "n": (_C._nn_functions, "F.")}
    order = {}
    targets = []
    for r, (cid, name, kinds, text, *_rest) in enumerate(rows):
        for kind in kinds:
            k = order.setdefault((kind, name), [])
            k.append(r)
            space, prefix = spaces[kind]
            func = space[name]
            sig = func._signatures[len(k) - 1]
            params = [(p, t, kwonly, d is None, not kwonly) for p, t, kwonly, d in sig]
            targets.append(Target(f"{prefix}{name}#{len(k) - 1} [{cid}]", func, params,
                                  row=r, method=kind == "m"))
    return targets


def _public(module):
    out = {}
    for name in dir(module):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        if not callable(obj) or inspect.ismodule(obj):
            continue
        mod = getattr(obj, "__module__", "") or ""
        if not mod.startswith("minitorch"):
            continue
        out[name] = obj
    return out


def _py_params(func, method=False):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        params.append((p.name, "", p.kind == p.KEYWORD_ONLY, p.default is p.empty,
                       p.kind != p.KEYWORD_ONLY))
    if method and not params:
        params = [("self", "", False, True, True)]
    return params


def _is_row_callable(f):
    return isinstance(f, (type(_C._functions["add"]), type(_C.TensorBase.__dict__["add"])))


def _function_targets():
    """Every public Python-level function and class: minitorch, nn.functional,
    linalg, Tensor's methods and property setters, nn modules (constructor and
    forward) and optim (optimizers, with a step, and LR schedulers)."""
    targets = []
    spaces = [("mt.", mt), ("F.", F), ("linalg.", minitorch.linalg), ("fft.", minitorch.fft)]
    for prefix, module in spaces:
        for name, obj in sorted(_public(module).items()):
            if _is_row_callable(obj):
                continue  # swept as rows
            if isinstance(obj, type) and issubclass(obj, (mt.Tensor, nn.Module)) and prefix != "mt.":
                continue
            params = _py_params(obj)
            targets.append(Target(prefix + name, obj, params if params is not None else []))
    for cls in mt.Tensor.__mro__:
        if cls is object:
            continue
        for name, obj in sorted(vars(cls).items()):
            if _is_row_callable(obj) or name in ("__doc__", "__module__", "__dict__",
                                                  "__weakref__", "__hash__"):
                continue
            if hasattr(obj, "__set__") and not callable(obj):
                if _writable(name):
                    targets.append(Target(f"Tensor.{name} = ", _setter(name),
                                          [("self", "", False, True, True),
                                           ("value", "", False, True, True)]))
                continue
            if isinstance(obj, (classmethod, staticmethod)):
                obj = getattr(mt.Tensor, name)
                params = _py_params(obj)
            elif callable(obj):
                params = _py_params(obj, method=True)
            else:
                continue
            targets.append(Target(f"Tensor.{name}", getattr(mt.Tensor, name),
                                  params if params is not None else
                                  [("self", "", False, True, True)], method=True))
    for name, obj in sorted(vars(nn).items()):
        if isinstance(obj, type) and issubclass(obj, nn.Module) and obj is not nn.Module:
            targets.append(Target(f"nn.{name}", obj, _py_params(obj) or []))
            if name not in NO_FORWARD:
                targets.append(Target(f"nn.{name}.forward", _forward(name),
                                      _py_params(obj.forward)[1:] or
                                      [("input", "Tensor", False, True, True)]))
    for space, module in (("optim.", optim), ("lr_scheduler.", lr_scheduler)):
        for name, obj in sorted(vars(module).items()):
            if isinstance(obj, type) and obj.__module__.startswith("minitorch.optim"):
                if obj.__name__ in ("Optimizer", "LRScheduler") or name.startswith("_"):
                    continue
                targets.append(Target(space + name, obj, _py_params(obj) or []))
    return targets


def _writable(name):
    t = mt.ones(2, 2)
    try:
        setattr(t, name, getattr(t, name))
    except AttributeError:
        return False
    except Exception:  # noqa: BLE001 - writable, but not with its own value
        pass
    return True


def _setter(name):
    def set_attr(self, value):
        setattr(self, name, value)
    set_attr.__name__ = name
    return set_attr


def _forward(name):
    def forward(*args, **kwargs):
        return MODULES[name]()(*args, **kwargs)
    return forward


# ---------------------------------------------------------------- calling


class Sweep:
    def __init__(self, progress_path):
        self.progress = os.open(progress_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        self.calls = 0
        self.findings = []
        self.slowest = (0.0, "")
        self.threads = mt.get_num_threads()

    def note(self, text):
        """Where we are, written before each call (a crash leaves it)."""
        data = text.encode("utf-8", "replace")[:4000].ljust(4096)
        os.pwrite(self.progress, data, 0)

    def call(self, target, desc, make_args, disable=False):
        """Calls target with make_args() -> (args, kwargs); 'ok', the
        exception's type name, or None when the arguments could not be made."""
        self.note(desc)
        try:
            args, kwargs = make_args()
        except Exception:  # noqa: BLE001 - arguments that cannot be built skip the case
            return None
        self.calls += 1
        target.calls += 1
        self.last_error = None
        t0 = time.perf_counter()
        try:
            if disable:
                with _C.DisableTorchFunction():
                    target.func(*args, **kwargs)
            else:
                target.func(*args, **kwargs)
            out = "ok"
        except SystemError as e:
            out = "SystemError"
            self.findings.append(f"SystemError: {desc}: {e}")
        except Exception as e:  # noqa: BLE001 - any clean exception passes
            out = type(e).__name__
            self.last_error = e
        except BaseException as e:  # noqa: BLE001
            out = type(e).__name__
            self.findings.append(f"{out} (not an Exception): {desc}: {e}")
        dt = time.perf_counter() - t0
        if dt > self.slowest[0]:
            self.slowest = (dt, desc)
        if dt > SLOW_CALL_S:
            self.findings.append(f"slow call ({dt:.1f} s): {desc}")
        return out

    def restore(self):
        """Undo what a swept call may have changed in global state."""
        mt.set_default_dtype(mt.float32)
        mt.set_grad_enabled(True)
        mt.set_num_threads(self.threads)
        mt.set_printoptions(profile="default")
        mt.set_warn_always(False)
        while _C._len_torch_function_stack():
            _C._pop_torch_function_stack()


def _construct(target):
    args, kwargs = _baseline_args(target)
    return target.func(*args, **kwargs)


def _baseline_args(target):
    if "*" in target.baseline:
        return target.baseline["*"]()
    return _args_from(target, target.baseline)


def _args_from(target, values):
    """(args, kwargs) from {param: factory}: positional params in order while
    they are given, the rest by keyword."""
    args, kwargs = [], {}
    positional = True
    for name, _, kwonly, required, pos in target.params:
        if name not in values:
            positional = False
            continue
        v = values[name]()
        if positional and pos:
            args.append(v)
        else:
            positional = False
            kwargs[name] = v
    return args, kwargs


def _find_baseline(sweep, target, rows_hit):
    """The first profile's arguments that run the target (and, for a row,
    reach that row), preferring ones that return."""
    if target.key.split(" ")[0] in BASELINES or target.key in BASELINES:
        make = BASELINES.get(target.key.split(" ")[0]) or BASELINES[target.key]
        target.baseline = {"*": make}
        out = sweep.call(target, f"{target.key} baseline", make)
        target.baseline_ok = out == "ok"
        return
    fallback = None
    # the required parameters; then, for an overload told apart by an optional
    # one (var(..., correction=), conv2d(..., padding='same')), each optional one
    optional = [None] + [p[0] for p in target.params if not p[3]]
    for extra in optional:
        for prof in PROFILES:
            values = {name: prof.value(name, type_text or _guess_type(name))
                      for name, type_text, kwonly, required, pos in target.params
                      if required or name == extra}
            before = rows_hit(target.row) if target.row is not None else 0
            out = sweep.call(target, f"{target.key} baseline profile {prof.name} {extra}",
                             lambda: _args_from(target, values))
            if VERBOSE > 1:
                print(target.key, prof.name, extra, out, sweep.last_error, file=sys.stderr)
            reached = target.row is None or rows_hit(target.row) > before
            if out == "ok" and reached:
                target.baseline, target.baseline_ok = values, True
                return
            if fallback is None and reached and out is not None and out != "TypeError":
                fallback = values
        if fallback is not None:
            target.baseline = fallback
            return
    if target.key in ALWAYS_RAISE:
        target.baseline = {p[0]: PROFILES[0].value(p[0], p[1] or _guess_type(p[0]))
                           for p in target.params if p[3]}


def _guess_type(name):
    """A Python function's parameter type, from its name."""
    if name in ("input", "x", "tensor", "self", "other", "target", "weight", "bias", "mask",
                "index", "src", "source", "end", "tensors", "A", "B", "x1", "x2", "input1",
                "input2", "var", "log_input", "mat", "vec", "values", "elements",
                "test_elements", "boundaries", "sorted_sequence", "positive", "negative",
                "anchor", "y", "a", "b", "indices", "obj"):
        return "Tensor[]" if name == "tensors" else "Tensor"
    if name in ("in_features", "out_features", "num_features", "padding", "output_size",
                "embedding_dim", "in_channels", "out_channels", "input_size", "hidden_size"):
        return "int"
    if name in ("dim", "dims", "n", "k", "offset", "diagonal", "sections", "step",
                "indices_or_sections", "num_classes", "size", "dim0", "dim1", "row", "col",
                "num_groups", "groups", "padding_idx", "upscale_factor", "ignore_index"):
        return "int"
    if name in ("shape", "shapes", "output_size", "kernel_size", "normalized_shape",
                "stride", "pad"):
        return "int[]"
    if name in ("p", "q", "lr", "eps", "alpha", "beta", "margin", "value", "lambd",
                "min_val", "max_val", "threshold", "negative_slope", "momentum", "gamma",
                "weight_decay", "max_lr", "delta", "min", "max"):
        return "float"
    if name in ("dtype",):
        return "dtype"
    if name in ("equation", "mode", "reduction", "indexing", "f", "profile", "interpolation"):
        return "str"
    return "Tensor"


def _sweep_target(sweep, target):
    """Every pool value in every parameter position, the others at baseline."""
    pool = POOL
    if "*" in target.baseline:
        make = target.baseline["*"]
        nargs = len(make()[0])
        for i in range(nargs):
            for label, factory in pool:
                def args(i=i, factory=factory):
                    a, kw = make()
                    a = list(a)
                    a[i] = factory()
                    return a, kw
                sweep.call(target, f"{target.key}: arg {i} = {label}", args)
        return
    for name, type_text, kwonly, required, pos in target.params:
        for label, factory in pool:
            values = dict(target.baseline)
            values[name] = factory
            desc = f"{target.key}: {name} = {label}"
            sweep.call(target, desc, lambda: _args_from(target, values))
            if label == "Duck()" or label == "[Duck()]":
                sweep.call(target, desc + " under DisableTorchFunction",
                           lambda: _args_from(target, values), disable=True)
    base = target.baseline
    sweep.call(target, f"{target.key}: one positional argument too many",
               lambda: (_args_from(target, base)[0] + [1] * (len(target.params) + 1),
                        _args_from(target, base)[1]))
    sweep.call(target, f"{target.key}: unknown keyword",
               lambda: (_args_from(target, base)[0],
                        dict(_args_from(target, base)[1], fuzz_unknown=1)))


# ---------------------------------------------------------------- hooks


def _requiring_grad(v):
    """v with its floating tensors (also inside lists) made leaves that require grad."""
    if isinstance(v, mt.Tensor) and v.is_floating_point():
        return v.detach().clone().requires_grad_()
    if isinstance(v, (list, tuple)) and any(isinstance(x, mt.Tensor) for x in v):
        return type(v)(_requiring_grad(x) for x in v)
    return v


def _differentiable_call(target):
    """(leaf inputs, first differentiable output) of a fresh baseline call, or None."""
    args, kwargs = _baseline_args(target)
    args = [_requiring_grad(a) for a in args]
    kwargs = {k: _requiring_grad(v) for k, v in kwargs.items()}
    out = target.func(*args, **kwargs)
    leaves = [a for a in list(args) + list(kwargs.values())
              if isinstance(a, mt.Tensor) and a.requires_grad]
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if isinstance(o, mt.Tensor) and o.grad_fn is not None and o.is_floating_point():
            return leaves, o
    return None


def _larger_shape(g):
    return mt.zeros(tuple(g.shape) + (2,), dtype=g.dtype)


def _flat_shape(g):
    return mt.ones(g.numel() + 1, dtype=g.dtype)


def _wrong_dtype(g):
    return g.detach().to(mt.float64 if g.dtype != mt.float64 else mt.float32)


HOOK_RESULTS = (  # label, what the hook returns, the error it must raise (or None)
    ("None", lambda g: None, None),
    ("a larger shape", _larger_shape, (RuntimeError, "has changed the size of value")),
    ("another flat shape", _flat_shape, (RuntimeError, "has changed the size of value")),
    ("wrong dtype", _wrong_dtype, (RuntimeError, "has changed the type of value")),
    ("a non-tensor", lambda g: 1.5, (TypeError, "expected Variable, but hook returned")),
)


def _hook_on(where, leaves, out, result):
    if where == "output":
        out.register_hook(result)
    elif where == "output grad_fn prehook":
        def prehook(gs):
            r = tuple(None if g is None else result(g) for g in gs)
            return None if all(v is None for v in r) else r
        out.grad_fn.register_prehook(prehook)
    elif leaves:
        leaves[0].register_hook(result)
    else:
        return False
    return True


def _sweep_hooks(sweep, target):
    """The differentiable row's backward with each wrong hook result."""
    def plain():
        made = _differentiable_call(target)
        if made is None:
            raise LookupError("not differentiable")
        made[1].sum().backward()
        return [None if x.grad is None else x.grad.clone() for x in made[0]]

    sweep.note(f"{target.key}: backward without hooks")
    try:
        plain_grads = plain()
        plain_out = "ok"
    except LookupError:
        return
    except Exception as e:  # noqa: BLE001 - a clean failure of the row itself
        plain_out = type(e).__name__
    for where in ("output", "output grad_fn prehook", "leaf input"):
        for label, result, expect in HOOK_RESULTS:
            desc = f"{target.key}: backward with a hook on the {where} returning {label}"
            sweep.note(desc)
            sweep.calls += 1
            called = []

            def hook(g, result=result):
                called.append(1)
                return result(g)
            try:
                made = _differentiable_call(target)
                if made is None or not _hook_on(where, *made, hook):
                    continue
                made[1].sum().backward()
                out = "ok"
            except SystemError as e:
                sweep.findings.append(f"SystemError: {desc}: {e}")
                continue
            except Exception as e:  # noqa: BLE001 - compared below
                out, err = type(e).__name__, e
            if plain_out != "ok" or not called:
                continue  # the row's backward fails anyway, or the hook's gradient was None
            if expect is None:
                # the same gradients' shapes and dtypes (random rows differ in values)
                grads = [None if x.grad is None else x.grad for x in made[0]]
                same = out == "ok" and all(
                    (a is None) == (b is None)
                    and (a is None or (a.shape, a.dtype) == (b.shape, b.dtype))
                    for a, b in zip(plain_grads, grads))
                if not same:
                    sweep.findings.append(f"{desc}: changed the backward ({out})")
            elif out == "ok" or not (isinstance(err, expect[0]) and expect[1] in str(err)):
                sweep.findings.append(f"{desc}: {out}, not {expect[0].__name__}: {expect[1]}"
                                      + ("" if out == "ok" else f" ({err})"))


POOL = _pool()
MODULES = {}


def run(summary_path, progress_path):
    warnings.simplefilter("ignore")
    np.random.seed(SEED)
    mt.manual_seed(SEED)
    sweep = Sweep(progress_path)
    rows = _C._op_rows()
    row_targets = _row_targets(rows)
    fn_targets = _function_targets()

    def rows_hit(r):
        return _C._op_rows()[r][4]

    t0 = time.perf_counter()
    for n, target in enumerate(row_targets + fn_targets):
        # a target that hangs ends the run; the progress file names its call
        faulthandler.dump_traceback_later(TARGET_TIMEOUT_S, exit=True)
        if VERBOSE:
            print(f"{n} {time.perf_counter() - t0:.1f} {sweep.calls} {target.key}",
                  file=sys.stderr, flush=True)
        if ONLY and ONLY not in target.key:
            continue
        if target.key.endswith(".forward") and target.key[3:-8] not in MODULES:
            continue  # its constructor had no working baseline
        _find_baseline(sweep, target, rows_hit)
        if target.baseline_ok and target.key.startswith("nn.") and "." not in target.key[3:]:
            MODULES[target.key[3:]] = functools.partial(_construct, target)
        if target.baseline is not None:
            _sweep_target(sweep, target)
        if target.baseline_ok and target.row is not None:
            _sweep_hooks(sweep, target)
        sweep.restore()
        gc.collect(0)
    faulthandler.cancel_dump_traceback_later()
    published = [r for r, row in enumerate(rows) if row[2]]
    runs = [row[4] for row in _C._op_rows()]
    summary = {
        "rows": len(rows),
        "published_rows": len(published),
        "rows_reached": sum(1 for r in published if runs[r]),
        "rows_unreached": [rows[r][0] for r in published if not runs[r]],
        "row_targets": len(row_targets),
        "functions": len(fn_targets),
        "functions_uncovered": [t.key for t in fn_targets
                                if not t.baseline_ok and t.key not in ALWAYS_RAISE],
        "rows_without_baseline": [t.key for t in row_targets if t.baseline is None],
        "calls": sweep.calls,
        "seconds": round(time.perf_counter() - t0, 1),
        "slowest": [round(sweep.slowest[0], 2), sweep.slowest[1]],
        "findings": sweep.findings,
    }
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2])
