"""Times minitorch.distributed on MPI ranks of this machine and checks its targets.

    python benchmarks/distributed.py [--quick] [--ranks 2] [--json out.json]

Needs `pip install ".[distributed]"`. Launches itself under mpiexec and prints:

- all_reduce (SUM, float32) of 1 MB to 256 MB beside mpi4py's Allreduce on a
  NumPy array of the same size (the same MPI call on raw memory): median time,
  bandwidth (bytes / time) and the ratio minitorch/mpi4py, target <= 1.10;
- one training step (forward, backward, Adam) of an MLP with 2.4M parameters
  on a global batch of 256: one process alone, and DistributedDataParallel on
  `--ranks` ranks with 256/ranks each (the step time ratio, reported only: on a
  machine with as many cores as ranks, the ranks share the cores the single
  process would use for its threads).

As benchmarks/run.py, variants are timed in interleaved rounds whose order
alternates, after untimed warm-up; a round's time is the slowest rank's.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES_MB = (1, 4, 16, 64, 256)
TARGET = 1.10
STEP_BATCH = 256


def _import_minitorch():
    sys.path.insert(0, ROOT)
    import minitorch
    return minitorch


def _slowest(comm, seconds):
    from mpi4py import MPI
    return comm.allreduce(seconds, op=MPI.MAX)


def _timed(comm, fn, reps):
    comm.Barrier()
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return _slowest(comm, (time.perf_counter() - start) / reps)


def _interleaved(comm, variants, rounds, reps):
    """{label: median seconds per call} of callables timed in alternating order."""
    for fn in variants.values():
        fn()  # warm-up
    samples = {label: [] for label in variants}
    labels = list(variants)
    for r in range(rounds):
        for label in (labels if r % 2 == 0 else labels[::-1]):
            samples[label].append(_timed(comm, variants[label], reps))
    return {label: median(s) for label, s in samples.items()}


def worker_allreduce(args):
    import numpy as np
    from mpi4py import MPI
    torch = _import_minitorch()
    dist = torch.distributed
    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    rows = []
    for mb in SIZES_MB:
        n = mb * (1 << 20) // 4
        t = torch.ones(n)
        a = np.ones(n, dtype=np.float32)
        reps = 1 if mb >= 64 else (3 if mb >= 16 else 10)
        rounds = 3 if args.quick else 7
        medians = _interleaved(comm, {
            "minitorch": lambda: dist.all_reduce(t),
            "mpi4py": lambda: comm.Allreduce(MPI.IN_PLACE, a),
        }, rounds, reps)
        rows.append({"mb": mb, "minitorch_s": medians["minitorch"],
                     "mpi4py_s": medians["mpi4py"]})
    if comm.Get_rank() == 0:
        print(json.dumps(rows))
    dist.destroy_process_group()


def _mlp(torch):
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                         nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 10))


def worker_ddp(args):
    from mpi4py import MPI
    torch = _import_minitorch()
    dist = torch.distributed
    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    world = comm.Get_size()
    model = _mlp(torch)
    net = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(STEP_BATCH // world, 784)
    y = torch.randint(0, 10, (STEP_BATCH // world,))

    def step():
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
    medians = _interleaved(comm, {"step": step}, 3 if args.quick else 7, 3)
    if comm.Get_rank() == 0:
        print(json.dumps({"ranks": world, "step_s": medians["step"],
                          "params": sum(p.numel() for p in model.parameters())}))
    dist.destroy_process_group()


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.access(here, os.X_OK) else shutil.which("mpiexec")
    if found is None:
        raise SystemExit("no mpiexec: pip install \".[distributed]\"")
    return found


def _launch(ranks, mode, quick, threads):
    cmd = [_mpiexec(), "-n", str(ranks), sys.executable, os.path.abspath(__file__),
           "--worker", mode] + (["--quick"] if quick else [])
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{run.stdout}\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--json", default=None, help="save the numbers here")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker == "allreduce":
        return worker_allreduce(args)
    if args.worker == "ddp":
        return worker_ddp(args)

    cores = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.ranks} ranks on {cores} cores, load average {load:.1f} at start")
    rows = _launch(args.ranks, "allreduce", args.quick, 1)
    print(f"\nall_reduce SUM float32, {args.ranks} ranks       minitorch        mpi4py"
          f"     ratio  target")
    failed = False
    for row in rows:
        ratio = row["minitorch_s"] / row["mpi4py_s"]
        ok = ratio <= TARGET
        failed |= not ok
        gbs = [row["mb"] * (1 << 20) / row[k] / 1e9 for k in ("minitorch_s", "mpi4py_s")]
        print(f"  {row['mb']:4d} MB  {row['minitorch_s'] * 1e3:9.2f} ms {gbs[0]:5.2f} GB/s "
              f"{row['mpi4py_s'] * 1e3:8.2f} ms {gbs[1]:5.2f} GB/s  {ratio:5.2f}  "
              f"{'PASS' if ok else 'FAIL'}")
    one = _launch(1, "ddp", args.quick, max(1, cores))
    many = _launch(args.ranks, "ddp", args.quick, max(1, cores // args.ranks))
    print(f"\ntraining step, MLP of {one['params'] / 1e6:.1f}M parameters, global batch "
          f"{STEP_BATCH}")
    print(f"  1 process ({max(1, cores)} threads)           {one['step_s'] * 1e3:8.1f} ms")
    print(f"  DDP on {args.ranks} ranks ({max(1, cores // args.ranks)} threads each)"
          f"    {many['step_s'] * 1e3:8.1f} ms   ({one['step_s'] / many['step_s']:.2f}x)")
    end_load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nload average {end_load:.1f} at the end")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"allreduce": rows, "ddp_1": one, "ddp_n": many, "load": [load, end_load]},
                      f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
