"""minitorch.onnx.export: files that onnx.checker accepts and onnxruntime runs
with minitorch's outputs, dynamic axes, names, and the errors."""
import builtins
import io

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _flat(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    return [t for item in obj for t in _flat(item)]


def export_and_run(model, args, run_args=None, opset=None, **kwargs):
    """Exports model on args, checks the file, runs it on run_args (default
    args) and compares with the model; returns the loaded ModelProto."""
    f = io.BytesIO()
    torch.onnx.export(model, args, f, opset_version=opset, **kwargs)
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    sess = ort.InferenceSession(f.getvalue(), providers=["CPUExecutionProvider"])
    run_args = args if run_args is None else run_args
    inputs = _flat(run_args if isinstance(run_args, tuple) else (run_args,))
    feed = {i.name: t.numpy() for i, t in zip(sess.get_inputs(), inputs)}
    got = sess.run(None, feed)
    training = getattr(model, "training", False)
    if training:
        model.eval()  # export traces the model in eval mode
    with torch.no_grad():
        want = model(*run_args) if isinstance(run_args, tuple) else model(run_args)
    if training:
        model.train()
    want = _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)
    return proto


@pytest.mark.parametrize("opset", [13, 17, 18, 21])
@pytest.mark.parametrize("act", [nn.ReLU, nn.Tanh, nn.Sigmoid, nn.GELU, nn.SiLU])
def test_mlp(opset, act):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), act(), nn.Dropout(0.3), nn.Linear(8, 3),
                      nn.LogSoftmax(-1))
    x = torch.randn(5, 4)
    proto = export_and_run(m, (x,), opset=opset)
    assert proto.opset_import[0].version == opset
    # parameters are initializers named by their state_dict names
    names = {i.name for i in proto.graph.initializer}
    assert {"0.weight", "0.bias", "3.weight", "3.bias"} <= names
    assert m.training  # the model's mode is restored


def test_names_and_dynamic_batch():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    x = torch.randn(3, 4)
    proto = export_and_run(m, (x,), (torch.randn(11, 4),), input_names=["features"],
                           output_names=["logits"],
                           dynamic_axes={"features": {0: "batch"}, "logits": [0]})
    assert [i.name for i in proto.graph.input] == ["features"]
    assert [o.name for o in proto.graph.output] == ["logits"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert proto.graph.input[0].type.tensor_type.shape.dim[1].dim_value == 4
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == \
        "logits_dynamic_axes_1"


def test_static_shapes_without_dynamic_axes():
    m = nn.Linear(3, 2)
    proto = export_and_run(m, torch.randn(4, 3))
    dims = [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [4, 3]


def test_writes_to_a_path(tmp_path):
    m = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
    x = torch.randn(2, 3)
    path = tmp_path / "m.onnx"
    torch.onnx.export(m, (x,), str(path))
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0]
    np.testing.assert_allclose(got, m(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_export_params_false_makes_parameters_inputs():
    m = nn.Linear(3, 2)
    f = io.BytesIO()
    torch.onnx.export(m, (torch.randn(2, 3),), f, export_params=False)
    proto = onnx.load_from_string(f.getvalue())
    assert [i.name for i in proto.graph.input] == ["input_0", "weight", "bias"]
    assert len(proto.graph.initializer) == 0


def test_unmapped_op_raises_naming_it():
    class M(nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 0)
    with pytest.raises(RuntimeError, match=r"no ONNX mapping for 'minitorch\.cumsum'"):
        torch.onnx.export(M(), (torch.randn(3),), io.BytesIO())


def test_bad_opset():
    with pytest.raises(ValueError, match="opset_version"):
        torch.onnx.export(nn.Linear(2, 2), (torch.randn(1, 2),), io.BytesIO(), opset_version=9)


def test_without_onnx_installed(monkeypatch):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r'pip install "minitorch-c\[onnx\]"'):
        torch.onnx.export(nn.Linear(2, 2), (torch.randn(1, 2),), io.BytesIO())


class CNN(nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding="valid", groups=2, dilation=1)
        self.conv3 = nn.Conv2d(8, 6, 3, padding="same", dilation=2, bias=False)
        self.pool = pool
        self.fc = nn.Linear(6 * 2 * 2 if not isinstance(pool, nn.AdaptiveAvgPool2d) or
                            pool.output_size != 1 else 6, 5)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        x = nn.functional.max_pool2d(x, 2)
        x = nn.functional.avg_pool2d(torch.tanh(self.conv2(x)), 1)
        x = self.pool(self.conv3(x))
        return self.fc(torch.flatten(x, 1))


@pytest.mark.parametrize("pool", [lambda: nn.AdaptiveAvgPool2d(1), lambda: nn.AdaptiveAvgPool2d(2),
                                  lambda: nn.MaxPool2d(2, 2)])
def test_cnn(pool):
    torch.manual_seed(0)
    m = CNN(pool())
    m.bn.running_mean.uniform_(-0.5, 0.5)
    m.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 20, 20)
    proto = export_and_run(m, (x,), (torch.randn(5, 3, 20, 20),),
                           input_names=["image"], dynamic_axes={"image": [0]})
    ops = {n.op_type for n in proto.graph.node}
    assert {"Conv", "BatchNormalization", "MaxPool", "AveragePool"} <= ops
    assert "bn.running_mean" in {i.name for i in proto.graph.initializer}


def test_conv1d_and_pool1d():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv1d(2, 4, 3, padding=2, stride=2), nn.ReLU(), nn.MaxPool1d(2),
                      nn.AvgPool1d(2), nn.Flatten(), nn.Linear(4 * 2, 3))
    export_and_run(m, (torch.randn(3, 2, 20),))


