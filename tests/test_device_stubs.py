"""minitorch.cuda and minitorch.backends answer as a CPU-only torch build
does, and CUDA/MPS devices fail where torch's do."""
import pytest

import minitorch as mt
from torch_errors import same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name,args", [
    ("is_available", ()), ("device_count", ()), ("is_initialized", ()), ("manual_seed", (1,)),
    ("manual_seed_all", (1,)), ("seed", ()), ("seed_all", ()), ("is_bf16_supported", ()),
    ("empty_cache", ()), ("memory_allocated", ()), ("max_memory_allocated", ())])
def test_cuda_queries_match_a_cpu_build(name, args):
    assert getattr(mt.cuda, name)(*args) == getattr(torch.cuda, name)(*args)


@pytest.mark.parametrize("name", ["current_device", "get_device_name", "synchronize"])
def test_cuda_calls_needing_a_device_fail(name):
    same_error(getattr(mt.cuda, name), getattr(torch.cuda, name))


def test_the_device_idiom_picks_the_cpu():
    device = "cuda" if mt.cuda.is_available() else "cpu"
    assert mt.zeros(2).to(device).device == mt.device("cpu")
    mt.cuda.manual_seed_all(0)


def test_backends_flags():
    assert mt.backends.cudnn.is_available() == torch.backends.cudnn.is_available()
    assert mt.backends.cudnn.version() == torch.backends.cudnn.version()
    assert mt.backends.mps.is_available() == torch.backends.mps.is_available()
    assert mt.backends.mps.is_built() == torch.backends.mps.is_built()
    assert mt.backends.cuda.is_built() == torch.backends.cuda.is_built()
    for attr in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(mt.backends.cudnn, attr) == getattr(torch.backends.cudnn, attr), attr
    assert mt.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
    old = mt.backends.cudnn.benchmark
    try:
        mt.backends.cudnn.benchmark = True
        mt.backends.cuda.matmul.allow_tf32 = True
        assert mt.backends.cudnn.benchmark and mt.backends.cuda.matmul.allow_tf32
    finally:
        mt.backends.cudnn.benchmark = old
        mt.backends.cuda.matmul.allow_tf32 = False


def test_device_names():
    for s in ("cuda", "cuda:1", "mps", "meta", "cpu:0"):
        assert repr(mt.device(s)) == repr(torch.device(s))
        assert str(mt.device(s)) == str(torch.device(s))
    assert mt.device("cuda", 1) == mt.device("cuda:1")
    same_error(lambda: mt.device("foo"), lambda: torch.device("foo"))
    same_error(lambda: mt.device("cuda:x"), lambda: torch.device("cuda:x"))


@pytest.mark.parametrize("dev", ["cuda", "cuda:0", "mps"])
def test_tensors_on_other_devices_fail_as_torch(dev):
    same_error(lambda: mt.zeros(2).to(dev), lambda: torch.zeros(2).to(dev))
    same_error(lambda: mt.zeros(2).to(mt.device(dev)), lambda: torch.zeros(2).to(torch.device(dev)))
    if dev != "mps":  # torch's factory message for mps is its dispatcher's
        same_error(lambda: mt.zeros(2, device=dev), lambda: torch.zeros(2, device=dev))
        same_error(lambda: mt.tensor([1.0], device=dev), lambda: torch.tensor([1.0], device=dev))
    same_error(lambda: mt.zeros(2).cuda(), lambda: torch.zeros(2).cuda())
