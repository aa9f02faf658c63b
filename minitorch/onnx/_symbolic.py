"""The ONNX mapping of torch-level calls: each handler gets the graph, the
traced result and the call's arguments, adds nodes, and returns the names of
the result's tensors. A handler registers under every public name of the call
(torch.<f>, torch.Tensor.<f>, torch.nn.functional.<f>)."""
import math


import minitorch

from ._graph import np_dtype, numpy_dtype

_TABLE: dict = {}


class Unsupported(Exception):
    """Raised by a handler, before it adds nodes, for a form of its call it
    does not map: the call is then recorded through the calls it makes."""


def lookup(name: str):
    return _TABLE.get(name)


def register(*names, fn=True, method=True, functional=False):
    """Registers a handler under torch.<n>, torch.Tensor.<n> and, with
    functional, torch.nn.functional.<n>; a dotted name is taken as is."""
    def deco(handler):
        for n in names:
            if "." in n:
                _TABLE[n] = handler
                continue
            if fn:
                _TABLE["torch." + n] = handler
            if method:
                _TABLE["torch.Tensor." + n] = handler
            if functional:
                _TABLE["torch.nn.functional." + n] = handler
        return handler
    return deco


def onnx_type(g, dtype):
    return onnx_type_of(g.onnx, dtype)


def operand(g, x, dtype):
    """A tensor or Python scalar as a value of the given minitorch dtype."""
    if isinstance(x, minitorch.Tensor):
        name = g.value(x)
        return name if x.dtype == dtype else g.node("Cast", [name], to=onnx_type(g, dtype))
    return g.scalar(x, numpy_dtype(dtype))


def _axis(dim, rank):
    return dim + rank if dim < 0 else dim


# elementwise


def _binary(op, swap=False):
    def handler(g, r, a, b, *, alpha=1, out=None):
        dtype = r.dtype if op not in _COMPARE else minitorch.result_type(a, b)
        x, y = operand(g, a, dtype), operand(g, b, dtype)
        if alpha != 1:
            y = g.node("Mul", [y, g.scalar(alpha, np_dtype(r))])
        return g.node(op, [y, x] if swap else [x, y])
    return handler


_COMPARE = ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor")

_names: tuple  # the public names of each registration loop's rows
for _names, _op in ((("add", "__add__", "__radd__", "__iadd__", "add_"), "Add"),
                    (("sub", "subtract", "__sub__", "__isub__", "sub_"), "Sub"),
                    (("mul", "multiply", "__mul__", "__rmul__", "__imul__", "mul_"), "Mul"),
                    (("true_divide", "__truediv__", "__itruediv__"), "Div"),
                    (("pow", "__pow__"), "Pow"),
                    (("eq", "__eq__"), "Equal"), (("lt", "less", "__lt__"), "Less"),
                    (("gt", "greater", "__gt__"), "Greater"),
                    (("le", "less_equal", "__le__"), "LessOrEqual"),
                    (("ge", "greater_equal", "__ge__"), "GreaterOrEqual"),
                    (("logical_and", "__and__"), "And"), (("logical_or", "__or__"), "Or"),
                    (("maximum",), "Max"), (("minimum",), "Min")):
    register(*_names)(_binary(_op))
for _names, _op in ((("__rsub__", "rsub"), "Sub"), (("__rtruediv__", "__rdiv__"), "Div"),
                    (("__rpow__",), "Pow")):
    register(*_names)(_binary(_op, swap=True))


@register("div", "divide", "div_")
def _div(g, r, a, b, *, rounding_mode=None, out=None):
    if rounding_mode is None:
        return _binary("Div")(g, r, a, b)
    # the quotient in float64, rounded as told, then cast to the result's dtype
    q = g.node("Div", [operand(g, a, minitorch.float64), operand(g, b, minitorch.float64)])
    if rounding_mode == "floor":
        q = g.node("Floor", [q])
    else:
        q = g.node("Mul", [g.node("Sign", [q]), g.node("Floor", [g.node("Abs", [q])])])
    return g.node("Cast", [q], to=onnx_type(g, r.dtype))


