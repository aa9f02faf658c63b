"""nn.Transformer and its encoder/decoder stacks and layers, as torch's reference
(non-fused) path computes them; state-dict names match torch's so weights copy
across. torch's nested-tensor fast path is not modelled: enable_nested_tensor is
accepted (with torch's warning when it could not apply) and otherwise ignored."""
import copy
import warnings
from typing import Callable, Optional, Union

import minitorch
from .. import functional as F, init
from ..functional.attention import _canonical_mask
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]

Tensor = minitorch.Tensor
_Activation = Union[str, Callable[[Tensor], Tensor]]


def _activation_fn(activation: _Activation) -> Callable[[Tensor], Tensor]:
    if not isinstance(activation, str):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _relu_or_gelu(activation: Callable) -> int:
    """torch's activation_relu_or_gelu flag: 1 for relu, 2 for gelu, else 0."""
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


def _clones(module: Module, n: int) -> ModuleList:
    # op functions (an activation such as F.relu) are immutable and cannot be pickled,
    # so the copies share them
    ops = {id(v): v for m in module.modules() for v in vars(m).values()
           if isinstance(v, type(F.relu))}
    return ModuleList([copy.deepcopy(module, dict(ops)) for _ in range(n)])


def _seq_len(src: Tensor, batch_first: bool) -> int:
    return src.shape[0] if src.dim() == 2 else src.shape[1 if batch_first else 0]


def _square_subsequent_mask(sz: int, dtype=None) -> Tensor:
    return minitorch.full((sz, sz), float("-inf"), dtype=dtype or minitorch.float32).triu(1)


def _detect_is_causal_mask(mask: Optional[Tensor], is_causal: Optional[bool],
                           size: Optional[int]) -> bool:
    """is_causal as given, or (when None) whether mask is exactly the causal mask."""
    if is_causal is not None or mask is None:
        return is_causal is True
    sz = size if size is not None else mask.shape[-2]
    causal = _square_subsequent_mask(sz, mask.dtype)
    return tuple(mask.shape) == (sz, sz) and bool((mask == causal).all())


def _build_layer(layer: Module, attentions, blocks: int, d_model: int, nhead: int,
                 dim_feedforward: int, dropout: float, activation: _Activation, eps: float,
                 batch_first: bool, norm_first: bool, bias: bool, dtype) -> None:
    """The submodules of an encoder or decoder layer, registered in torch's order (so
    state dicts and reprs line up): the attentions, the feedforward network, then a
    norm and a dropout per residual block."""
    for name in attentions:
        setattr(layer, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                batch_first=batch_first, dtype=dtype))
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
    layer.norm_first = norm_first
    for i in range(1, blocks + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, dtype=dtype))
    for i in range(1, blocks + 1):
        setattr(layer, f"dropout{i}", Dropout(dropout))
    layer.activation = _activation_fn(activation)


class TransformerEncoderLayer(Module):
    """A Transformer encoder layer: self-attention then a feedforward network, each
    with dropout, a residual connection and layer normalization."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: _Activation = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        _build_layer(self, ("self_attn",), 2, d_model, nhead, dim_feedforward, dropout,
                     activation, layer_norm_eps, batch_first, norm_first, bias, dtype)
        self.activation_relu_or_gelu = _relu_or_gelu(self.activation)

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None,
                is_causal: bool = False) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               src_mask, "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """A Transformer decoder layer: self-attention, attention over the encoder's
    memory, then a feedforward network, each with dropout, a residual connection and
    layer normalization."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: _Activation = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        _build_layer(self, ("self_attn", "multihead_attn"), 3, d_model, nhead,
                     dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                     norm_first, bias, dtype)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None,
                tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask, key_padding_mask,
                   is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_no_nested_tensor(layer: Module) -> str:
    """torch's reason its encoder cannot use nested tensors with this layer ('' if it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    for failed, reason in (
            (layer.norm_first, "norm_first was True"),
            (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for "
                                   "better inference performance)"),
            (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
            (attn.in_proj_bias is None, "self_attn was passed bias=False"),
            (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
            (layer.norm1.eps != layer.norm2.eps, f"norm1.eps was not equal to {name}.norm2.eps"),
            (attn.num_heads % 2 == 1, "self_attn.num_heads is odd")):
        if failed:
            return f"{name}.{reason}"
    return ""


class TransformerEncoder(Module):
    """A stack of num_layers copies of an encoder layer, with an optional final norm."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Optional[Module] = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None,
                is_causal: Optional[bool] = None) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               mask, "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype)
        first = self.layers[0]
        batch_first = getattr(getattr(first, "self_attn", None), "batch_first", False)
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """A stack of num_layers copies of a decoder layer, with an optional final norm."""

    def __init__(self, decoder_layer: Module, num_layers: int,
                 norm: Optional[Module] = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None,
                tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None,
                tgt_is_causal: Optional[bool] = None, memory_is_causal: bool = False) -> Tensor:
        tgt_is_causal = _detect_is_causal_mask(
            tgt_mask, tgt_is_causal, _seq_len(tgt, self.layers[0].self_attn.batch_first))
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """An encoder-decoder Transformer model (Vaswani et al., 2017)."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: _Activation = F.relu,
                 custom_encoder: Optional[Module] = None,
                 custom_decoder: Optional[Module] = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer_args, dtype=dtype), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer_args, dtype=dtype), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Optional[Tensor] = None,
                tgt_mask: Optional[Tensor] = None, memory_mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None,
                tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None,
                src_is_causal: Optional[bool] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        if src.dim() == 3 and src.shape[0 if self.batch_first else 1] != \
                tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """A float mask for a sequence of length sz: -inf above the diagonal (future
        positions), 0.0 elsewhere."""
        return _square_subsequent_mask(sz, dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
