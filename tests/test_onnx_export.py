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
    training = model.training
    model.eval()  # export traces the model in eval mode
    with torch.no_grad():
        want = model(*run_args) if isinstance(run_args, tuple) else model(run_args)
    model.train(training)
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
