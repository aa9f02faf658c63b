"""The ONNX graph being built while a model is traced: the name of every live
tensor (graph inputs, parameters and buffers, outputs of recorded ops),
initializers for constants, and the nodes in the order the ops ran."""
import numpy as np

import minitorch


class Graph:
    def __init__(self, onnx, opset: int, params: dict, export_params: bool):
        self.onnx = onnx
        self.opset = opset
        self.nodes: list = []
        self.initializers: list = []
        self.param_inputs: list = []  # parameters as graph inputs (export_params=False)
        self._names: dict = {}  # id(tensor) -> value name
        self._alive: list = []  # keeps traced tensors alive so that their ids stay unique
        self._params = params  # id(tensor) -> (state_dict name, tensor)
        self._export_params = export_params
        self._count = 0

    def fresh(self, hint: str) -> str:
        self._count += 1
        return "%s_%d" % (hint, self._count)

    def is_live(self, t) -> bool:
        """True for a tensor the graph computes or holds by name."""
        return id(t) in self._names or id(t) in self._params

    def bind(self, t, name: str) -> None:
        self._names[id(t)] = name
        self._alive.append(t)

    def value(self, t) -> str:
        """The name of a tensor: a live value, a parameter (added on first use),
        or a constant (added as an initializer)."""
        name = self._names.get(id(t))
        if name is not None:
            return name
        if id(t) in self._params:
            pname, p = self._params[id(t)]
            arr = p.detach().numpy()
            if self._export_params:
                self.initializers.append(self.onnx.numpy_helper.from_array(arr, pname))
            else:
                self.param_inputs.append(self.onnx.helper.make_tensor_value_info(
                    pname, self.onnx.helper.np_dtype_to_tensor_dtype(arr.dtype), list(arr.shape)))
            self.bind(t, pname)
            return pname
        name = self.constant(t.detach().numpy(), "const")
        self.bind(t, name)
        return name

    def constant(self, arr, hint: str = "const") -> str:
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(arr), name))
        return name

    def ints(self, values) -> str:
        """An int64 1-D constant: shapes, axes, starts and ends."""
        return self.constant(np.asarray(list(values), dtype=np.int64), "ints")

    def scalar(self, value, dtype) -> str:
        """A 0-d constant of the numpy dtype of a traced tensor."""
        return self.constant(np.asarray(value, dtype=dtype), "scalar")

    def node(self, op: str, inputs, n_out: int = 1, **attrs):
        """Appends a node; returns its output name, or the list of them."""
        outs = [self.fresh(op) for _ in range(n_out)]
        self.nodes.append(self.onnx.helper.make_node(op, list(inputs), outs, name=self.fresh(
            "n_" + op), **attrs))
        return outs[0] if n_out == 1 else outs

    def reduce(self, op: str, x: str, axes, keepdims: bool) -> str:
        """A Reduce* node: axes as an input where the opset takes them so
        (ReduceSum from 13, the others from 18), else as an attribute."""
        axes = list(axes)
        if op == "ReduceSum" or self.opset >= 18:
            return self.node(op, [x, self.ints(axes)], keepdims=int(keepdims))
        return self.node(op, [x], axes=axes, keepdims=int(keepdims))


def numpy_dtype(dtype):
    """The NumPy dtype of a minitorch dtype, as its tensors convert to."""
    return minitorch.empty(0, dtype=dtype).numpy().dtype


def np_dtype(t):
    return numpy_dtype(t.dtype)
