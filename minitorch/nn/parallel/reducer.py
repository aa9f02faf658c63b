"""The gradient reducer behind DistributedDataParallel.

Parameters are packed in reverse registration order (the order backward tends
to finish their gradients) into buckets of one dtype: the first at most 1 MB so
communication starts early, the others at most bucket_cap_mb. A parameter's
post-accumulate-grad hook copies its gradient into its bucket; when a bucket is
full, its all_reduce starts (async) while backward keeps running. Buckets start
strictly in index order, so every rank issues the same MPI collectives in the
same order whatever order its hooks fire in. When the last bucket has started,
the reducer waits for all of them and writes the averaged gradients back into
each parameter's .grad.

With find_unused_parameters, the parameters the forward's outputs do not reach
are marked ready at once (contributing the .grad they hold, or zeros, as torch's
do), and a used-flag all_reduce (the last collective of the
iteration) tells which are unused on every rank: their .grad is left as it is,
as torch leaves it. The outputs pass through an identity node (_Sink, torch's
_DDPSink) whose backward runs first and sees which outputs the loss used; the
parameters only the other outputs reach are marked unused then, so a model
whose loss leaves out an output (an auxiliary head) finishes its reduction.
"""
from ... import _C
from ... import distributed as dist
from ...autograd.function import Function

_empty = _C._functions["empty"]
_zeros = _C._functions["zeros"]
_FIRST_BUCKET_BYTES = 1024 * 1024

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {missing}\n In addition, "
    "you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to "
    "print out information about which particular parameters did not receive gradient on this "
    "rank as part of this error")


class _Bucket:
    def __init__(self, params):
        self.params = params
        self.offsets = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = _empty((n,), dtype=params[0].dtype)
        self.pending = len(params)
        self.work = None

    def slot(self, i):
        p = self.params[i]
        return self.flat[self.offsets[i]:self.offsets[i] + p.numel()].view(p.shape)


def _plan(params, cap_bytes):
    """Buckets of parameter indices: reverse order, one dtype each, size-capped."""
    buckets, open_ = [], {}
    for i in reversed(range(len(params))):
        p = params[i]
        cap = min(_FIRST_BUCKET_BYTES, cap_bytes) if not buckets else cap_bytes
        key = p.dtype
        entry = open_.get(key)
        if entry is None:
            entry = open_[key] = [[], 0]
        entry[0].append(i)
        entry[1] += p.numel() * p.element_size()
        if entry[1] >= cap:
            buckets.append(entry[0])
            del open_[key]
    buckets.extend(entry[0] for entry in open_.values())
    return buckets


