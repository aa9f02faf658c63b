"""DistributedDataParallel: torch's data-parallel wrapper on minitorch.distributed.

At construction, rank 0's parameters and buffers are broadcast to every rank;
before each forward (broadcast_buffers), rank 0's buffers again. Gradients are
averaged over the group by the Reducer (reducer.py) while backward runs.
"""
import contextlib

from ... import distributed as dist
from ..modules.module import Module
from .reducer import Reducer

__all__ = ["DistributedDataParallel"]


def _broadcast_all(tensors, group) -> None:
    root = dist.get_global_rank(group, 0) if group is not None else 0
    works = [dist.broadcast(t.detach(), src=root, group=group, async_op=True) for t in tensors]
    for work in works:
        if work is not None:
            work.wait()


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids is not None or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                "{device(type='cpu')}.")
        self.module = module
        self.process_group = process_group
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        dist.get_world_size(process_group)  # refuses an uninitialized default group
        if init_sync:
            _broadcast_all(list(module.parameters()) + list(module.buffers()), process_group)
        self.reducer = Reducer(params, process_group, self.bucket_bytes_cap,
                               find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        from ...autograd.grad_mode import is_grad_enabled
        syncing = is_grad_enabled() and self.require_backward_grad_sync
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                _broadcast_all(buffers, self.process_group)
        if syncing:
            self.reducer.check_finished()
        output = self.module(*inputs, **kwargs)
        if syncing:
            output = self.reducer.prepare(output)
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of backward passes in this context accumulate locally; the first
        synchronized backward after it reduces the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous
