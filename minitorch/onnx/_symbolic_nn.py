"""The ONNX mapping of nn.functional's layers: linear, convolution, pooling,
normalization, embedding, attention and the fused recurrent layer op."""
import math

import numpy as np

import minitorch

from ._graph import np_dtype
from . import _symbolic
from ._symbolic import register


def _tuple(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


@register("linear", fn=False, method=False, functional=True)
def _linear(g, r, x, weight, bias=None):
    if x.dim() == 2:
        inputs = [g.value(x), g.value(weight)] + ([g.value(bias)] if bias is not None else [])
        return g.node("Gemm", inputs, transB=1)
    wt = g.node("Transpose", [g.value(weight)], perm=[1, 0])
    out = g.node("MatMul", [g.value(x), wt])
    return out if bias is None else g.node("Add", [out, g.value(bias)])


def _conv(n):
    def handler(g, r, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        k = list(weight.shape[2:])
        dilation = _tuple(dilation, n)
        if padding == "valid":
            padding = [0] * n
        if padding == "same":
            total = [d * (kk - 1) for d, kk in zip(dilation, k)]
            pads = [t // 2 for t in total] + [t - t // 2 for t in total]
        else:
            pads = _tuple(padding, n) * 2
        inputs = [g.value(x), g.value(weight)] + ([g.value(bias)] if bias is not None else [])
        return g.node("Conv", inputs, kernel_shape=k, strides=_tuple(stride, n), pads=pads,
                      dilations=dilation, group=groups)
    return handler


register("conv1d", functional=True, method=False)(_conv(1))
register("conv2d", functional=True, method=False)(_conv(2))


def _max_pool(n):
    def handler(g, r, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
        if return_indices:
            raise RuntimeError("minitorch.onnx.export: no ONNX mapping for max pooling "
                               "with return_indices=True")
        k = _tuple(kernel_size, n)
        stride = k if stride is None or stride == [] else _tuple(stride, n)
        return g.node("MaxPool", [g.value(x)], kernel_shape=k, strides=stride,
                      pads=_tuple(padding, n) * 2, dilations=_tuple(dilation, n),
                      ceil_mode=int(ceil_mode))
    return handler


def _avg_pool(n):
    def handler(g, r, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
        if divisor_override is not None:
            raise RuntimeError("minitorch.onnx.export: no ONNX mapping for avg_pool with "
                               "divisor_override")
        k = _tuple(kernel_size, n)
        stride = k if stride is None or stride == [] else _tuple(stride, n)
        return g.node("AveragePool", [g.value(x)], kernel_shape=k, strides=stride,
                      pads=_tuple(padding, n) * 2, ceil_mode=int(ceil_mode),
                      count_include_pad=int(count_include_pad))
    return handler


register("max_pool1d", functional=True, method=False)(_max_pool(1))
register("max_pool2d", functional=True, method=False)(_max_pool(2))
register("avg_pool1d", functional=True, method=False)(_avg_pool(1))
register("avg_pool2d", functional=True, method=False)(_avg_pool(2))


def _adaptive_avg(n):
    def handler(g, r, x, output_size):
        out = list(r.shape[-n:])
        ins = list(x.shape[-n:])
        if all(o == 1 for o in out):
            return g.node("GlobalAveragePool", [g.value(x)])
        if any(i % o for i, o in zip(ins, out)):
            raise RuntimeError("minitorch.onnx.export: no ONNX mapping for adaptive_avg_pool"
                               "%dd from %s to %s (sizes not divisible)" % (n, ins, out))
        k = [i // o for i, o in zip(ins, out)]
        return g.node("AveragePool", [g.value(x)], kernel_shape=k, strides=k)
    return handler


register("adaptive_avg_pool1d", functional=True, method=False)(_adaptive_avg(1))
register("adaptive_avg_pool2d", functional=True, method=False)(_adaptive_avg(2))


def _filled(g, x, n, value):
    return g.constant(np.full((n,), value, dtype=np_dtype(x)), "fill")


@register("batch_norm", functional=True, method=False)
def _batch_norm(g, r, x, running_mean, running_var, weight=None, bias=None, training=False,
                momentum=0.1, eps=1e-5):
    if training or running_mean is None:
        raise RuntimeError("minitorch.onnx.export: batch_norm in training mode has no ONNX "
                           "mapping; export the model in eval mode")
    c = x.shape[1]
    scale = g.value(weight) if weight is not None else _filled(g, x, c, 1.0)
    shift = g.value(bias) if bias is not None else _filled(g, x, c, 0.0)
    return g.node("BatchNormalization", [g.value(x), scale, shift, g.value(running_mean),
                                         g.value(running_var)], epsilon=float(eps))


@register("layer_norm", functional=True, method=False)
def _layer_norm(g, r, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    k = len(normalized_shape) if not isinstance(normalized_shape, int) else 1
    xs = g.value(x)
    if g.opset >= 17:
        scale = g.value(weight) if weight is not None else g.constant(
            np.ones(x.shape[-k:], dtype=np_dtype(x)), "ones")
        inputs = [xs, scale] + ([g.value(bias)] if bias is not None else [])
        return g.node("LayerNormalization", inputs, axis=-k, epsilon=float(eps))
    axes = list(range(x.dim() - k, x.dim()))
    d = g.node("Sub", [xs, g.reduce("ReduceMean", xs, axes, True)])
    var = g.reduce("ReduceMean", g.node("Mul", [d, d]), axes, True)
    std = g.node("Sqrt", [g.node("Add", [var, g.scalar(eps, np_dtype(x))])])
    y = g.node("Div", [d, std])
    if weight is not None:
        y = g.node("Mul", [y, g.value(weight)])
    return y if bias is None else g.node("Add", [y, g.value(bias)])


@register("embedding", functional=True, method=False)
def _embedding(g, r, input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
               scale_grad_by_freq=False, sparse=False):
    if max_norm is not None:
        raise RuntimeError("minitorch.onnx.export: no ONNX mapping for embedding with max_norm")
    return g.node("Gather", [g.value(weight), g.value(input)], axis=0)


@register("scaled_dot_product_attention", functional=True, method=False)
def _sdpa(g, r, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
          enable_gqa=False):
    dt = np_dtype(q)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    perm = list(range(k.dim()))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    kt = g.node("Transpose", [g.value(k)], perm=perm)
    scores = g.node("Mul", [g.node("MatMul", [g.value(q), kt]), g.scalar(scale, dt)])
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        mask = np.tril(np.ones((L, S), dtype=bool))
        scores = g.node("Where", [g.constant(mask, "causal"), scores, g.scalar(-np.inf, dt)])
    if attn_mask is not None:
        if attn_mask.dtype == minitorch.bool:
            scores = g.node("Where", [g.value(attn_mask), scores, g.scalar(-np.inf, dt)])
        else:
            scores = g.node("Add", [scores, g.value(attn_mask)])
    return g.node("MatMul", [g.node("Softmax", [scores], axis=-1), g.value(v)])


# torch's gate blocks, in the order ONNX wants them
_GATE_ORDER = {2: [0, 3, 1, 2], 3: [1, 0, 2]}
_ONNX_RNN = {0: "RNN", 1: "RNN", 2: "LSTM", 3: "GRU"}


def _gates(g, w, cell, hidden):
    """A weight or bias of torch's gate order as ONNX's, with a leading
    direction dim."""
    name = g.value(w)
    order = _GATE_ORDER.get(cell)
    if order is not None:
        blocks = g.node("Split", [name, g.ints([hidden] * len(order))], n_out=len(order), axis=0)
        name = g.node("Concat", [blocks[i] for i in order], axis=0)
    return g.node("Unsqueeze", [name, g.ints([0])])


def _state(g, s):
    """An initial state as ONNX's (1, N, H), or '' for a constant zero state
    (ONNX's default, which keeps the batch dim dynamic)."""
    if not g.is_live(s) and not bool(s.any()):
        return ""
    return g.node("Unsqueeze", [g.value(s), g.ints([0])])


@register("torch._rnn_layer")
def _rnn_layer(g, r, x, h, c, w_ih, b_ih, w_hh, b_hh, cell, reverse):
    hidden = w_hh.shape[1]
    op = _ONNX_RNN[cell]
    bias = ""
    if b_ih is not None:
        bias = g.node("Concat", [_gates(g, b_ih, cell, hidden), _gates(g, b_hh, cell, hidden)],
                      axis=1)
    inputs = [g.value(x), _gates(g, w_ih, cell, hidden), _gates(g, w_hh, cell, hidden), bias,
              "", _state(g, h)]
    attrs = {"hidden_size": hidden, "direction": "reverse" if reverse else "forward"}
    if cell == 2:
        inputs.append(_state(g, c))
    if cell == 3:
        attrs["linear_before_reset"] = 1
    if cell in (0, 1):
        attrs["activations"] = ["Tanh" if cell == 0 else "Relu"]
    while inputs[-1] == "":
        inputs.pop()
    outs = g.node(op, inputs, n_out=3 if cell == 2 else 2, **attrs)
    y = g.node("Squeeze", [outs[0], g.ints([1])])
    hn = g.node("Squeeze", [outs[1], g.ints([0])])
    cn = g.node("Squeeze", [outs[2], g.ints([0])]) if cell == 2 else hn
    return [y, hn, cn]



def _mask_bias(g, mask, dt):
    """An attention mask as the float added to the scores (True: -inf)."""
    if mask.dtype == minitorch.bool:
        return g.node("Where", [g.value(mask), g.scalar(-np.inf, dt), g.scalar(0.0, dt)])
    return g.value(mask)


def _project(g, x, w, b, heads):
    """(T, N, E) projected and split into heads as (N, heads, T, E / heads)."""
    y = g.node("MatMul", [g.value(x), g.node("Transpose", [w], perm=[1, 0])])
    if b is not None:
        y = g.node("Add", [y, b])
    y = g.node("Reshape", [y, g.ints([0, 0, heads, -1])])
    return g.node("Transpose", [y], perm=[1, 2, 0, 3])


@register("multi_head_attention_forward", fn=False, method=False, functional=True)
def _multi_head_attention(g, r, query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                          in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                          out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
                          need_weights=True, attn_mask=None, use_separate_proj_weight=False,
                          q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
                          static_k=None, static_v=None, average_attn_weights=True,
                          is_causal=False):
    """The batched (L, N, E) case without extra key/value biases, written with
    reshapes that keep L, S and N dynamic; other forms are recorded through
    the function's own calls."""
    if (query.dim() != 3 or bias_k is not None or add_zero_attn or static_k is not None
            or static_v is not None or (attn_mask is not None and attn_mask.dim() != 2)
            or (training and dropout_p > 0)):
        raise _symbolic.Unsupported()
    dt = np_dtype(query)
    if use_separate_proj_weight:
        ws = [g.value(w) for w in (q_proj_weight, k_proj_weight, v_proj_weight)]
    else:
        e = in_proj_weight.shape[0] // 3
        ws = g.node("Split", [g.value(in_proj_weight), g.ints([e] * 3)], n_out=3, axis=0)
    bs = [None] * 3
    if in_proj_bias is not None:
        e = in_proj_bias.shape[0] // 3
        bs = g.node("Split", [g.value(in_proj_bias), g.ints([e] * 3)], n_out=3, axis=0)
    q, k, v = (_project(g, x, w, b, num_heads) for x, w, b in zip((query, key, value), ws, bs))
    head_dim = query.shape[2] // num_heads
    kt = g.node("Transpose", [k], perm=[0, 1, 3, 2])
    scores = g.node("Mul", [g.node("MatMul", [q, kt]), g.scalar(1.0 / math.sqrt(head_dim), dt)])
    if attn_mask is not None:
        scores = g.node("Add", [scores, _mask_bias(g, attn_mask, dt)])
    if key_padding_mask is not None:
        kpm = g.node("Unsqueeze", [_mask_bias(g, key_padding_mask, dt), g.ints([1, 2])])
        scores = g.node("Add", [scores, kpm])
    attn = g.node("Softmax", [scores], axis=-1)
    out = g.node("Transpose", [g.node("MatMul", [attn, v])], perm=[2, 0, 1, 3])
    out = g.node("Reshape", [out, g.ints([0, 0, -1])])
    out = g.node("MatMul", [out, g.node("Transpose", [g.value(out_proj_weight)], perm=[1, 0])])
    if out_proj_bias is not None:
        out = g.node("Add", [out, g.value(out_proj_bias)])
    if not need_weights:
        return [out]
    if average_attn_weights:
        attn = g.reduce("ReduceMean", attn, [1], False)
    return [out, attn]


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "wrap"}


@register("pad", fn=False, method=False, functional=True)
def _pad(g, r, x, pad, mode="constant", value=None):
    if mode not in _PAD_MODES or (mode == "circular" and g.opset < 19):
        raise RuntimeError("minitorch.onnx.export: no ONNX mapping for pad mode '%s' at opset "
                           "%d" % (mode, g.opset))
    n = x.dim()
    begins, ends = [0] * n, [0] * n
    for i in range(len(pad) // 2):
        begins[n - 1 - i], ends[n - 1 - i] = pad[2 * i], pad[2 * i + 1]
    inputs = [g.value(x), g.ints(begins + ends)]
    if mode == "constant":
        inputs.append(g.scalar(0 if value is None else value, np_dtype(x)))
    return g.node("Pad", inputs, mode=_PAD_MODES[mode])


def _group_normalized(g, x, groups, eps):
    """x normalized over each sample's groups of channels (and their spatial
    dims), in x's shape; with Shape, so every dim stays dynamic."""
    dt = np_dtype(x)
    y = g.node("Reshape", [g.value(x), g.ints([0, groups, -1])])
    d = g.node("Sub", [y, g.reduce("ReduceMean", y, [2], True)])
    var = g.reduce("ReduceMean", g.node("Mul", [d, d]), [2], True)
    y = g.node("Div", [d, g.node("Sqrt", [g.node("Add", [var, g.scalar(eps, dt)])])])
    return g.node("Reshape", [y, g.node("Shape", [g.value(x)])])


def _per_channel(g, y, x, weight, bias):
    """y * weight + bias with (C,) weight and bias broadcast over x's channel dim."""
    shape = g.ints([-1] + [1] * (x.dim() - 2))
    if weight is not None:
        y = g.node("Mul", [y, g.node("Reshape", [g.value(weight), shape])])
    if bias is not None:
        y = g.node("Add", [y, g.node("Reshape", [g.value(bias), shape])])
    return y


@register("group_norm", fn=False, method=False, functional=True)
def _group_norm(g, r, x, num_groups, weight=None, bias=None, eps=1e-5):
    return _per_channel(g, _group_normalized(g, x, num_groups, eps), x, weight, bias)


@register("instance_norm", fn=False, method=False, functional=True)
def _instance_norm(g, r, x, running_mean=None, running_var=None, weight=None, bias=None,
                   use_input_stats=True, momentum=0.1, eps=1e-5):
    if not use_input_stats:
        raise _symbolic.Unsupported()
    return _per_channel(g, _group_normalized(g, x, x.shape[1], eps), x, weight, bias)


@register("rms_norm", fn=False, method=False, functional=True)
def _rms_norm(g, r, x, normalized_shape, weight=None, eps=None):
    if eps is None:
        eps = float(np.finfo(np_dtype(x)).eps)
    axes = list(range(x.dim() - len(normalized_shape), x.dim()))
    xs = g.value(x)
    ms = g.reduce("ReduceMean", g.node("Mul", [xs, xs]), axes, True)
    y = g.node("Div", [xs, g.node("Sqrt", [g.node("Add", [ms, g.scalar(eps, np_dtype(x))])])])
    return y if weight is None else g.node("Mul", [y, g.value(weight)])
