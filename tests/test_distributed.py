"""minitorch.distributed, DistributedDataParallel and DistributedSampler on 2 and 3
ranks of this machine: each test launches tests/distributed_worker.py under
mpiexec (in its own process group, killed whole on a timeout) and reads what
every rank reported. Skips only when mpi4py or an MPI launcher is missing
(pip install ".[distributed]" brings both).
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "distributed_worker.py")
TIMEOUT = 120


def _mpiexec():
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install "
                        "\".[distributed]\")")
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.access(here, os.X_OK) else shutil.which("mpiexec")
    if found is None:
        pytest.skip("no MPI launcher (mpiexec) on PATH or beside the Python executable "
                    "(pip install \".[distributed]\" brings MPICH's)")
    return found


def launch(n, args, timeout=TIMEOUT):
    """Runs `mpiexec -n n python args...`; returns (returncode, stdout, stderr, seconds)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        env.pop(name, None)
    start = time.monotonic()
    proc = subprocess.Popen([_mpiexec(), "-n", str(n), sys.executable] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"mpiexec -n {n} {' '.join(args)} did not end in {timeout} s\n{out}\n{err}")
    return proc.returncode, out, err, time.monotonic() - start


def run_worker(n, mode, tmp_path):
    code, out, err, _ = launch(n, [WORKER, mode, str(tmp_path)])
    assert code == 0, f"exit {code}\n{out}\n{err}"
    results = []
    for rank in range(n):
        with open(tmp_path / f"rank{rank}.txt") as f:
            lines = [line.rstrip("\n").split(" ", 2) for line in f]
        results.append({parts[0]: parts[1:] for parts in lines})
    return results


def assert_all_ok(results):
    names = set(results[0])
    for rank, checks in enumerate(results):
        assert set(checks) == names, f"rank {rank} ran other checks"
        failed = {k: " ".join(v[1:]).replace(" | ", "\n") for k, v in checks.items()
                  if v[0] != "ok"}
        assert not failed, f"rank {rank}:\n" + "\n\n".join(f"{k}: {v}" for k, v in
                                                            failed.items())


@pytest.mark.parametrize("ranks", [2, 3])
def test_collectives_match_numpy(ranks, tmp_path):
    results = run_worker(ranks, "collectives", tmp_path)
    assert_all_ok(results)
    names = set(results[0])
    # every dtype of each collective ran (10 dtypes), and every reduction on both layouts
    for op in ("broadcast", "reduce", "all_gather", "all_gather_into_tensor",
               "reduce_scatter_tensor", "gather", "scatter", "send_recv", "all_reduce-async"):
        assert sum(n.startswith(op + "-") for n in names) == 10, op
    assert sum(n.startswith("all_reduce-") and n.endswith("-strided") for n in names) == 67
    assert {"all_reduce-narrow-floats-widen", "new_group", "errors", "barrier",
            "distributed_sampler", "all_reduce-1M-float32-avg"} <= names


@pytest.mark.parametrize("ranks", [2, 3])
def test_ddp_matches_single_process(ranks, tmp_path):
    results = run_worker(ranks, "ddp", tmp_path)
    assert_all_ok(results)
    assert set(results[0]) == {
        "ddp-broadcast-at-start", "ddp-matches-single-process-one-bucket",
        "ddp-matches-single-process-many-buckets", "ddp-many-buckets-planned", "ddp-no_sync",
        "ddp-find_unused_parameters", "ddp-find_unused_parameters-output-not-in-loss",
        "ddp-broadcast-buffers", "ddp-unfinished-reduction-error"}


def test_a_rank_that_raises_ends_the_job(tmp_path):
    code, out, err, seconds = launch(3, [WORKER, "raise", str(tmp_path)], timeout=60)
    assert code != 0
    # the failing rank's traceback reaches the user; its last line may be cut
    # short when the launcher ends the job while the rank still writes it
    assert 'raise ValueError("rank failed on purpose")' in err
    assert seconds < 60


def test_wait_times_out(tmp_path):
    """Rank 0 waits 2 s (the group's timeout) for an all_reduce rank 1 joins after 4 s,
    then 0.5 s (barrier's own timeout) for a barrier rank 1 joins 2 s later."""
    code, out, err, _ = launch(2, [WORKER, "timeout", str(tmp_path)])
    assert code == 0, f"exit {code}\n{out}\n{err}"
    lines = (tmp_path / "rank0.txt").read_text().splitlines()
    assert lines[0].startswith("timeout ok "), lines
    assert "Timed out waiting 2000ms for allreduce to complete" in lines[0]
    assert lines[1].startswith("barrier-timeout ok "), lines
    assert "Timed out waiting 500ms for barrier to complete" in lines[1]


def test_train_digits_ddp_quick(tmp_path):
    script = os.path.join(ROOT, "examples", "train_digits_ddp.py")
    code, out, err, _ = launch(2, [script, "--quick", "--out-dir", str(tmp_path)])
    assert code == 0, f"{out}\n{err}"
    assert out.count("MLP epoch") == 2 and out.count("CNN epoch") == 2  # rank 0 alone prints
    for name in ("MLP", "CNN"):
        line = next(s for s in out.splitlines() if s.startswith(f"{name} test accuracy: "))
        assert float(line.split(": ")[1].split("%")[0]) > 50.0
        assert f"{name} parameters identical on all 2 ranks: True" in out
        assert (tmp_path / f"digits_ddp_{name.lower()}.pt").stat().st_size > 0
