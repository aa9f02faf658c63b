"""Selective activation checkpointing (torch.utils.checkpoint's SAC).

``create_selective_checkpoint_contexts(policy)`` makes the pair of dispatch
modes a non-reentrant checkpoint takes from its ``context_fn``: the forward
runs under a caching mode, which asks the policy about each op after running
it and keeps a detached copy of the outputs it says to save; the
recomputation runs under a cached mode, which hands each saved op its kept
outputs (by the op and the how-manieth call of it this is) instead of
running it, and runs the others. A kept output is handed out once: a second
recomputation of the region (a second backward over a retained graph)
raises. A kept tensor written in place after it was kept raises too, unless
``allow_cache_entry_mutation``.
"""
import enum
from collections import defaultdict

from .._aten import OpOverload, OpOverloadPacket, aten
from ._python_dispatch import TorchDispatchMode
from ._pytree import tree_map

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext", "create_selective_checkpoint_contexts",
           "SAC_IGNORED_OPS"]


class SelectiveCheckpointContext:
    """What a policy is told besides the op: ``is_recompute`` (always False:
    the policy runs in the forward only) and the op's output."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    """A policy's answer for one op: save its output or recompute it
    (``MUST_*`` may not be overridden, ``PREFER_*`` may)."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)


# never cached: checkpointing itself detaches a different number of times in
# the forward and the recomputation
SAC_IGNORED_OPS = {aten.detach.default}

_RECOMPUTE = object()
_CONSUMED = object()

_MISMATCH = ("This can happen if the operations in the checkpointed region are nondeterministic "
             "or depend on global state that changed between forward and backward.")


class _VersionWrapper:
    """A kept output and the version it had when kept."""

    def __init__(self, val):
        from .._tensor import Tensor
        self.val = val
        self.version = val._version if isinstance(val, Tensor) else None

    def get_val(self, allow_cache_entry_mutation):
        if self.version is not None and not allow_cache_entry_mutation \
                and self.val._version != self.version:
            raise RuntimeError(
                "Tensor cached during selective activation checkpoint has been mutated")
        return self.val


def _detached(x):
    from .._tensor import Tensor
    return x.detach() if isinstance(x, Tensor) else x


class _CachingTorchDispatchMode(TorchDispatchMode):
    """The forward's mode: runs each op, then keeps what the policy saves."""

    def __init__(self, policy_fn, storage):
        super().__init__()
        self.policy_fn = policy_fn
        self.storage = storage
        self.func_counter = defaultdict(int)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func in SAC_IGNORED_OPS:
            return func(*args, **kwargs)
        out = func(*args, **kwargs)
        idx = self.func_counter[func]
        self.func_counter[func] += 1
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out),
                                func, *args, **kwargs)
        if isinstance(policy, bool):
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        if policy in _SAVE:
            self.storage[func][idx] = tree_map(lambda x: _VersionWrapper(_detached(x)), out)
        else:
            self.storage[func][idx] = _RECOMPUTE
        return out


class _CachedTorchDispatchMode(TorchDispatchMode):
    """The recomputation's mode: hands out what the forward kept."""

    def __init__(self, policy_fn, storage, allow_cache_entry_mutation=False):
        super().__init__()
        self.storage = storage
        self.allow_cache_entry_mutation = allow_cache_entry_mutation
        self.func_counter = defaultdict(int)

    def __enter__(self):
        # each recomputation counts calls from the first again
        self.func_counter.clear()
        return super().__enter__()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func in SAC_IGNORED_OPS:
            return func(*args, **kwargs)
        idx = self.func_counter[func]
        self.func_counter[func] += 1
        kept = self.storage.get(func)
        if kept is None:
            raise RuntimeError(f"{func} encountered during backward but not found in storage. "
                               f"{_MISMATCH}")
        entry = kept.get(idx)
        if entry is None:
            raise RuntimeError(f"{func} invocation index {idx} encountered during backward but "
                               f"not found in storage. {_MISMATCH}")
        if entry is _CONSUMED:
            raise RuntimeError(
                "Trying to backward an extra time. You are only allowed to backward once on any "
                "region computed under selective activation checkpoint.")
        if entry is _RECOMPUTE:
            return func(*args, **kwargs)
        kept[idx] = _CONSUMED
        return tree_map(lambda w: w.get_val(self.allow_cache_entry_mutation), entry)


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The (forward, recomputation) dispatch modes of a selective checkpoint,
    for ``checkpoint(..., use_reentrant=False, context_fn=...)``.
    ``policy_fn_or_list`` is ``policy(ctx, op, *args, **kwargs)`` returning
    a CheckpointPolicy (or a bool: save or not), or a list of OpOverloads to
    save (every other op is recomputed)."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                extra = ("Please update the OpOverloadPacket to a specific OpOverload.For "
                         "example, if you have `torch.ops.aten.mm`, change it to "
                         "`torch.ops.aten.mm.default`.") if isinstance(op, OpOverloadPacket) else ""
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of "
                                 f"type {type(op)}. {extra}")
        ops = list(policy_fn_or_list)

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage = defaultdict(dict)
    return (_CachingTorchDispatchMode(policy_fn, storage),
            _CachedTorchDispatchMode(None, storage, allow_cache_entry_mutation))
