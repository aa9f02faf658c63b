"""scaled_dot_product_attention and multi_head_attention_forward (re-exported by
nn.functional), composed from differentiable minitorch ops the way torch's CPU
backends compute them.

torch 2.13 on CPU picks its fused "flash" kernel for 4-D inputs without dropout
and its math path otherwise; the two differ only in whether attn_mask and
is_causal may be combined, so the choice is mirrored here for that one check.
Both give rows whose every key is masked an output of zeros (a "safe" softmax),
not NaN."""
from __future__ import annotations

import math
import warnings
from typing import Optional, Tuple

import minitorch
from ...overrides import overridable as _overridable
from ... import _C
from .dropouts import dropout
from .namespace import publish
from .op_rows import linear
from .padding import pad
from .reduction import _torch_size

Tensor = minitorch.Tensor
_fused_attention = _C._functions["_fused_attention"]

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
                "bool": "bool"}


def _cpp_name(t: Tensor) -> str:
    """The C++ spelling of a dtype that torch's sdpa checks print."""
    name = str(t.dtype).replace("minitorch.", "")
    return _DTYPE_NAMES.get(name, name)


def _check_inputs(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor]) -> None:
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_cpp_name(query)} key.dtype: {_cpp_name(key)} and "
                           f"value.dtype: {_cpp_name(value)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype != minitorch.bool and \
            attn_mask.dtype != query.dtype:
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {_cpp_name(attn_mask)} and  "
                           f"query.dtype: {_cpp_name(query)} instead.")


def _fused_path(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor,
                dropout_p: float, enable_gqa: bool) -> bool:
    """Whether torch's CPU dispatcher would run its flash kernel on these inputs
    (it has no gradient for the mask)."""
    if dropout_p != 0.0 or not (query.dim() == key.dim() == value.dim() == 4):
        return False
    if attn_mask.requires_grad and minitorch.is_grad_enabled():
        return False
    if not (query.shape[-1] == key.shape[-1] == value.shape[-1]):
        return False
    if not (query.shape[0] == key.shape[0] == value.shape[0]):
        return False
    if enable_gqa:
        return key.shape[1] == value.shape[1] and query.shape[1] % key.shape[1] == 0
    return query.shape[1] == key.shape[1] == value.shape[1]


def _fused_heads(query: Tensor, key: Tensor, value: Tensor) -> bool:
    """Whether the fused kernel takes these heads: torch's flash shapes (4-d,
    one batch and head count, one channel count) in float32 or float64, none
    of them empty."""
    if not (query.dtype == key.dtype == value.dtype) or \
            query.dtype not in (minitorch.float32, minitorch.float64):
        return False
    if not (query.dim() == key.dim() == value.dim() == 4):
        return False
    if query.shape[:2] != key.shape[:2] or key.shape[:3] != value.shape[:3]:
        return False
    return query.shape[-1] == key.shape[-1] == value.shape[-1] and \
        query.numel() > 0 and key.numel() > 0


def _repeat_kv_heads(query: Tensor, key: Tensor, value: Tensor):
    """Grouped-query attention: each key/value head serves a group of query heads."""
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq % hk != 0 or hq % hv != 0:
        # torch's message ends mid-sentence like this too
        raise RuntimeError("Number of heads in key and value must divide the number of "
                           "heads in ")
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


# (L, S, dtype) -> the (L, S) causal mask as 0 / -inf, built once per shape
_CAUSAL_BIAS: dict = {}
_CAUSAL_BIAS_LIMIT = 16


def _causal_bias(L: int, S: int, dtype) -> Tensor:
    """The additive causal mask: -inf where key j comes after query i (j > i)."""
    key = (L, S, dtype)
    bias = _CAUSAL_BIAS.get(key)
    if bias is None:
        if len(_CAUSAL_BIAS) >= _CAUSAL_BIAS_LIMIT:
            _CAUSAL_BIAS.clear()
        with minitorch.no_grad():
            bias = minitorch.zeros(L, S, dtype=dtype).masked_fill_(
                minitorch.ones(L, S, dtype=minitorch.bool).triu(1), float("-inf"))
        _CAUSAL_BIAS[key] = bias
    return bias


