"""minitorch.distributed's API where no MPI job is needed: signatures, ReduceOp,
errors before init_process_group, DistributedSampler against torch's, and
that importing minitorch starts no MPI runtime."""
import inspect
import os
import subprocess
import sys

import pytest

import minitorch
import minitorch.distributed as dist
from minitorch.nn.parallel import DistributedDataParallel
from minitorch.utils.data.distributed import DistributedSampler

FUNCTIONS = ["init_process_group", "destroy_process_group", "new_group", "get_rank",
             "get_world_size", "barrier", "broadcast", "all_reduce", "reduce", "all_gather",
             "all_gather_into_tensor", "reduce_scatter_tensor", "gather", "scatter", "send",
             "recv", "isend", "irecv", "is_initialized", "is_available", "is_mpi_available",
             "get_backend", "all_to_all", "all_to_all_single", "broadcast_object_list",
             "all_gather_object", "gather_object", "scatter_object_list", "monitored_barrier",
             "is_gloo_available", "is_nccl_available", "is_torchelastic_launched",
             "get_node_local_rank"]
NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                   "init_process_group.")


def _params(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()
            if not p.name.startswith("_")]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signature_matches_torch(name):
    tdist = pytest.importorskip("torch.distributed")
    ours, theirs = _params(getattr(dist, name)), _params(getattr(tdist, name))
    assert [n for n, _ in ours] == [n for n, _ in theirs]
    for (n, a), (_, b) in zip(ours, theirs):
        if n != "op":
            assert a == b, n


def test_ddp_and_sampler_signatures_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    ours = _params(DistributedDataParallel.__init__)
    theirs = _params(torch.nn.parallel.DistributedDataParallel.__init__)
    assert [n for n, _ in ours] == [n for n, _ in theirs][:len(ours)]
    assert _params(DistributedSampler.__init__) == _params(TorchSampler.__init__)


def test_reduce_op_matches_torch():
    torch = pytest.importorskip("torch")
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(torch.distributed.ReduceOp, name)
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
        assert int(ours) == int(theirs)


