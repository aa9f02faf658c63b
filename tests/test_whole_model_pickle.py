"""Whole-model pickles cross between torch and minitorch: torch.save(model)
loads in minitorch with weights_only=False as minitorch's classes and runs
to torch's outputs, and minitorch.save(model) loads in torch as torch's
classes; functions pickle by reference under torch's names."""
import inspect
import io
import pickle

import numpy as np
import pytest

import minitorch as mt
from minitorch.serialization import torch_paths

torch = pytest.importorskip("torch")


def _models(lib):
    nn = lib.nn
    return {
        "mlp": nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)),
        "cnn_batchnorm": nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(4 * 4 * 4, 5)),
        "lstm": nn.LSTM(6, 8, num_layers=2, batch_first=True),
        "gru": nn.GRU(6, 8, bidirectional=True),
        "transformer_encoder": nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu"), 2,
            enable_nested_tensor=False),
        "encoder_layer": nn.TransformerEncoderLayer(16, 2, 32),
        "transformer_decoder": nn.TransformerDecoder(
            nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True), 2),
        "embedding_bag": nn.Sequential(nn.EmbeddingBag(20, 6, mode="mean"), nn.Linear(6, 2)),
        "conv1d_audio": nn.Sequential(
            nn.Conv1d(1, 4, 9, stride=2), nn.BatchNorm1d(4), nn.GELU(), nn.Conv1d(4, 8, 5),
            nn.AdaptiveAvgPool1d(1), nn.Flatten()),
        "nested": nn.ModuleDict({
            "a": nn.ModuleList([nn.Linear(4, 4), nn.Tanh()]),
            "b": nn.Sequential(nn.Linear(4, 2), nn.Sigmoid())}),
        "layernorm_mlp": nn.Sequential(
            nn.LayerNorm(8), nn.Linear(8, 8), nn.GELU(), nn.Dropout(0.1), nn.Linear(8, 3)),
    }


def _inputs(name, lib):
    g = np.random.default_rng(0)

    def f(*shape):
        return lib.tensor(g.standard_normal(shape).astype(np.float32))

    return {
        "mlp": (f(3, 8),), "cnn_batchnorm": (f(2, 3, 8, 8),), "lstm": (f(2, 5, 6),),
        "gru": (f(5, 2, 6),), "transformer_encoder": (f(5, 2, 16),),
        "encoder_layer": (f(5, 2, 16),), "transformer_decoder": (f(2, 5, 16), f(2, 4, 16)),
        "embedding_bag": (lib.tensor([[1, 2, 4, 5], [4, 3, 2, 9]]),),
        "conv1d_audio": (f(2, 1, 50),), "nested": (f(3, 4),), "layernorm_mlp": (f(3, 8),),
    }[name]


def _run(name, model, lib):
    model.eval()
    x = _inputs(name, lib)
    if name == "nested":
        return model["b"](model["a"][1](model["a"][0](*x)))
    out = model(*x)
    return out[0] if isinstance(out, tuple) else out


def _module_types(model):
    return [type(m) for m in model.modules()]


def _trained(model, lib):
    # running statistics and weights that differ from a fresh model's
    for m in model.modules():
        if "BatchNorm" in type(m).__name__:
            m.train()
            with lib.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    return model


NAMES = list(_models(mt))