class Reducer:
    def __init__(self, params, group, bucket_cap_bytes: int, find_unused: bool):
        self.params = params
        self.group = group
        self.find_unused = find_unused
        plan = _plan(params, bucket_cap_bytes)
        self.buckets = [_Bucket([params[i] for i in idx]) for idx in plan]
        self.where = {}
        for b, idx in enumerate(plan):
            for slot, i in enumerate(idx):
                self.where[i] = (b, slot)
        self.armed = False
        self.started = False
        self.ready = [False] * len(params)
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i))
                        for i, p in enumerate(params)]

    def _hook(self, i):
        def on_grad(param):
            if self.armed:
                self.started = True
                self._mark_ready(i, param.grad)
        return on_grad

    def check_finished(self) -> None:
        """Refuses a new iteration while a backward pass left buckets unreduced (a
        parameter got no gradient and find_unused_parameters is off)."""
        if self.started:
            missing = [i for i, r in enumerate(self.ready) if not r]
            raise RuntimeError(_UNFINISHED.format(rank=dist.get_rank(self.group),
                                                  missing=" ".join(map(str, missing))))

    def prepare(self, outputs):
        """Starts an iteration: called after each forward that will be backpropagated;
        gives the outputs to return (with find_unused_parameters, through _Sink)."""
        self.started = False
        self.ready = [False] * len(self.params)
        self.used = [True] * len(self.params)
        self.next_bucket = 0
        for b in self.buckets:
            b.pending = len(b.params)
            b.work = None
        self.armed = True
        if not self.find_unused:
            return outputs
        tensors = [t for t in _tensors(outputs) if t.requires_grad]
        self._mark_unused(_reached_leaves(tensors))
        if not tensors:
            return outputs
        self.output_nodes = [t.grad_fn for t in tensors]
        passed = _Sink.apply(self, *tensors)
        passed = passed if isinstance(passed, tuple) else (passed,)
        return _replace_tensors(outputs, dict(zip(map(id, tensors), passed)))

    def _mark_unused(self, reached) -> None:
        for i, p in enumerate(self.params):
            if self.used[i] and id(p) not in reached:
                self.used[i] = False
                self._mark_ready(i, p.grad)

    def outputs_used(self, used) -> None:
        """From _Sink's backward: marks unused the parameters that only the outputs
        the loss did not use reach."""
        nodes = [node for node, u in zip(self.output_nodes, used) if u]
        self.output_nodes = []
        if self.armed:
            self._mark_unused(_reached_leaves(nodes))

    def _mark_ready(self, i, grad) -> None:
        if self.ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. This error is caused by one of "
                f"the following reasons: 1) Use of a module parameter outside the `forward` "
                f"function. 2) Reused parameters in multiple reentrant backward passes. "
                f"Parameter at index {i} has been marked as ready twice.")
        self.ready[i] = True
        b, slot = self.where[i]
        bucket = self.buckets[b]
        if grad is None:
            bucket.slot(slot).zero_()
        else:
            bucket.slot(slot).copy_(grad)
        bucket.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            started = self.buckets[self.next_bucket]
            started.work = dist.all_reduce(started.flat, group=self.group, async_op=True)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finish()

    def _finish(self) -> None:
        used = None
        if self.find_unused:
            used = _C._functions["tensor"](self.used, dtype=_C.int32)
            dist.all_reduce(used, op=dist.ReduceOp.MAX, group=self.group)
        size = dist.get_world_size(self.group)
        for bucket in self.buckets:
            bucket.work.wait()
            bucket.flat.div_(size)
        for i, p in enumerate(self.params):
            if used is not None and not used[i].item():
                continue
            b, slot = self.where[i]
            reduced = self.buckets[b].slot(slot)
            if p.grad is None:
                p.grad = reduced.clone()
            else:
                p.grad.copy_(reduced)
        self.armed = False
        self.started = False


class _Sink(Function):
    """The identity on a forward's outputs; its backward, the first node of the
    backward pass, tells the reducer which outputs received a gradient."""

    @staticmethod
    def forward(ctx, reducer, *tensors):
        ctx.set_materialize_grads(False)
        ctx.reducer = reducer
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        ctx.reducer.outputs_used([g is not None for g in grads])
        return (None,) + grads


def _replace_tensors(obj, new):
    """`obj` (tensors in lists, tuples and dicts) with the tensors `new` maps by id."""
    if isinstance(obj, _C.TensorBase):
        return new.get(id(obj), obj)
    if isinstance(obj, list):
        return [_replace_tensors(item, new) for item in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_replace_tensors(item, new) for item in obj)
    if isinstance(obj, tuple):
        return type(obj)(*(_replace_tensors(item, new) for item in obj))
    if isinstance(obj, dict):
        return type(obj)((k, _replace_tensors(v, new)) for k, v in obj.items())
    return obj


def _reached_leaves(roots):
    """ids of the leaf tensors the autograd graph from `roots` (tensors or graph
    nodes) accumulates into."""
    roots = [r.grad_fn if isinstance(r, _C.TensorBase) else r for r in roots]
    # the node objects themselves, not their ids: a node object that is let go
    # can be freed and its id reused by the next one
    seen, reached = set(), set()
    while roots:
        fn = roots.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        variable = getattr(fn, "variable", None)
        if variable is not None:
            reached.add(id(variable))
        roots.extend(next_fn for next_fn, _ in fn.next_functions)
    return reached


def _tensors(obj):
    if isinstance(obj, _C.TensorBase):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)
