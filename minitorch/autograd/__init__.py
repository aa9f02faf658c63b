"""minitorch.autograd: reverse-mode automatic differentiation.

The graph and the engine are C (csrc/autograd); this module is the public
entry: backward(), grad() and the grad-mode context managers.
"""
import threading
import warnings
from typing import Optional

from .. import _C
from .grad_mode import (  # noqa: F401
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
    is_multithreading_enabled, no_grad, set_grad_enabled, set_multithreading_enabled,
)

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled"]


_MAX_DEPTH = 32  # backward passes nested in one thread before a fresh one takes over
_nesting = threading.local()


def _run_backward(*args):
    """The engine; a backward nested (reentrant, from a custom Function's
    backward) deeper than _MAX_DEPTH goes on in a fresh thread, with its own
    stack and Python recursion budget, as torch's engine does."""
    depth = getattr(_nesting, "depth", 0)
    if depth < _MAX_DEPTH:
        _nesting.depth = depth + 1
        try:
            return _C._run_backward(*args)
        finally:
            _nesting.depth = depth
    grad_mode = _C.is_grad_enabled()
    result = {}

    def run():
        _C._set_grad_enabled(grad_mode)
        try:
            result["value"] = _run_backward(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
            result["error"] = e

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _make_grads(outputs, grads, is_grads_batched=False):
    from .._tensor import Tensor
    out = []
    for out_t, g in zip(outputs, grads):
        if g is None:
            if out_t.requires_grad and out_t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out_t.dtype.is_floating_point:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   "but got %s" % out_t.dtype)
            g = _C._functions["ones_like"](out_t)
        elif not isinstance(g, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got %s"
                            % type(g).__name__)
        elif tuple(g.shape) != tuple(out_t.shape):
            raise RuntimeError("Mismatch in shape: grad_output[%d] has a shape of %s and "
                               "output[%d] has a shape of %s." % (len(out), g.shape, len(out),
                                                                  out_t.shape))
        out.append(g)
    return tuple(out)


def backward(tensors, grad_tensors=None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, grad_variables=None, inputs=None) -> None:
    """Computes the sum of gradients of tensors w.r.t. graph leaves, accumulating
    them into the leaves' .grad.

    ``autograd.backward([y1, y2], [g1, g2])`` is one backward pass for
    ``y1.backward(g1)`` and ``y2.backward(g2)`` together.

    Args:
        tensors (Tensor or sequence of Tensors): the tensors to differentiate.
        grad_tensors (Tensor or sequence, optional): the gradient of each tensor;
            None stands for 1 for a one-element tensor.
        retain_graph (bool, optional): keep the graph for another backward.
            Default: the value of create_graph.
        create_graph (bool): record the backward pass, for higher-order
            derivatives. Default: ``False``.
        inputs (sequence of Tensors, optional): accumulate only into these.
    """
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError("got %d tensors and %d gradients" % (len(tensors), len(grads)))
    if retain_graph is None:
        retain_graph = create_graph
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError("element %d of tensors does not require grad and does not have "
                               "a grad_fn" % i)
    grads = _make_grads(tensors, grads)
    inputs = _as_tuple(inputs)
    if create_graph:
        _warn_create_graph_cycle()
    if not inputs:
        _run_backward(tensors, grads, retain_graph, create_graph, None)
        return
    # as torch's: the inputs' nodes run as in a full backward, a non-leaf
    # input retaining its grad (a leaf's .grad accumulates as usual)
    for t in inputs:
        t.retain_grad()
    _run_backward(tensors, grads, retain_graph, create_graph, inputs, True)


_create_graph_warned = False


def _warn_create_graph_cycle():
    """torch's warning for backward(create_graph=True), given once per
    process unless set_warn_always(True)."""
    global _create_graph_warned
    if _create_graph_warned and not _C._get_warnAlways():
        return
    _create_graph_warned = True
    warnings.warn("Using backward() with create_graph=True will create a reference cycle between "
                  "the parameter and its gradient which can cause a memory leak. We recommend "
                  "using autograd.grad when creating the graph to avoid this. If you have to use "
                  "this function, make sure to reset the .grad fields of your parameters to None "
                  "after use to break the cycle and avoid the leak.", UserWarning, stacklevel=3)