@register("ne", "not_equal", "__ne__")
def _ne(g, r, a, b, *, out=None):
    return g.node("Not", [_binary("Equal")(g, r, a, b)])


@register("matmul", "mm", "bmm", "__matmul__")
def _matmul(g, r, a, b, *, out=None):
    return g.node("MatMul", [g.value(a), g.value(b)])


def _unary(op):
    def handler(g, r, x, inplace=False, *, out=None):
        return g.node(op, [g.value(x)])
    return handler


for _names, _op in ((("neg", "negative", "__neg__", "neg_"), "Neg"), (("sqrt", "sqrt_"), "Sqrt"),
                    (("exp", "exp_"), "Exp"), (("log", "log_"), "Log"),
                    (("tanh", "tanh_"), "Tanh"), (("sigmoid", "sigmoid_"), "Sigmoid"),
                    (("relu", "relu_"), "Relu"), (("abs", "abs_", "__abs__"), "Abs"),
                    (("sin",), "Sin"), (("cos",), "Cos"), (("erf",), "Erf"),
                    (("reciprocal",), "Reciprocal"), (("floor",), "Floor"), (("ceil",), "Ceil"),
                    (("logical_not", "__invert__"), "Not")):
    register(*_names, functional=True)(_unary(_op))


@register("softplus", functional=True)
def _softplus(g, r, x, beta=1.0, threshold=20.0):
    # past the threshold torch returns x itself, which softplus equals there to
    # within float rounding
    if beta == 1:
        return g.node("Softplus", [g.value(x)])
    b = g.scalar(beta, np_dtype(x))
    return g.node("Div", [g.node("Softplus", [g.node("Mul", [g.value(x), b])]), b])


@register("rsqrt")
def _rsqrt(g, r, x, *, out=None):
    return g.node("Reciprocal", [g.node("Sqrt", [g.value(x)])])


@register("square")
def _square(g, r, x, *, out=None):
    return g.node("Mul", [g.value(x), g.value(x)])


@register("contiguous", "detach", "clone")
def _identity(g, r, x, *args, **kwargs):
    name = g.value(x)
    return name if r is x else g.node("Identity", [name])


@register("dropout", "dropout1d", "dropout2d", "alpha_dropout", fn=False, method=False,
          functional=True)
def _dropout(g, r, x, p=0.5, training=True, inplace=False):
    if training and p > 0:
        raise RuntimeError("minitorch.onnx.export: dropout in training mode has no ONNX "
                           "mapping; export the model in eval mode")
    return _identity(g, r, x)


@register("gelu", functional=True)
def _gelu(g, r, x, approximate="none"):
    if g.opset >= 20:
        return g.node("Gelu", [g.value(x)], approximate=approximate)
    dt = np_dtype(x)
    xs = g.value(x)
    if approximate == "tanh":
        cube = g.node("Mul", [xs, g.node("Mul", [xs, xs])])
        inner = g.node("Add", [xs, g.node("Mul", [cube, g.scalar(0.044715, dt)])])
        t = g.node("Tanh", [g.node("Mul", [inner, g.scalar(math.sqrt(2 / math.pi), dt)])])
    else:
        t = g.node("Erf", [g.node("Mul", [xs, g.scalar(1 / math.sqrt(2), dt)])])
    half = g.node("Mul", [xs, g.scalar(0.5, dt)])
    return g.node("Mul", [half, g.node("Add", [t, g.scalar(1.0, dt)])])


@register("silu", functional=True)
def _silu(g, r, x, inplace=False):
    return g.node("Mul", [g.value(x), g.node("Sigmoid", [g.value(x)])])


@register("leaky_relu", functional=True)
def _leaky_relu(g, r, x, negative_slope=0.01, inplace=False):
    return g.node("LeakyRelu", [g.value(x)], alpha=float(negative_slope))


@register("elu", functional=True)
def _elu(g, r, x, alpha=1.0, inplace=False):
    return g.node("Elu", [g.value(x)], alpha=float(alpha))


@register("hardtanh", functional=True)
def _hardtanh(g, r, x, min_val=-1.0, max_val=1.0, inplace=False):
    return _clamp(g, r, x, min_val, max_val)


