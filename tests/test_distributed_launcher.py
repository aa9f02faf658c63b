"""python -m minitorch.distributed.run (torchrun's flags) and .launch: the mpiexec
command line and each rank's environment they build, checked without starting
a job (tests/test_distributed_gloo.py starts real ones)."""
import argparse

import pytest

from minitorch.distributed import launch, run


@pytest.fixture(autouse=True)
def any_mpiexec(monkeypatch):
    """The command lines do not depend on where (or whether) mpiexec is installed."""
    monkeypatch.setattr(run, "mpiexec", lambda: "mpiexec")


def test_a_missing_mpiexec_names_the_extra(monkeypatch):
    monkeypatch.undo()
    monkeypatch.setattr(run.os, "access", lambda path, mode: False)
    monkeypatch.setattr(run.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match=r'needs an MPI launcher \(mpiexec\): pip install '
                                           r'"minitorch-c\[distributed\]"'):
        run.mpiexec()


def segments(cmd):
    """mpiexec's MPMD segments: (environment, program and arguments) per rank."""
    parts, current = [], []
    assert cmd[0] == "mpiexec"
    for word in cmd[1:] + [":"]:
        if word == ":":
            parts.append(current)
            current = []
        else:
            current.append(word)
    out = []
    for part in parts:
        assert part[:2] == ["-n", "1"]
        env, i = {}, 2
        while part[i] == "-env":
            env[part[i + 1]] = part[i + 2]
            i += 3
        out.append((env, part[i:]))
    return out


def build(argv, extra=()):
    args = run.parse_args(argv)
    return segments(run.command(args, run.config_from_args(args), extra))


@pytest.mark.parametrize("flag", ["--nproc_per_node", "--nproc-per-node"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_rank_gets_torchruns_environment(flag, n):
    ranks = build([flag, str(n), "--master_addr", "10.0.0.1", "--master-port", "1234",
                   "train.py", "--lr", "0.1"])
    assert len(ranks) == n
    for rank, (env, program) in enumerate(ranks):
        assert program[1:] == ["-u", "train.py", "--lr", "0.1"]
        assert {k: env[k] for k in ("RANK", "LOCAL_RANK", "ROLE_RANK")} == \
            dict.fromkeys(("RANK", "LOCAL_RANK", "ROLE_RANK"), str(rank))
        assert env["WORLD_SIZE"] == env["LOCAL_WORLD_SIZE"] == env["ROLE_WORLD_SIZE"] == str(n)
        assert (env["GROUP_RANK"], env["GROUP_WORLD_SIZE"]) == ("0", "1")
        assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("10.0.0.1", "1234")
        assert env["TORCHELASTIC_RUN_ID"] == ranks[0][0]["TORCHELASTIC_RUN_ID"]
        assert env["ROLE_NAME"] == "default" and env["TORCHELASTIC_RESTART_COUNT"] == "0"


def test_defaults_and_endpoints():
    env, _ = build(["train.py"])[0]
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["WORLD_SIZE"]) == \
        ("127.0.0.1", "29500", "1")
    env, _ = build(["--rdzv_backend", "c10d", "--rdzv-endpoint", "host1:2345", "--rdzv_id",
                    "job7", "train.py"])[0]
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["TORCHELASTIC_RUN_ID"]) == \
        ("host1", "2345", "job7")
    standalone = [build(["--standalone", "--nproc_per_node", "2", "t.py"]) for _ in range(2)]
    for ranks in standalone:
        assert ranks[0][0]["MASTER_ADDR"] == "localhost"
        assert ranks[0][0]["MASTER_PORT"] == ranks[1][0]["MASTER_PORT"] != "29500"
    assert standalone[0][0][0]["TORCHELASTIC_RUN_ID"] != standalone[1][0][0]["TORCHELASTIC_RUN_ID"]
    for nnodes in ("1", "1:1"):
        assert len(build(["--nnodes", nnodes, "--node_rank", "0", "--nproc_per_node", "2",
                          "--max-restarts", "0", "--monitor-interval", "1", "t.py"])) == 2
    assert len(build(["--nproc_per_node", "cpu", "t.py"])) >= 1


@pytest.mark.parametrize("argv, program", [
    (["-m", "pkg.train", "--x"], ["-u", "-m", "pkg.train", "--x"]),
    (["--module", "pkg.train"], ["-u", "-m", "pkg.train"]),
    (["--no_python", "./train.sh", "a"], ["./train.sh", "a"]),
    (["--no-python", "echo", "-m", "b"], ["echo", "-m", "b"]),
])
def test_module_and_no_python(argv, program):
    _, got = build(argv)[0]
    assert (got[1:] if got[0] != program[0] else got) == program


@pytest.mark.parametrize("argv, message", [
    (["--nnodes", "2", "t.py"], "starts the processes of one node (got --nnodes 2"),
    (["--nnodes", "1:4", "t.py"], "starts the processes of one node"),
    (["--node_rank", "1", "t.py"], "--node_rank 1"),
    (["--nnodes", "x", "t.py"], "Invalid --nnodes value: x"),
    (["--nproc_per_node", "0", "t.py"], "Unsupported nproc_per_node value: 0"),
    (["--no_python", "-m", "t"], "Don't use both the '--no-python' flag and the '--module' "
                                 "flag at the same time."),
])
def test_bad_flags(argv, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("-", r"\-")):
        run.config_from_args(run.parse_args(argv))


def test_bad_flags_end_the_launcher_with_a_message(capsys):
    with pytest.raises(SystemExit) as e:
        run.main(["--nnodes", "3", "t.py"])
    assert e.value.code == 2
    assert "error: minitorch.distributed.run starts the processes of one node" in \
        capsys.readouterr().err


def test_launch_passes_local_rank_unless_use_env():
    args = launch.parse_args(["--nproc_per_node", "2", "t.py", "a"])
    assert not args.use_env
    ranks = segments(run.command(args, run.config_from_args(args),
                                 launch.local_rank_args(args.use_env)))
    assert [p[2:] for _, p in ranks] == [["t.py", "--local-rank=0", "a"],
                                         ["t.py", "--local-rank=1", "a"]]
    for flag in ("--use-env", "--use_env"):
        args = launch.parse_args([flag, "--nproc_per_node", "2", "t.py", "a"])
        ranks = segments(run.command(args, run.config_from_args(args),
                                     launch.local_rank_args(args.use_env)))
        assert [p[2:] for _, p in ranks] == [["t.py", "a"]] * 2


def test_parser_matches_torchruns_flags():
    torchrun = pytest.importorskip("torch.distributed.run")
    ours = {s for a in run.get_args_parser()._actions for s in a.option_strings}
    theirs = {s for a in torchrun.get_args_parser()._actions for s in a.option_strings}
    common = {"--nproc_per_node", "--nproc-per-node", "--nnodes", "--node_rank", "--node-rank",
              "--master_addr", "--master-addr", "--master_port", "--master-port",
              "--standalone", "--rdzv_backend", "--rdzv-backend", "--rdzv_endpoint",
              "--rdzv-endpoint", "--rdzv_id", "--rdzv-id", "--no_python", "--no-python", "-m",
              "--module", "--max_restarts", "--max-restarts", "--run_path", "--run-path"}
    assert common <= ours & theirs
    assert isinstance(run.parse_args(["t.py"]), argparse.Namespace)