@_overridable
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Optional[Tensor] = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    """Computes softmax(query @ key^T * scale + mask) @ value, with an optional
    boolean (True = attend) or additive float mask, a causal mask, dropout on the
    attention weights and grouped-query heads."""
    _check_inputs(query, key, value, attn_mask)
    if is_causal and attn_mask is not None and not _fused_path(query, key, value, attn_mask,
                                                               dropout_p, enable_gqa):
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if enable_gqa and query.dim() >= 3:
        key, value = _repeat_kv_heads(query, key, value)
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if attn_mask is None and dropout_p == 0.0 and _fused_heads(query, key, value):
        return _fused_attention(query, key, value, scale, is_causal)[0]
    # One scaling pass over the smaller of query and the scores, which is the query
    # whenever there are more keys than channels.
    if scale == 1.0:
        scores = query.matmul(key.transpose(-2, -1))
    elif S >= query.shape[-1]:
        scores = (query * scale).matmul(key.transpose(-2, -1))
    else:
        scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        # matmul's output is ours and its backward keeps only the inputs, so the
        # cached additive mask can go in place
        scores = scores.add_(_causal_bias(L, S, scores.dtype))
    if attn_mask is not None:
        if attn_mask.dtype == minitorch.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = minitorch._safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights.matmul(value)


def _canonical_mask(mask: Optional[Tensor], name: str, other: Optional[Tensor],
                    other_name: str, dtype) -> Optional[Tensor]:
    """A boolean mask (True = masked) as -inf/0 of dtype; float masks stay as they are."""
    if mask is None:
        return None
    if mask.dtype != minitorch.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=4)
    if mask.dtype == minitorch.bool:
        return minitorch.zeros(mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))
    return mask


def _check_mha_shapes(query: Tensor, key: Tensor, value: Tensor,
                      key_padding_mask: Optional[Tensor], attn_mask: Optional[Tensor],
                      num_heads: int) -> bool:
    """torch's shape checks for multi-head attention; returns whether the input is batched."""
    rank = query.dim()
    if rank not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{rank}-D query tensor")
    kind = "For batched (3-D) `query`" if rank == 3 else "For unbatched (2-D) `query`"
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"{kind}, expected `key` and `value` to be {rank}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"{kind}, expected `key_padding_mask` to be `None` or "
                             f"{rank - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(f"{kind}, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                             f"{attn_mask.dim()}-D tensor instead")
    if rank == 2 and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{_torch_size(attn_mask)}")
    return rank == 3


def _heads(t: Tensor, static: Optional[Tensor], name: str, batch_heads: int,
           head_dim: int) -> Tensor:
    """A projected (S, N, E) key or value as (N*heads, S, head_dim), or the static
    one given in that layout instead."""
    if static is None:
        return t.reshape(t.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got "
                             f"{static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.shape[2]}")
    return static


@_overridable
def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
        bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
        dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
        training: bool = True, key_padding_mask: Optional[Tensor] = None,
        need_weights: bool = True, attn_mask: Optional[Tensor] = None,
        use_separate_proj_weight: bool = False, q_proj_weight: Optional[Tensor] = None,
        k_proj_weight: Optional[Tensor] = None, v_proj_weight: Optional[Tensor] = None,
        static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
        average_attn_weights: bool = True,
        is_causal: bool = False) -> Tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention over (L, N, E) query and (S, N, E*) key/value (or unbatched
    (L, E)): in-projection, attention per head, out-projection; returns the output and
    the attention weights (averaged over heads unless told not to) or None."""
    is_batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # sdpa builds the causal mask itself from the hint
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims "
                                 f"torch.Size({list(key.shape[:2])}) do not match value's "
                                 f"torch.Size({list(value.shape[:2])})")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {_torch_size(key)} does not match value shape "
                                 f"{_torch_size(value)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    if not training:
        dropout_p = 0.0

    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, key.shape[0]):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_torch_size(attn_mask)}, "
                                   f"but should be {(tgt_len, key.shape[0])}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, key.shape[0]):
            raise RuntimeError(f"The shape of the 3D attn_mask is {_torch_size(attn_mask)}, "
                               f"but should be {(bsz * num_heads, tgt_len, key.shape[0])}.")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = minitorch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = minitorch.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "static_k", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "static_v", bsz * num_heads, head_dim)

    if add_zero_attn:
        zeros = minitorch.zeros(bsz * num_heads, 1, head_dim, dtype=q.dtype)
        k, v = minitorch.cat([k, zeros], 1), minitorch.cat([v, zeros], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {_torch_size(key_padding_mask)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.matmul(v)
    else:
        if attn_mask is not None:
            attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
                attn_mask.reshape(bsz, num_heads, -1, src_len)
        out = scaled_dot_product_attention(
            q.reshape(bsz, num_heads, tgt_len, head_dim),
            k.reshape(bsz, num_heads, src_len, head_dim),
            v.reshape(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p, is_causal)
        out = out.permute(2, 0, 1, 3).reshape(tgt_len * bsz, embed_dim)
    if need_weights:
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
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


publish(globals())
