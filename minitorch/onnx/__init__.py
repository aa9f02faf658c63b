"""torch.onnx: exports a model to an ONNX file by tracing one run of it.

The onnx package is an optional extra (``pip install "minitorch-c[onnx]"``);
minitorch imports without it and export asks for it when called."""
import enum
import os

import minitorch

from . import _symbolic, _symbolic_nn, _symbolic_shape  # noqa: F401  (register the mappings)
from ._graph import Graph
from ._tracer import Tracer, tensors_in

__all__ = ["export", "is_in_onnx_export", "TrainingMode"]


class TrainingMode(enum.Enum):
    """The mode export traces a module in: eval (the default), the module's
    own (PRESERVE), or training (where dropout and batch norm refuse)."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2

_DEFAULT_OPSET = 17
_OPSETS = range(13, 22)
_exporting = False


def is_in_onnx_export() -> bool:
    """True while export traces a model."""
    return _exporting


def _import_onnx():
    try:
        import onnx
        import onnx.numpy_helper
    except ImportError as e:
        raise ImportError('minitorch.onnx.export needs the onnx package: '
                          'pip install "minitorch-c[onnx]"') from e
    return onnx


def _dim_names(name, axes):
    if isinstance(axes, dict):
        return {int(k): str(v) for k, v in axes.items()}
    return {int(a): "%s_dynamic_axes_%d" % (name, i + 1) for i, a in enumerate(axes)}


def _value_info(onnx, name, t, dynamic, known_shape):
    elem = _symbolic.onnx_type_of(onnx, t.dtype)
    # an output's dims are unknown when an input's are dynamic (named only as told)
    dims = dict(enumerate(t.shape if known_shape else [None] * t.dim()))
    dims.update(dynamic.get(name, {}))
    return onnx.helper.make_tensor_value_info(name, elem, [dims[i] for i in range(t.dim())])


def _initializer_inputs(onnx, g):
    """The initializers listed as graph inputs too (a runtime may then override them)."""
    return [onnx.helper.make_tensor_value_info(i.name, i.data_type, list(i.dims))
            for i in g.initializers]


def _flat_args(args):
    if isinstance(args, minitorch.Tensor):
        return (args,), {}
    args = tuple(args)
    if args and isinstance(args[-1], dict):
        return args[:-1], args[-1]
    return args, {}


def export(model, args, f, export_params=True, verbose=False, training=None,
           input_names=None, output_names=None, operator_export_type=None,
           opset_version=None, do_constant_folding=True, dynamic_axes=None,
           keep_initializers_as_inputs=None, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True, dynamo=False,
           kwargs=None):
    """Exports ``model`` (a Module or a function) run on ``args`` to the ONNX
    file or file-like object ``f``.

    Traces one run with a __torch_function__ mode: the torch-level calls that
    have an ONNX mapping become nodes, parameters and buffers become
    initializers named by their state_dict names (graph inputs with
    ``export_params=False``), other tensors the run reads become constants.
    ``args`` is a tensor or a tuple of arguments (nested tuples and lists of
    tensors are inputs in order; a trailing dict, or ``kwargs``, holds keyword
    arguments). ``dynamic_axes`` maps input and output names to the dims (a list, or a dict
    of dim to name) that stay symbolic; ``keep_initializers_as_inputs`` also
    lists the initializers as graph inputs. A call with no mapping raises
    RuntimeError naming it. ``do_constant_folding``, ``operator_export_type``,
    ``custom_opsets``, ``export_modules_as_functions``, ``autograd_inlining``
    and ``dynamo`` are accepted for torch's signature: calls on constants are
    always folded, and there is one exporter."""
    onnx = _import_onnx()
    opset = _DEFAULT_OPSET if opset_version is None else int(opset_version)
    if opset not in _OPSETS:
        raise ValueError("minitorch.onnx.export: opset_version must be in 13..21, got %d" % opset)
    pos, kw = _flat_args(args)
    kw = {**kw, **(kwargs or {})}
    inputs = tensors_in((pos, kw))
    params = {}
    is_module = isinstance(model, minitorch.nn.Module)
    if is_module:
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            params.setdefault(id(t), (name, t))
    g = Graph(onnx, opset, params, export_params)
    input_names = list(input_names or [])
    input_names += ["input_%d" % i for i in range(len(input_names), len(inputs))]
    for t, name in zip(inputs, input_names):
        g.bind(t, name)
    modes = [(m, m.training) for m in model.modules()] if is_module else []
    global _exporting
    try:
        _exporting = True
        if is_module:
            if training is True or training is TrainingMode.TRAINING:
                model.train()
            elif training is not TrainingMode.PRESERVE:
                model.eval()
        with minitorch.no_grad(), Tracer(g):
            result = model(*pos, **kw)
    finally:
        _exporting = False
        for m, mode in modes:
            m.training = mode
    outputs = tensors_in(result)
    output_names = list(output_names or [])
    output_names += ["output_%d" % i for i in range(len(output_names), len(outputs))]
    for t, name in zip(outputs, output_names):
        g.nodes.append(onnx.helper.make_node("Identity", [g.value(t)], [name],
                                             name=g.fresh("n_output")))
    dynamic = {k: _dim_names(k, v) for k, v in (dynamic_axes or {}).items()}
    graph = onnx.helper.make_graph(
        g.nodes, type(model).__name__ if is_module else getattr(model, "__name__", "graph"),
        [_value_info(onnx, n, t, dynamic, True) for t, n in zip(inputs, input_names)]
        + g.param_inputs + (_initializer_inputs(onnx, g) if keep_initializers_as_inputs else []),
        [_value_info(onnx, n, t, dynamic, not dynamic) for t, n in zip(outputs, output_names)],
        g.initializers)
    proto = onnx.helper.make_model(graph, producer_name="minitorch",
                                   opset_imports=[onnx.helper.make_opsetid("", opset)])
    # the IR version of the opset's ONNX release: runtimes refuse newer ones
    proto.ir_version = 8 if opset <= 18 else 9 if opset <= 20 else 10
    if verbose:
        import onnx.printer
        print(onnx.printer.to_text(proto.graph))
    data = proto.SerializeToString()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    else:
        f.write(data)
    return None

