"""The "gloo" backend, started the torchrun way: each test launches
tests/distributed_gloo_worker.py or examples/ddp_gloo.py with
`python -m minitorch.distributed.run` (its own process group, killed whole on
a timeout) and checks what every rank reported against one rank's run and,
for SyncBatchNorm, against torch's BatchNorm on the whole batch in one process.
"""
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from test_distributed import ROOT, _mpiexec, assert_all_ok

WORKER = os.path.join(ROOT, "tests", "distributed_gloo_worker.py")
EXAMPLE = os.path.join(ROOT, "examples", "ddp_gloo.py")
TIMEOUT = 120
LAUNCHER_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                 "MASTER_PORT", "TORCHELASTIC_RUN_ID")


def launch(launcher_args, timeout=TIMEOUT, module="minitorch.distributed.run"):
    """Runs `python -m <module> launcher_args...`; returns (returncode, stdout, stderr)."""
    _mpiexec()
    path = [ROOT, os.path.join(ROOT, "tests")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        path + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    for name in LAUNCHER_VARS:
        env.pop(name, None)
    proc = subprocess.Popen([sys.executable, "-m", module] + list(launcher_args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{module} {' '.join(launcher_args)} did not end in {timeout} s\n{out}\n{err}")
    return proc.returncode, out, err


def worker_results(n, out_dir, launcher_args, mode="features", init="env", program=WORKER,
                   **kwargs):
    code, out, err = launch(launcher_args + [program, mode, str(out_dir), init], **kwargs)
    assert code == 0, f"exit {code}\n{out}\n{err}"
    results = []
    for rank in range(n):
        with open(out_dir / f"rank{rank}.txt") as f:
            lines = [line.rstrip("\n").split(" ", 2) for line in f]
        results.append({parts[0]: parts[1:] for parts in lines})
    assert_all_ok(results)
    return results


@pytest.fixture(scope="module")
def one_rank(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("one_rank")
    worker_results(1, out_dir, ["--nproc_per_node", "1"])
    return dict(np.load(out_dir / "syncbn.npz"))


FEATURES = {"init-env", "broadcast_object_list", "all_gather_object", "gather_object",
            "scatter_object_list", "object-collectives-subgroup", "all_to_all_single-even", "all_to_all_single-split-sizes",
            "all_to_all", "monitored_barrier", "monitored_barrier-late-rank",
            "monitored_barrier-late-ranks-wait_all_ranks", "sync_batchnorm-3d",
            "sync_batchnorm-4d", "sync_batchnorm-2d", "sync_batchnorm-errors", "convert_sync_batchnorm",
            "ddp-sync_batchnorm", "finished"}


def torch_batchnorm(kind):
    """torch's BatchNorm on the whole batch in one process: what every SyncBatchNorm
    run must reproduce."""
    torch = pytest.importorskip("torch")
    from distributed_gloo_worker import C, LAYERS, syncbn_data
    x, g, w, b = syncbn_data(kind)
    layer = (torch.nn.BatchNorm2d if x.ndim == 4 else torch.nn.BatchNorm1d)(C, **LAYERS[kind][1])
    if x.dtype == np.float64:
        layer.double()
    if layer.weight is not None:
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(w))
            layer.bias.copy_(torch.tensor(b))
    want = {}
    for step in range(2):
        xt = torch.tensor(x * (step + 1), requires_grad=True)
        out = layer(xt)
        (out * torch.tensor(g)).sum().backward()
        want[f"out{step}"], want[f"xgrad{step}"] = out.detach().numpy(), xt.grad.numpy()
    if layer.weight is not None:
        want["weightgrad"] = layer.weight.grad.numpy()
        want["biasgrad"] = layer.bias.grad.numpy()
    want["running_mean"] = layer.running_mean.numpy()
    want["running_var"] = layer.running_var.numpy()
    layer.eval()
    want["eval"] = layer(torch.tensor(x)).detach().numpy()
    return want


@pytest.mark.parametrize("ranks", [2, 3])
def test_features_match_one_rank_and_torch(ranks, one_rank, tmp_path):
    """Object collectives, all_to_all(_single), monitored_barrier (and its errors
    naming the late ranks) and SyncBatchNorm on uneven shares (with 3 ranks the
    last holds no rows)."""
    results = worker_results(ranks, tmp_path, ["--nproc-per-node", str(ranks), "--standalone"])
    assert set(results[0]) == FEATURES
    got = dict(np.load(tmp_path / "syncbn.npz"))
    assert set(got) == set(one_rank)
    for name in got:
        np.testing.assert_allclose(got[name], one_rank[name], rtol=1e-5, atol=1e-5,
                                   err_msg=name)
    from distributed_gloo_worker import LAYERS
    for kind in LAYERS:
        assert {n for n in got if n.startswith(kind + "-")} == \
            {f"{kind}-{n}" for n in torch_batchnorm(kind)}
        for name, want in torch_batchnorm(kind).items():
            np.testing.assert_allclose(got[f"{kind}-{name}"], want, rtol=1e-5, atol=1e-5,
                                       err_msg=f"{kind}-{name}")


@pytest.mark.parametrize("init, launcher_args, module", [
    ("tcp", ["--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master-port", "0"],
     "minitorch.distributed.run"),
    ("cpu", ["--nnodes", "1:1", "--node-rank", "0", "--rdzv-backend", "c10d",
             "--rdzv_endpoint", "localhost:0", "--nproc_per_node", "2"],
     "minitorch.distributed.run"),
    ("none", ["--standalone", "--nproc_per_node", "2", "-m"], "minitorch.distributed.run"),
    ("env", ["--use-env", "--nproc_per_node", "2"], "minitorch.distributed.launch"),
])
def test_init_methods_and_launcher_flags(init, launcher_args, module, tmp_path):
    """env:// (default), tcp:// with rank and world_size, "cpu:gloo" and backend None
    join the same job; the ranks see torchrun's variables and one run id."""
    program = "distributed_gloo_worker" if launcher_args[-1] == "-m" else WORKER
    results = worker_results(2, tmp_path, launcher_args, mode="init", init=init,
                             program=program, module=module)
    assert set(results[0]) == {f"init-{init}", "finished"}


def test_a_failing_rank_fails_the_launcher(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import os, sys\nsys.exit(3 if os.environ['RANK'] == '1' else 0)\n")
    code, out, err = launch(["--nproc_per_node", "2", str(script)])
    assert code != 0


def test_torch_ddp_script_matches_one_rank(tmp_path):
    """examples/ddp_gloo.py (gloo over env://, DistributedSampler, DDP,
    all_gather_object) on 2 ranks saves the parameters 1 rank saves."""
    import minitorch
    saved, outs = {}, {}
    for n in (1, 2):
        path = tmp_path / f"model{n}.pt"
        code, out, err = launch(["--nproc_per_node", str(n), EXAMPLE, "--epochs", "2",
                                 "--save", str(path)])
        assert code == 0, f"{out}\n{err}"
        saved[n], outs[n] = minitorch.load(str(path)), out
    assert outs[2].count("over 2 rank(s)") == 2  # rank 0 alone prints
    assert set(saved[1]) == set(saved[2]) and "6.bias" in saved[1]
    for name, value in saved[1].items():
        np.testing.assert_allclose(saved[2][name].double().numpy(), value.double().numpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=name)
    losses = [[line.split()[3] for line in outs[n].splitlines()] for n in (1, 2)]
    assert losses[0] == losses[1]