class LanguageModel(nn.Module):
    """pytorch/examples' word_language_model: Embedding, an RNN, a decoder."""

    def __init__(self, kind, ntoken=20, ninp=8, nhid=12, nlayers=2, batch_first=False):
        super().__init__()
        self.kind = kind
        self.drop = nn.Dropout(0.5)
        self.encoder = nn.Embedding(ntoken, ninp)
        if kind in ("LSTM", "GRU"):
            self.rnn = getattr(nn, kind)(ninp, nhid, nlayers, dropout=0.5,
                                         batch_first=batch_first)
        else:
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=kind[4:].lower(), dropout=0.5,
                              batch_first=batch_first)
        self.decoder = nn.Linear(nhid, ntoken)
        self.ntoken = ntoken

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        h = torch.randn(2, bsz, 12)
        return (h, torch.randn(2, bsz, 12)) if self.kind == "LSTM" else h


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_rnn_language_model(kind, batch_first, tmp_path):
    torch.manual_seed(0)
    m = LanguageModel(kind, batch_first=batch_first)
    tokens = torch.randint(0, 20, (4, 3) if batch_first else (3, 4))
    proto = export_and_run(m, (tokens, m.init_hidden(4)))
    assert kind[:4].rstrip("_") in {n.op_type for n in proto.graph.node}
    # word_language_model's own call: a path, the input and the hidden state
    path = tmp_path / "model.onnx"
    torch.onnx.export(m, (tokens, m.init_hidden(4)), str(path))
    onnx.checker.check_model(onnx.load(str(path)))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("opset", [13, 21])
def test_rnn_without_state_dynamic_batch(kind, batch_first, bidirectional, opset):
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 6)
            self.rnn = getattr(nn, kind)(6, 5, batch_first=batch_first,
                                         bidirectional=bidirectional)
            self.out = nn.Linear(10 if bidirectional else 5, 3)

        def forward(self, x):
            return self.out(self.rnn(self.emb(x))[0])

    dims = (4, 7) if batch_first else (7, 4)
    other = (9, 7) if batch_first else (7, 9)
    b = 0 if batch_first else 1
    export_and_run(M(), (torch.randint(0, 10, dims),), (torch.randint(0, 10, other),),
                   input_names=["tokens"], dynamic_axes={"tokens": [b]}, opset=opset)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("opset", [13, 17, 21])