@pytest.mark.parametrize("name", NAMES)
def test_torch_model_loads_in_minitorch(name):
    torch.manual_seed(0)
    model = _trained(_models(torch)[name], torch)
    buf = io.BytesIO()
    torch.save(model, buf)
    buf.seek(0)
    loaded = mt.load(buf, weights_only=False)
    assert [t.__module__.split(".")[0] for t in _module_types(loaded)] == \
        ["minitorch"] * len(_module_types(model))
    assert [t.__name__ for t in _module_types(loaded)] == \
        [t.__name__ for t in _module_types(model)]
    want = _run(name, model, torch)
    got = _run(name, loaded, mt)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_minitorch_model_loads_in_torch(name):
    mt.manual_seed(0)
    model = _trained(_models(mt)[name], mt)
    buf = io.BytesIO()
    mt.save(model, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    assert [t.__module__ for t in _module_types(loaded)] == \
        [torch_paths.torch_name(t)[0] for t in _module_types(model)]
    assert all(t.__module__.startswith("torch.") for t in _module_types(loaded))
    want = _run(name, model, mt)
    got = _run(name, loaded, torch)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    # and back: minitorch reads torch's re-save of it
    buf = io.BytesIO()
    torch.save(loaded, buf)
    buf.seek(0)
    again = mt.load(buf, weights_only=False)
    np.testing.assert_allclose(_run(name, again, mt).detach().numpy(),
                               want.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_model_pickles_are_refused_by_weights_only_loads():
    buf = io.BytesIO()
    torch.save(torch.nn.Sequential(torch.nn.Linear(2, 2)), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        mt.load(buf)


def _nn_classes():
    return sorted(torch_paths._module_classes(), key=lambda c: (c.__module__, c.__qualname__))


def test_every_nn_class_has_torchs_module_path():
    checked = 0
    for cls in _nn_classes():
        theirs = getattr(torch.nn, cls.__name__, None)
        if theirs is None or not inspect.isclass(theirs):
            continue
        assert torch_paths.torch_name(cls) == (theirs.__module__, theirs.__qualname__), cls
        checked += 1
    assert checked > 140


def test_every_nn_class_maps_back_to_itself():
    for cls in _nn_classes():
        if cls.__name__.startswith("_") and "Base" not in cls.__name__:
            continue
        path = torch_paths.torch_name(cls)
        assert torch_paths.from_torch(*path) is cls, (cls, path)


def test_every_public_nn_class_is_mapped():
    for name, cls in vars(mt.nn).items():
        if inspect.isclass(cls) and issubclass(cls, mt.nn.Module):
            module, qualname = torch_paths.torch_name(cls)
            assert module.startswith("torch.nn.") and qualname == cls.__qualname__, cls


FUNCTIONS = ["relu", "gelu", "silu", "softmax", "tanh", "sigmoid", "leaky_relu", "elu",
             "softplus", "logsigmoid", "glu", "hardtanh", "layer_norm", "dropout"]


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_functions_pickle_by_reference(name, protocol):
    fn = getattr(mt.nn.functional, name)
    assert pickle.loads(pickle.dumps(fn, protocol)) is fn


@pytest.mark.parametrize("fn", [mt.relu, mt.add, mt.Tensor.add, mt.Tensor.sum, mt.matmul])
def test_tensor_functions_pickle_by_reference(fn):
    assert pickle.loads(pickle.dumps(fn, 2)) is fn


@pytest.mark.parametrize("name", FUNCTIONS)
def test_torch_functions_load_as_minitorchs(name):
    buf = io.BytesIO()
    torch.save({"f": getattr(torch.nn.functional, name)}, buf)
    buf.seek(0)
    assert mt.load(buf, weights_only=False)["f"] is getattr(mt.nn.functional, name)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_minitorch_functions_load_as_torchs(name):
    buf = io.BytesIO()
    mt.save([getattr(mt.nn.functional, name)], buf)
    buf.seek(0)
    assert torch.load(buf, weights_only=False)[0] is getattr(torch.nn.functional, name)


def test_torch_builtins_of_the_tensor_namespaces_load():
    buf = io.BytesIO()
    torch.save([torch.relu, torch.tanh, torch.Tensor.add, torch.matmul], buf)
    buf.seek(0)
    got = mt.load(buf, weights_only=False)
    assert got[0] is mt.relu and got[1] is mt.tanh and got[3] is mt.matmul
    assert got[2] is mt.Tensor.add or got[2] is mt._C.TensorBase.add
    buf = io.BytesIO()
    mt.save([mt.relu, mt.Tensor.add], buf)
    buf.seek(0)
    assert torch.load(buf, weights_only=False) == [torch.relu, torch.Tensor.add]


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_minitorch_save_transformer_encoder_layer(activation, tmp_path):
    layer = mt.nn.TransformerEncoderLayer(16, 2, 32, activation=activation)
    mt.save(layer, tmp_path / "layer.pt")
    again = mt.load(tmp_path / "layer.pt", weights_only=False)
    assert again.activation is getattr(mt.nn.functional, activation)
    theirs = torch.load(tmp_path / "layer.pt", weights_only=False)
    assert theirs.activation is getattr(torch.nn.functional, activation)
    assert type(theirs) is torch.nn.TransformerEncoderLayer
    # the plain pickle of a module holding a C function works too
    assert pickle.loads(pickle.dumps(layer)).activation is layer.activation


class NoSuchLayer(torch.nn.Module):
    pass


def test_a_torch_class_minitorch_lacks_is_named(monkeypatch):
    monkeypatch.setattr(NoSuchLayer, "__module__", "torch.nn.modules.linear")
    monkeypatch.setattr(torch.nn.modules.linear, "NoSuchLayer", NoSuchLayer, raising=False)
    buf = io.BytesIO()
    torch.save(NoSuchLayer(), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="torch.nn.modules.linear.NoSuchLayer has no "
                                           "minitorch counterpart"):
        mt.load(buf, weights_only=False)


@pytest.mark.parametrize("saver", ["torch", "minitorch"])
def test_safe_globals_name_minitorch_classes_for_torch_names(saver):
    buf = io.BytesIO()
    if saver == "torch":
        torch.save(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()), buf)
    else:
        mt.save(mt.nn.Sequential(mt.nn.Linear(2, 3), mt.nn.ReLU()), buf)
    allowed = [mt.nn.Sequential, mt.nn.Linear, mt.nn.ReLU, set]
    buf.seek(0)
    assert mt.serialization.get_unsafe_globals_in_checkpoint(buf) == [
        "torch.nn.modules.container.Sequential", "torch.nn.modules.linear.Linear",
        "torch.nn.modules.activation.ReLU"]
    buf.seek(0)
    with mt.serialization.safe_globals(allowed):
        assert mt.serialization.get_unsafe_globals_in_checkpoint(buf) == []
        buf.seek(0)
        model = mt.load(buf)
    assert [type(m) for m in model] == [mt.nn.Linear, mt.nn.ReLU]
    assert tuple(model(mt.ones(4, 2)).shape) == (4, 3)
