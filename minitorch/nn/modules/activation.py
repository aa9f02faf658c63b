"""Activation modules and MultiheadAttention."""
import math
from typing import Optional

import minitorch
from .. import functional as F, init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["ReLU", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "MultiheadAttention"]


class ReLU(Module):
    """Applies the rectified linear unit function element-wise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """Applies LeakyReLU(x) = max(0, x) + negative_slope * min(0, x)."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace_str}"


class GELU(Module):
    """Applies the Gaussian Error Linear Units function."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={repr(self.approximate)}"


class SiLU(Module):
    """Applies the Sigmoid Linear Unit function element-wise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """Applies the Sigmoid function element-wise."""

    def forward(self, input):
        return minitorch.sigmoid(input)


class Tanh(Module):
    """Applies the Hyperbolic Tangent function element-wise."""

    def forward(self, input):
        return minitorch.tanh(input)


class Softmax(Module):
    """Applies the Softmax function along dim."""

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Applies log(Softmax(x)) along dim."""

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class MultiheadAttention(Module):
    """Allows the model to jointly attend to information from different
    representation subspaces."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim=None, vdim=None,
                 batch_first: bool = False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("minitorch's MultiheadAttention has no add_bias_kv or "
                                      "add_zero_attn")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, \
            "embed_dim must be divisible by num_heads"
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(minitorch.empty(embed_dim, embed_dim, dtype=dtype))
            self.k_proj_weight = Parameter(minitorch.empty(embed_dim, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(minitorch.empty(embed_dim, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(minitorch.empty(3 * embed_dim, embed_dim,
                                                            dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(minitorch.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = self.in_proj_weight.chunk(3)
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        attn_output, attn_weights = _multi_head_attention(
            query, key, value, self.num_heads, w_q, w_k, w_v, self.in_proj_bias,
            self.out_proj.weight, self.out_proj.bias, self.dropout if self.training else 0.0,
            key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_weights
        return attn_output, attn_weights


def _float_mask(mask, name: str, dtype):
    """A boolean mask (True = masked) as -inf/0; float masks are added as they are."""
    if mask is None:
        return None
    if mask.dtype == minitorch.bool:
        return minitorch.zeros(mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask.to(dtype)


def _multi_head_attention(query, key, value, num_heads, w_q, w_k, w_v, in_proj_bias,
                                 out_proj_weight, out_proj_bias, dropout_p, key_padding_mask,
                                 need_weights, attn_mask, average_attn_weights, is_causal):
    """Attention over (L, N, E) query and (S, N, E) key/value (or unbatched (L, E))."""
    is_batched = query.dim() == 3
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    head_dim = embed_dim // num_heads
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    q = F.linear(query, w_q, b_q)
    k = F.linear(key, w_k, b_k)
    v = F.linear(value, w_v, b_v)

    mask = _float_mask(attn_mask, "attn_mask", q.dtype)
    if mask is not None:
        if mask.dim() == 2:
            if tuple(mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but should "
                                   f"be {(tgt_len, src_len)}.")
            mask = mask.unsqueeze(0)
        elif mask.dim() == 3:
            if tuple(mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should "
                                   f"be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {mask.dim()} is not supported")
    elif is_causal:
        mask = minitorch.zeros(tgt_len, src_len, dtype=q.dtype).masked_fill(
            minitorch.ones(tgt_len, src_len, dtype=minitorch.bool).triu(1),
            float("-inf")).unsqueeze(0)

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(src_len, bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(src_len, bsz * num_heads, head_dim).transpose(0, 1)

    kpm = _float_mask(key_padding_mask, "key_padding_mask", q.dtype)
    if kpm is not None:
        if tuple(kpm.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {kpm.shape}")
        kpm = kpm.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len).reshape(
            bsz * num_heads, 1, src_len)
        mask = kpm if mask is None else mask + kpm

    scores = (q * (1.0 / math.sqrt(head_dim))).matmul(k.transpose(-2, -1))
    if mask is not None:
        scores = scores + mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    out = weights.matmul(v)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if not is_batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    if not is_batched:
        weights = weights.squeeze(0)
    return out, weights