def test_transformer_encoder_layer(batch_first, norm_first, activation, opset):
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(16, 4, 32, batch_first=batch_first, norm_first=norm_first,
                                   activation=activation)
    x = torch.randn(3, 5, 16)
    other = torch.randn(7, 5, 16) if batch_first else torch.randn(3, 7, 16)
    export_and_run(m, (x,), (other,), input_names=["src"],
                   dynamic_axes={"src": [0 if batch_first else 1]}, opset=opset)


@pytest.mark.parametrize("opset", [13, 17])
def test_transformer_encoder_with_mask(opset):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    m = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    x = torch.randn(2, 4, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(4)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = m

        def forward(self, x):
            return self.enc(x, mask=mask)
    export_and_run(M(), (x,), opset=opset)


def test_scaled_dot_product_attention():
    q, k, v = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 6, 4), torch.randn(2, 3, 6, 4)
    mask = torch.rand(5, 6) > 0.3
    mask[:, 0] = True
    F = nn.functional
    export_and_run(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                   (q, k, v))
    export_and_run(lambda q, k: F.scaled_dot_product_attention(q, k, k, is_causal=True,
                                                               scale=0.3), (q, q))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("bool_masks", [False, True])
def test_multihead_attention(batch_first, need_weights, average, bool_masks):
    torch.manual_seed(0)
    m = nn.MultiheadAttention(12, 3, batch_first=batch_first, kdim=6, vdim=5)
    n, L, S = 2, 4, 5
    shape = (lambda t, e: (n, t, e)) if batch_first else (lambda t, e: (t, n, e))
    q, k, v = torch.randn(*shape(L, 12)), torch.randn(*shape(S, 6)), torch.randn(*shape(S, 5))
    pad = torch.tensor([[False] * 4 + [True], [False] * 5])
    mask = torch.rand(L, S) > 0.7 if bool_masks else torch.randn(L, S)
    if bool_masks:
        mask[:, 0] = False
    else:
        pad = torch.where(pad, float("-inf"), 0.0)

    def f(q, k, v):
        out = m(q, k, v, key_padding_mask=pad, attn_mask=mask, need_weights=need_weights,
                average_attn_weights=average)
        return out if need_weights else out[0]
    export_and_run(f, (q, k, v))


def test_multihead_attention_bool_mask_and_bias_kv():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, add_bias_kv=True).eval()
    x = torch.randn(3, 2, 8)
    mask = torch.tensor([[False, True, True], [False, False, True], [False, False, False]])
    # bias_k/bias_v are recorded through multi_head_attention_forward's own calls
    export_and_run(lambda x: m(x, x, x, attn_mask=mask)[0], (x,))


@pytest.mark.parametrize("opset", [13, 17, 18, 21])
def test_shape_and_indexing_ops(opset):
    torch.manual_seed(0)

    def f(x, y):
        a = x[:, 1:3, None, ..., ::2]
        b = x.permute(2, 0, 1).reshape(x.shape[2], -1).t()
        c = torch.cat([x, y], 1).transpose(0, 2).contiguous().squeeze().unsqueeze(-1)
        d = torch.stack([x, y], -1).sum(dim=(1, 3), keepdim=True).mean(-1)
        e1, e2 = x.split([1, 3], dim=1)
        f1, f2 = y.chunk(2, 2)
        g = x[0] * x.select(1, -1)[:, None] + x.narrow(2, 1, 2).amax(2, keepdim=True)
        idx = torch.tensor([2, 0, 2])
        h = x[:, idx].flatten(1) + y.unbind(1)[3].repeat(1, 3)
        i = torch.where(x > 0, x, y).masked_fill(y < -0.5, 7.0).clamp(-1, 2).expand(2, 2, 4, 6)
        values, indices = x.max(1, keepdim=True)
        assert x.type().endswith("FloatTensor")
        return (a, b, c, d, e1 - e2[:, :1], f1 / (f2.abs() + 1), g, h.view(2, 3, -1), i,
                x.amin(), x.float().long(), values, indices, x.min(-1)[1], x.max(), y.min(),
                torch.max(x, y), x.argmax(), y.argmin(2, keepdim=True), x.mean(), y.sum(0))
    export_and_run(f, (torch.randn(2, 4, 6), torch.randn(2, 4, 6)), opset=opset)