@register("clamp", "clip")
def _clamp(g, r, x, min=None, max=None, *, out=None):
    dt = np_dtype(x)
    bounds = ["" if v is None else operand(g, v, x.dtype) if isinstance(v, minitorch.Tensor)
              else g.scalar(v, dt) for v in (min, max)]
    return g.node("Clip", [g.value(x)] + bounds)


def _softmax_op(op):
    def handler(g, r, x, dim=None, _stacklevel=3, dtype=None):
        if dim is None:  # torch's implicit choice, deprecated there
            dim = 0 if x.dim() in (0, 1, 3) else 1
        return g.node(op, [operand(g, x, r.dtype)], axis=_axis(dim, x.dim()))
    return handler


register("softmax", functional=True)(_softmax_op("Softmax"))
register("log_softmax", functional=True)(_softmax_op("LogSoftmax"))


@register("where")
def _where(g, r, condition, input=None, other=None, *, out=None):
    if input is None:
        raise RuntimeError("minitorch.onnx.export: no ONNX mapping for 'minitorch.where' with "
                           "one argument (its result's size depends on the data)")
    return g.node("Where", [g.value(condition), operand(g, input, r.dtype),
                            operand(g, other, r.dtype)])


@register("masked_fill", "masked_fill_")
def _masked_fill(g, r, x, mask, value):
    return g.node("Where", [g.value(mask), operand(g, value, r.dtype), g.value(x)])


def _cast(g, r, x, *args, **kwargs):
    if r.dtype == x.dtype:
        return g.value(x)
    return g.node("Cast", [g.value(x)], to=onnx_type(g, r.dtype))


register("to", "type", "float", "double", "long", "int", "bool", "half", "type_as", fn=False)(_cast)


# reductions


def _reduce(op):
    def handler(g, r, x, dim=None, keepdim=False, *, dtype=None, out=None):
        if isinstance(dim, int):
            dim = [dim]
        axes = range(x.dim()) if dim is None or len(dim) == 0 else [_axis(d, x.dim()) for d in dim]
        return g.reduce(op, operand(g, x, r.dtype), axes, keepdim)
    return handler


register("mean")(_reduce("ReduceMean"))
register("sum")(_reduce("ReduceSum"))
register("amax")(_reduce("ReduceMax"))
register("amin")(_reduce("ReduceMin"))


def onnx_type_of(onnx, dtype):
    return onnx.helper.np_dtype_to_tensor_dtype(numpy_dtype(dtype))


def _max_min(reduce_op, arg_op, elementwise_op):
    def handler(g, r, x, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, minitorch.Tensor):
            return g.node(elementwise_op, [operand(g, x, r.dtype), operand(g, dim, r.dtype)])
        if dim is None:
            return g.reduce(reduce_op, g.value(x), range(x.dim()), False)
        axis = _axis(dim, x.dim())
        values = g.reduce(reduce_op, g.value(x), [axis], keepdim)
        return [values, g.node(arg_op, [g.value(x)], axis=axis, keepdims=int(keepdim))]
    return handler


register("max")(_max_min("ReduceMax", "ArgMax", "Max"))
register("min")(_max_min("ReduceMin", "ArgMin", "Min"))


def _arg(op):
    def handler(g, r, x, dim=None, keepdim=False, *, out=None):
        if dim is None:
            flat = g.node("Reshape", [g.value(x), g.ints([-1])])
            return g.node(op, [flat], axis=0, keepdims=0)
        return g.node(op, [g.value(x)], axis=_axis(dim, x.dim()), keepdims=int(keepdim))
    return handler


register("argmax")(_arg("ArgMax"))
register("argmin")(_arg("ArgMin"))


def _addc(op):
    def handler(g, r, x, tensor1, tensor2, *, value=1, out=None):
        t = g.node(op, [operand(g, tensor1, r.dtype), operand(g, tensor2, r.dtype)])
        if value != 1:
            t = g.node("Mul", [t, g.scalar(value, np_dtype(r))])
        return g.node("Add", [operand(g, x, r.dtype), t])
    return handler


register("addcmul", "addcmul_")(_addc("Mul"))
register("addcdiv", "addcdiv_")(_addc("Div"))