def grad(outputs, inputs, grad_outputs=None, retain_graph: Optional[bool] = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: Optional[bool] = None,
         is_grads_batched: bool = False, materialize_grads: bool = False):
    """Computes and returns the gradients of outputs w.r.t. inputs.

    Unlike ``Tensor.backward``, it returns the gradients and leaves every
    ``.grad`` untouched, and ``inputs`` need not be leaves.

    Args:
        outputs (Tensor or sequence of Tensors): the differentiated outputs.
        inputs (Tensor or sequence of Tensors): the tensors to differentiate with
            respect to; a ``graph.GradientEdge`` stands for the gradient reaching
            that edge.
        grad_outputs (Tensor or sequence, optional): the gradient of each output
            (the vector of the vector-Jacobian product); None stands for 1 for a
            one-element output.
        retain_graph (bool, optional): keep the graph for another backward.
            Default: the value of create_graph.
        create_graph (bool): record the backward pass so the returned gradients
            can be differentiated again. Default: ``False``.
        allow_unused (bool, optional): return None for an input the outputs do
            not depend on instead of raising. Default: the value of materialize_grads.
        is_grads_batched (bool): the first dimension of each grad_output is a
            batch of cotangents; one vector-Jacobian product per entry.
            Default: ``False``.
        materialize_grads (bool): return zeros instead of None for unused
            inputs. Default: ``False``.

    Returns:
        A tuple with one gradient per input.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs_t = (inputs,) if isinstance(inputs, graph.GradientEdge) else _as_tuple(inputs)
    if materialize_grads and any(isinstance(i, graph.GradientEdge) for i in inputs_t):
        raise RuntimeError("materialize_grads cannot be used when the given input is a "
                           "GradientEdge")
    # a GradientEdge is captured through a tensor whose history is that edge
    inputs_t = tuple(_C._gradient_edge_tensor(i.node, i.output_nr)
                     if isinstance(i, graph.GradientEdge) else i for i in inputs_t)
    relevant = outputs + inputs_t
    if _C._has_torch_function(relevant):
        return _C._handle_torch_function(
            grad, relevant, (outputs, inputs_t),
            dict(grad_outputs=grad_outputs, retain_graph=retain_graph,
                 create_graph=create_graph, only_inputs=only_inputs, allow_unused=allow_unused,
                 is_grads_batched=is_grads_batched, materialize_grads=materialize_grads))
    if is_grads_batched:
        return _grad_batched(outputs, inputs_t, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError("grad requires one grad_output per output: got %d and %d"
                           % (len(grads), len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    for i, t in enumerate(outputs):
        if not t.requires_grad:
            raise RuntimeError("element %d of tensors does not require grad and does not have "
                               "a grad_fn" % i)
    for t in inputs_t:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grads)
    captured = _run_backward(outputs, grads, retain_graph, create_graph, inputs_t)
    result = []
    for i, (inp, g) in enumerate(zip(inputs_t, captured)):
        if g is None:
            if materialize_grads:
                # as torch: the zeros join the new graph when one is being built, so
                # they can be differentiated again
                g = _C._functions["zeros_like"](inp).requires_grad_(create_graph)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
        result.append(g)
    return tuple(result)

def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """is_grads_batched: one vector-Jacobian product per slice of the
    grad_outputs' first dim, stacked (what vmap's per-sample path does)."""
    grads = _as_tuple(grad_outputs)
    sizes = sorted({g.shape[0] for g in grads if g is not None and g.dim() > 0})
    if len(sizes) != 1:
        raise RuntimeError("is_grads_batched=True needs every grad_output to have the same "
                           f"batch size in its first dimension, got {sizes}")
    n = sizes[0]
    per = [grad(outputs, inputs, tuple(None if g is None else g[b] for g in grads),
                retain_graph=True if b < n - 1 else retain_graph, create_graph=create_graph,
                allow_unused=allow_unused, materialize_grads=materialize_grads)
           for b in range(n)]
    return tuple(None if col[0] is None else _C._functions["stack"](list(col))
                 for col in zip(*per))


from . import _functions, forward_ad, function, functional, graph, profiler  # noqa: E402,F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402
from .function import Function  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402
from .variable import Variable  # noqa: E402
from .view_tracking import (  # noqa: E402,F401
    _force_original_view_tracking, _unsafe_preserve_version_counter, is_view_replay_enabled,
)

SavedTensor = _C._autograd.SavedTensor  # what grad_fn._raw_saved_<name> returns

__all__ += ["Function", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
            "Variable", "is_view_replay_enabled"]