@pytest.mark.parametrize("opset", [13, 21])
def test_elementwise_and_scalars(opset):
    def f(x, n):
        y = 2 - x * 3 + 1.5 / (x.exp() + 1)
        z = (x.abs() + 1).log().rsqrt() ** 2 + 2 ** x.tanh() + torch.sigmoid(x).pow(0.5)
        w = nn.functional.leaky_relu(x, 0.2) + nn.functional.elu(x) + nn.functional.hardtanh(x)
        k = (x.eq(x) & (x != 1)).logical_not() | (x >= 0)
        return y, z, w, k, torch.maximum(x, y), n * 2 + 1, n + x
    export_and_run(f, (torch.randn(3, 4), torch.arange(4)), opset=opset)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("opset", [13, 17, 20])
def test_gelu_and_layer_norm_over_opsets(approximate, opset):
    torch.manual_seed(0)
    m = nn.Sequential(nn.LayerNorm([3, 4]), nn.GELU(approximate), nn.LayerNorm(4, bias=False))
    export_and_run(m, (torch.randn(2, 3, 4),), opset=opset)


def test_inplace_ops_and_constants():
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.register_buffer("scale", torch.full((4,), 0.5))

        def forward(self, x):
            y = self.lin(x)
            y.relu_()
            y += 1
            mask = torch.triu(torch.ones(4, 4), 1)  # folded into a constant
            return y * self.scale + mask[1]
    proto = export_and_run(M(), (torch.randn(3, 4),))
    assert "scale" in {i.name for i in proto.graph.initializer}


def test_unmapped_inplace_on_live_tensor_raises():
    def f(x):
        y = x * 1
        y.fmod_(2.0)
        return y
    with pytest.raises(RuntimeError, match=r"no ONNX mapping for 'minitorch\.Tensor\.fmod_'"):
        torch.onnx.export(f, (torch.randn(3),), io.BytesIO())


def test_training_dropout_refused():
    with pytest.raises(RuntimeError, match="dropout in training mode"):
        torch.onnx.export(lambda x: nn.functional.dropout(x, 0.5, True), (torch.randn(3),),
                          io.BytesIO())


def test_keyword_inputs_and_is_in_onnx_export():
    seen = []

    def f(x, *, y):
        seen.append(torch.onnx.is_in_onnx_export())
        return x + y
    export_and_run(lambda x, y: f(x, y=y), (torch.randn(2), torch.randn(2)))
    assert seen == [True, False]
    assert not torch.onnx.is_in_onnx_export()


class PositionalEncoding(nn.Module):
    def __init__(self, d, max_len=50):
        super().__init__()
        position = torch.arange(max_len, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2).float() * (-9.2 / d))
        pe = torch.zeros(max_len, d)
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

    def forward(self, x):
        return x + self.pe[:x.size(0), :]


def test_transformer_language_model():
    """word_language_model's Transformer: embedding, positional encoding from a
    buffer, an encoder with a causal mask built from constants, a decoder."""
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(30, 8)
            self.pos = PositionalEncoding(8)
            self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                 enable_nested_tensor=False)
            self.decoder = nn.Linear(8, 30)

        def forward(self, src):
            mask = (torch.triu(torch.ones(len(src), len(src))) == 1).transpose(0, 1)
            mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, 0.0)
            out = self.encoder(self.pos(self.emb(src) * 8 ** 0.5), mask=mask)
            return nn.functional.log_softmax(self.decoder(out), dim=-1)
    tokens = torch.randint(0, 30, (5, 3))
    proto = export_and_run(M(), (tokens,), (torch.randint(0, 30, (5, 6)),),
                           dynamic_axes={"input_0": [1]})
    assert "pos.pe" in {i.name for i in proto.graph.initializer}