@pytest.mark.parametrize("call", [
    lambda: dist.all_reduce(minitorch.ones(2)),
    lambda: dist.broadcast(minitorch.ones(2), 0),
    lambda: dist.barrier(),
    lambda: dist.get_rank(),
    lambda: dist.get_world_size(),
    lambda: dist.new_group([0]),
    lambda: dist.send(minitorch.ones(2), 1),
    lambda: dist.destroy_process_group(),
    lambda: DistributedSampler(range(4)),
    lambda: DistributedDataParallel(minitorch.nn.Linear(2, 2)),
    lambda: dist.broadcast_object_list([1]),
    lambda: dist.all_gather_object([None], 1),
    lambda: dist.gather_object(1),
    lambda: dist.scatter_object_list([None], [1]),
    lambda: dist.all_to_all_single(minitorch.ones(2), minitorch.ones(2)),
    lambda: dist.all_to_all([minitorch.ones(2)], [minitorch.ones(2)]),
    lambda: dist.monitored_barrier(),
    lambda: dist.get_backend(),
])
def test_calls_before_init_raise_torchs_error(call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == NOT_INITIALIZED


def test_syncbn_signature_matches_torch():
    torch = pytest.importorskip("torch")
    assert _params(minitorch.nn.SyncBatchNorm.__init__) == \
        _params(torch.nn.SyncBatchNorm.__init__)


def test_backend_names_as_torch():
    tdist = pytest.importorskip("torch.distributed")
    for name in ("gloo", "GLOO", "mpi", "cpu:gloo", "nccl", "foo"):
        assert dist.Backend(name) == tdist.Backend(name)
    for name in ("UNDEFINED", "GLOO", "NCCL", "UCC", "MPI"):
        assert getattr(dist.Backend, name) == getattr(tdist.Backend, name)
    with pytest.raises(ValueError, match="^Backend constructor parameter must be string-ish$"):
        dist.Backend(3)
    assert dist.is_gloo_available() == dist.is_available() and not dist.is_nccl_available()


def test_bad_arguments_before_any_mpi():
    with pytest.raises(RuntimeError, match="^Distributed package doesn't have NCCL built in$"):
        dist.init_process_group("nccl")
    with pytest.raises(RuntimeError, match="^Distributed package doesn't have NCCL built in$"):
        dist.init_process_group("cpu:gloo,cuda:nccl")
    with pytest.raises(ValueError, match="^Unknown backend type foo$"):
        dist.init_process_group("foo")
    with pytest.raises(RuntimeError, match=r"^No rendezvous handler for xyz://$"):
        dist.init_process_group("gloo", init_method="xyz://a")
    for rank, world, missing in ((-1, -1, "rank"), (0, -1, "world size")):
        with pytest.raises(ValueError, match=f"^Error initializing torch.distributed using "
                                             f"tcp:// rendezvous: {missing} parameter missing$"):
            dist.init_process_group("gloo", init_method="tcp://h:1", rank=rank,
                                    world_size=world)
    with pytest.raises(ValueError, match="^Cannot specify both init_method and store.$"):
        dist.init_process_group("gloo", init_method="env://", store=object())
    with pytest.raises(ValueError, match="init_method 'tcp://h:1' is not supported"):
        dist.init_process_group("mpi", init_method="tcp://h:1")
    with pytest.raises(TypeError, match="datetime.timedelta"):
        dist.init_process_group("mpi", timeout=5)
    assert not dist.is_initialized()


ENV_VARS = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@pytest.mark.parametrize("missing", ENV_VARS[1:])
def test_env_rendezvous_errors_match_torch(missing, monkeypatch):
    """With RANK set the environment alone decides (no MPI starts); each variable
    torch's env:// needs is asked for, in torch's order and words."""
    tdist = pytest.importorskip("torch.distributed")
    for name in ENV_VARS:
        monkeypatch.setenv(name, {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "localhost",
                                  "MASTER_PORT": "1"}[name])
    monkeypatch.delenv(missing)
    with pytest.raises(ValueError) as ours:
        dist.init_process_group("gloo")
    with pytest.raises(ValueError) as theirs:
        tdist.init_process_group("gloo")
    assert str(ours.value) == str(theirs.value)
    assert not dist.is_initialized()


def test_env_rendezvous_without_a_launcher():
    """A lone process with no RANK: torch's error; `WORLD_SIZE=2` in a process MPI
    started alone: the error says how to launch."""
    pytest.importorskip("mpi4py", reason="mpi4py is not installed")
    code = ("import minitorch.distributed as d\n"
            "for b in ('gloo', None):\n"
            "    try:\n        d.init_process_group(b)\n"
            "    except ValueError as e:\n        print(e)\n")
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Error initializing torch.distributed using env:// "
                                       "rendezvous: environment variable RANK expected, but "
                                       "not set"] * 2
    env.update(RANK="0", WORLD_SIZE="2", MASTER_ADDR="localhost", MASTER_PORT="1")
    code = "import minitorch.distributed as d\nd.init_process_group('gloo')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode != 0
    assert ("RuntimeError: world size 2 but this process is alone in its MPI job; "
            "minitorch.distributed connects its processes through MPI: start them with "
            "`python -m minitorch.distributed.run --nproc_per_node 2 script.py`") in out.stderr


def test_sync_batchnorm_without_a_process_group_is_batchnorm():
    """Not initialized (or in eval mode), SyncBatchNorm is BatchNorm: values,
    gradients and running statistics."""
    torch = pytest.importorskip("torch")
    import numpy as np
    x = np.random.RandomState(0).randn(5, 3, 4).astype(np.float32)
    for training in (True, False):
        ours, theirs = minitorch.nn.SyncBatchNorm(3, momentum=None), torch.nn.BatchNorm1d(3)
        theirs.momentum = None
        ours.train(training)
        theirs.train(training)
        a = minitorch.tensor(x, requires_grad=True)
        b = torch.tensor(x, requires_grad=True)
        for _ in range(2):
            (ours(a) ** 2).sum().backward()
            (theirs(b) ** 2).sum().backward()
        np.testing.assert_allclose(ours(a).detach().numpy(), theirs(b).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(),
                                   rtol=1e-6)


