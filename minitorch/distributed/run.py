"""torchrun for minitorch: ``python -m minitorch.distributed.run``.

    python -m minitorch.distributed.run --nproc_per_node 2 train.py --lr 0.1

Takes torchrun's common flags and starts the ranks through ``mpiexec`` (which
connects them), giving each one the environment torchrun gives it: RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, MASTER_ADDR,
MASTER_PORT, ... . A script that calls ``init_process_group("gloo")`` with
env:// so runs unchanged. All ranks run on this machine: one node, as
``--standalone`` and ``--nnodes 1`` say (several nodes are one mpiexec job with
a host file, started by hand). The launcher exits with mpiexec's status.
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import uuid
from typing import List, Optional

__all__ = ["get_args_parser", "parse_args", "config_from_args", "main", "run"]


def _flag(parser, name: str, **kwargs) -> None:
    """A torchrun flag in both its spellings (--nproc-per-node and --nproc_per_node)."""
    dashed = "--" + name.replace("_", "-")
    underscored = "--" + name
    names = [dashed] if dashed == underscored else [dashed, underscored]
    parser.add_argument(*names, dest=name, **kwargs)


def get_args_parser() -> argparse.ArgumentParser:
    """torchrun's command line (the flags a single-node job uses; the elastic
    ones are accepted and only checked)."""
    parser = argparse.ArgumentParser(
        prog="python -m minitorch.distributed.run",
        description="Starts a data-parallel job of N processes on this machine through "
                    "mpiexec, with torchrun's environment variables.")
    _flag(parser, "nnodes", default="1:1", help="number of nodes, or MIN:MAX (must be 1)")
    _flag(parser, "nproc_per_node", default="1",
          help="processes to start: a number, or 'cpu'/'auto' for one per CPU")
    _flag(parser, "rdzv_backend", default="static")
    _flag(parser, "rdzv_endpoint", default="")
    _flag(parser, "rdzv_id", default="none")
    _flag(parser, "rdzv_conf", default="")
    _flag(parser, "standalone", action="store_true",
          help="a single-node job on a free local port")
    _flag(parser, "max_restarts", type=int, default=0)
    _flag(parser, "monitor_interval", type=float, default=0.1)
    _flag(parser, "start_method", default="spawn", choices=["spawn", "fork", "forkserver"])
    _flag(parser, "role", default="default")
    parser.add_argument("-m", "--module", dest="module", action="store_true",
                        help="run the script as a module: python -m")
    _flag(parser, "no_python", action="store_true",
          help="run the script as an executable, not through python")
    _flag(parser, "run_path", action="store_true")
    _flag(parser, "log_dir", default=None)
    _flag(parser, "redirects", default="0")
    _flag(parser, "tee", default="0")
    _flag(parser, "local_ranks_filter", default="")
    _flag(parser, "node_rank", type=int, default=0)
    _flag(parser, "master_addr", default="127.0.0.1")
    _flag(parser, "master_port", type=int, default=29500)
    _flag(parser, "local_addr", default=None)
    _flag(parser, "logs_specs", default=None)
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args: Optional[List[str]]) -> argparse.Namespace:
    return get_args_parser().parse_args(args)


def _nnodes(value: str) -> int:
    low, _, high = value.partition(":")
    try:
        low_n, high_n = int(low), int(high or low)
    except ValueError:
        raise ValueError(f"Invalid --nnodes value: {value}") from None
    if low_n <= 0 or high_n < low_n:
        raise ValueError(f"Invalid --nnodes value: {value}")
    return high_n


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"Unsupported nproc_per_node value: {value}") from None
    if n <= 0:
        raise ValueError(f"Unsupported nproc_per_node value: {value}")
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_from_args(args: argparse.Namespace):
    """(nproc, master_addr, master_port, run_id) of the job the flags describe."""
    if args.standalone:
        args.rdzv_backend, args.rdzv_endpoint, args.rdzv_id = "c10d", "localhost:0", \
            str(uuid.uuid4())
        args.nnodes = "1"
    if _nnodes(args.nnodes) != 1 or args.node_rank != 0:
        raise ValueError(
            f"minitorch.distributed.run starts the processes of one node (got --nnodes "
            f"{args.nnodes}, --node_rank {args.node_rank}); for several nodes start one "
            f"mpiexec job over all of them (mpiexec -hosts ... python script.py)")
    if args.no_python and args.module:
        raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at "
                         "the same time.")
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, text = args.rdzv_endpoint.rpartition(":")
        addr, port = (host, int(text)) if host else (args.rdzv_endpoint, port)
    if port == 0:
        port = _free_port()
    run_id = args.rdzv_id if args.rdzv_id != "none" else str(uuid.uuid4())
    return _nproc(args.nproc_per_node), addr, port, run_id


def mpiexec() -> str:
    """The MPI launcher: the one beside this Python (MPICH's wheel puts it there),
    else mpiexec on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.access(here, os.X_OK) else shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("minitorch.distributed.run needs an MPI launcher (mpiexec): "
                           "pip install \"minitorch-c[distributed]\"")
    return found


def rank_env(rank: int, nproc: int, addr: str, port: int, run_id: str, role: str,
             max_restarts: int) -> dict:
    """The variables torchrun sets for one worker of a single-node job."""
    return {"RANK": rank, "LOCAL_RANK": rank, "GROUP_RANK": 0, "ROLE_RANK": rank,
            "ROLE_NAME": role, "WORLD_SIZE": nproc, "LOCAL_WORLD_SIZE": nproc,
            "GROUP_WORLD_SIZE": 1, "ROLE_WORLD_SIZE": nproc, "MASTER_ADDR": addr,
            "MASTER_PORT": port, "TORCHELASTIC_RESTART_COUNT": 0,
            "TORCHELASTIC_MAX_RESTARTS": max_restarts, "TORCHELASTIC_RUN_ID": run_id,
            "TORCHELASTIC_USE_AGENT_STORE": "False"}


def command(args: argparse.Namespace, config, extra_args=()) -> List[str]:
    """mpiexec's command line: one MPMD segment per rank, each with its variables
    (`extra_args`, a list or a function of the rank, go before the script's)."""
    nproc, addr, port, run_id = config
    if args.no_python:
        program = [args.training_script]
    elif args.module:
        program = [sys.executable, "-u", "-m", args.training_script]
    else:
        program = [sys.executable, "-u", args.training_script]
    cmd = [mpiexec()]
    for rank in range(nproc):
        if rank:
            cmd.append(":")
        cmd += ["-n", "1"]
        env = rank_env(rank, nproc, addr, port, run_id, args.role, args.max_restarts)
        for name, value in env.items():
            cmd += ["-env", name, str(value)]
        cmd += program + list(extra_args(rank) if callable(extra_args) else extra_args)
        cmd += list(args.training_script_args)
    return cmd


def run(args: argparse.Namespace, extra_args=()) -> int:
    """Runs the job; returns mpiexec's exit status."""
    config = config_from_args(args)
    if config[0] > 1 and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OMP_NUM_THREADS"] = "1"
    try:
        return subprocess.call(command(args, config, extra_args))
    except KeyboardInterrupt:
        return 130


def main(args: Optional[List[str]] = None) -> None:
    try:
        code = run(parse_args(args))
    except (ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