def test_minitorch_imports_without_onnx():
    import subprocess
    import sys
    code = ("import sys; sys.modules['onnx'] = None\n"
            "import minitorch\n"
            "try:\n"
            "    minitorch.onnx.export(minitorch.nn.Linear(2, 2), (minitorch.randn(1, 2),), 'x')\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert 'pip install "minitorch-c[onnx]"' in out


def test_verbose_prints_the_graph(capsys):
    torch.onnx.export(nn.Linear(2, 3), (torch.randn(1, 2),), io.BytesIO(), verbose=True)
    out = capsys.readouterr().out
    assert "Gemm" in out and "weight" in out


@pytest.mark.parametrize("mode,opset", [("constant", 17), ("reflect", 17), ("replicate", 13),
                                        ("circular", 19)])
def test_pad(mode, opset):
    x = torch.randn(2, 3, 5, 6)
    value = 0.5 if mode == "constant" else None
    export_and_run(lambda x: nn.functional.pad(x, (1, 2, 2, 1), mode, value) * 2, (x,),
                   opset=opset)
    export_and_run(nn.ZeroPad2d((1, 0, 2, 3)), (x,))


def test_pad_mode_refused_below_its_opset():
    with pytest.raises(RuntimeError, match="no ONNX mapping for pad mode 'circular' at opset 17"):
        torch.onnx.export(lambda x: nn.functional.pad(x, (1, 1), "circular"),
                          (torch.randn(1, 2, 4),), io.BytesIO())


@pytest.mark.parametrize("case", ["unbatched_lstm", "lstm_cell", "gru_cell", "lstm_proj",
                                  "float64"])
def test_more_recurrent_forms_and_dtypes(case):
    torch.manual_seed(0)
    m, args = {
        "unbatched_lstm": (nn.LSTM(3, 4, 2), (torch.randn(5, 3),)),
        "lstm_cell": (nn.LSTMCell(3, 4), (torch.randn(2, 3), (torch.randn(2, 4),
                                                              torch.randn(2, 4)))),
        "gru_cell": (nn.GRUCell(3, 4), (torch.randn(2, 3),)),
        # projections run step by step: recorded through the steps' calls
        "lstm_proj": (nn.LSTM(3, 4, proj_size=2), (torch.randn(5, 2, 3),)),
        "float64": (nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.LayerNorm(4)).double(),
                    (torch.randn(4, 3, dtype=torch.float64),)),
    }[case]
    export_and_run(m, args)


def test_keep_initializers_as_inputs():
    m = nn.Linear(3, 2)
    proto = export_and_run(m, (torch.randn(2, 3),), keep_initializers_as_inputs=True)
    assert [i.name for i in proto.graph.input] == ["input_0", "weight", "bias"]
    assert {i.name for i in proto.graph.initializer} == {"weight", "bias"}