def test_importing_minitorch_starts_no_mpi():
    code = "import sys, minitorch, minitorch.distributed; print('mpi4py.MPI' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("n", [0, 1, 7, 10, 11])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_without_shuffle_matches_torch(n, replicas, drop_last):
    pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) and ours.total_size == theirs.total_size


@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_shuffle_deals_one_permutation(drop_last):
    n, replicas = 23, 3
    parts = [list(DistributedSampler(range(n), replicas, r, seed=5, drop_last=drop_last))
             for r in range(replicas)]
    flat = [i for p in parts for i in p]
    assert all(len(p) == len(parts[0]) for p in parts)
    if drop_last:
        assert len(flat) == len(set(flat)) == n - n % replicas
    else:
        assert set(flat) == set(range(n)) and len(flat) == 24
    again = [list(DistributedSampler(range(n), replicas, r, seed=5, drop_last=drop_last))
             for r in range(replicas)]
    assert again == parts
    s = DistributedSampler(range(n), replicas, 0, seed=5, drop_last=drop_last)
    s.set_epoch(3)
    assert list(s) != parts[0]


def test_sampler_errors_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for rank in (-1, 3):
        with pytest.raises(ValueError) as ours:
            DistributedSampler(range(4), 3, rank)
        with pytest.raises(ValueError) as theirs:
            TorchSampler(range(4), 3, rank)
        assert str(ours.value) == str(theirs.value)
    del torch


def test_install_hints_name_the_distribution(monkeypatch):
    """The package on the index is minitorch-c: no message or page says
    `pip install "minitorch[...]"`, and a missing mpi4py names the right extra."""
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    wrong = re.compile(r"minitorch\[")
    for folder in ("minitorch", "examples", "docs"):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith((".py", ".md", ".pyi")):
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        assert not wrong.search(f.read()), os.path.join(dirpath, name)
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        assert not wrong.search(f.read())
    from minitorch.distributed import _mpi
    monkeypatch.setattr(_mpi, "_MPI", None)
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    with pytest.raises(RuntimeError, match=r'pip install "minitorch-c\[distributed\]"'):
        _mpi.mpi()


def test_get_node_local_rank_as_torch(monkeypatch):
    tdist = pytest.importorskip("torch.distributed")
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    assert dist.get_node_local_rank(fallback_rank=3) == 3
    with pytest.raises(RuntimeError) as ours:
        dist.get_node_local_rank()
    with pytest.raises(RuntimeError) as theirs:
        tdist.get_node_local_rank()
    assert str(ours.value) == str(theirs.value)
    monkeypatch.setenv("LOCAL_RANK", "2")
    assert dist.get_node_local_rank(fallback_rank=0) == 2


def test_elastic_record_as_torch():
    pytest.importorskip("torch")
    from torch.distributed.elastic.multiprocessing.errors import record as torch_record

    from minitorch.distributed.elastic.multiprocessing.errors import record
    assert _params(record) == _params(torch_record)

    def finishes(code):
        """Returns 5, or exits with `code`."""
        if code is not None:
            sys.exit(code)
        return 5

    def fails():
        raise KeyError("boom")
    for decorator in (record, torch_record):
        wrapped = decorator(finishes)
        assert wrapped.__name__ == "finishes" and wrapped.__doc__ == finishes.__doc__
        assert wrapped(None) == 5 and wrapped(0) is None
        with pytest.raises(SystemExit) as e:
            wrapped(4)
        assert e.value.code == 4
        with pytest.raises(KeyError, match="boom"):
            decorator(fails)()