@pytest.mark.parametrize("rounding_mode", [None, "floor", "trunc"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_div_rounding_modes(rounding_mode, dtype):
    a = (torch.randn(4, 5) * 10).to(dtype)
    b = torch.tensor([3, -2, 4, -7, 5]).to(dtype)
    export_and_run(lambda a, b: torch.div(a, b, rounding_mode=rounding_mode), (a, b))
    export_and_run(lambda a: a.div(-3, rounding_mode=rounding_mode), (a,))


@pytest.mark.parametrize("beta", [1.0, 2.5])
def test_softplus(beta):
    export_and_run(lambda x: nn.functional.softplus(x, beta), (torch.randn(3, 4) * 3,))


def test_softmax_implicit_dim_and_one_argument_where():
    with pytest.warns(UserWarning):
        export_and_run(lambda x: nn.functional.softmax(x) + nn.functional.log_softmax(x[0]),
                       (torch.randn(2, 3, 4),))
    with pytest.raises(RuntimeError, match="'minitorch.where' with one argument"):
        torch.onnx.export(lambda x: torch.where(x > 0)[0], (torch.randn(4),), io.BytesIO())


def test_training_modes():
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    x = torch.randn(2, 3)
    with pytest.raises(RuntimeError, match="dropout in training mode"):
        torch.onnx.export(m, (x,), io.BytesIO(), training=torch.onnx.TrainingMode.PRESERVE)
    with pytest.raises(RuntimeError, match="dropout in training mode"):
        torch.onnx.export(m.eval(), (x,), io.BytesIO(), training=torch.onnx.TrainingMode.TRAINING)
    assert not m.training and not m[1].training
    m.eval()
    export_and_run(m, (x,), training=torch.onnx.TrainingMode.PRESERVE)
    m.train()
    export_and_run(m, (x,), training=torch.onnx.TrainingMode.EVAL)
    assert m.training and m[1].training


@pytest.mark.parametrize("case", ["group_norm", "instance_norm", "instance_norm_running",
                                  "rms_norm", "rms_norm_eps", "upsample", "index_select"])
def test_more_normalizations_and_gathers(case):
    torch.manual_seed(0)
    inorm = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
    inorm.running_mean.uniform_(-1, 1)
    m = {
        "group_norm": nn.Sequential(nn.Conv2d(3, 4, 1), nn.GroupNorm(2, 4)),
        "instance_norm": nn.Sequential(nn.Conv2d(3, 4, 1), nn.InstanceNorm2d(4, affine=True)),
        "instance_norm_running": nn.Sequential(nn.Conv2d(3, 4, 1), inorm),
        "rms_norm": nn.Sequential(nn.Conv2d(3, 4, 1), nn.RMSNorm([5, 5])),
        "rms_norm_eps": nn.Sequential(nn.Conv2d(3, 4, 1), nn.RMSNorm(5, eps=0.1)),
        "upsample": nn.Sequential(nn.Conv2d(3, 4, 1), nn.Upsample(scale_factor=2)),
        "index_select": lambda x: x.index_select(1, torch.tensor([2, 0])) * 2,
    }[case]
    export_and_run(m, (torch.randn(2, 3, 5, 5),), (torch.randn(4, 3, 5, 5),),
                   dynamic_axes={"input_0": [0]})


def test_addcmul_addcdiv():
    export_and_run(lambda x, y: torch.addcmul(x, x, y, value=0.5) + x.addcdiv(y, y.abs() + 1),
                   (torch.randn(3, 4), torch.randn(3, 4)))


def test_keyword_arguments_as_trailing_dict_or_kwargs():
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, bias=None, scale=1.0):
            return self.lin(x) * scale + (0 if bias is None else bias)
    m, x, b = M(), torch.randn(2, 3), torch.randn(3)
    for how in ({"args": (x, {"bias": b, "scale": 2.0})},
                {"args": (x,), "kwargs": {"bias": b, "scale": 2.0}}):
        f = io.BytesIO()
        torch.onnx.export(m, f=f, **how)
        sess = ort.InferenceSession(f.getvalue(), providers=["CPUExecutionProvider"])
        assert [i.name for i in sess.get_inputs()] == ["input_0", "input_1"]
        got = sess.run(None, {"input_0": x.numpy(), "input_1": b.numpy()})[0]
        np.testing.assert_allclose(got, m(x, bias=b, scale=2.0).detach().numpy(), rtol=1e-5)
    with pytest.raises(TypeError):
        torch.onnx.export(m, (x,), io.BytesIO(), no_such_option=True)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_with_key_padding_mask(batch_first):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=batch_first)
    m = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = torch.randn(2, 5, 8) if batch_first else torch.randn(5, 2, 8)
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    export_and_run(lambda x, pad: m(x, src_key_padding_mask=pad), (x, pad))
