"""The matmul shape sweep of issue #30 ("no shape cliffs"): Linear over batch
sizes, matmul over rows x (k, n) x operand layouts, and mv, minitorch beside
torch and NumPy in one process, timed by the main suites' harness
(harness.run_case: the libraries interleaved round by round, each in its own
steady state), medians and ratios to torch. Samples rather than a few square sizes, so a
dispatch rule that is wrong for some m, layout or power-of-two width shows.

    python benchmarks/matmul_sweep.py [--cpu] [--threads N] [--quick]
                                      [--rounds R] [--json FILE] [--match TEXT]

--cpu times with this process's CPU time (time.process_time_ns) and runs
every library on one thread: robust on a machine others load. --quick runs a
few small cases once (a smoke test). The load average is printed before and
after; the cases above 1.0 and 1.1 of torch's time are listed at the end.
"""
import argparse
import json
import os
import sys
import time

import harness

np = None  # imported by main once the BLAS thread count is in the environment

LINEAR = [(784, 512), (512, 10)]
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
ROWS = [1, 2, 4, 8, 16, 64, 256, 1024]
KN = [(784, 512), (512, 512), (500, 500), (1024, 1024), (64, 4096)]
LAYOUTS = ["A@B", "A@B.t()", "A.t()@B"]
MV = [(512, 784), (4096, 4096)]


def _load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "n/a"


def linear_case(mt, torch, batch, fin, fout):
    g = np.random.default_rng(batch * 7 + fin)
    w = g.standard_normal((fout, fin), dtype=np.float32) / fin ** 0.5
    b = g.standard_normal(fout, dtype=np.float32)
    x = g.standard_normal((batch, fin), dtype=np.float32)
    tl = torch.nn.Linear(fin, fout)
    ml = mt.nn.Linear(fin, fout)
    with torch.no_grad():
        tl.weight.copy_(torch.from_numpy(w))
        tl.bias.copy_(torch.from_numpy(b))
    ml.weight.data.copy_(mt.tensor(w))
    ml.bias.data.copy_(mt.tensor(b))
    tx, mx = torch.from_numpy(x), mt.tensor(x)

    def run_mt():
        with mt.no_grad():
            return ml(mx)

    def run_torch():
        with torch.no_grad():
            return tl(tx)

    return {"minitorch": run_mt, "torch": run_torch, "numpy": lambda: x @ w.T + b}


def matmul_case(mt, torch, m, k, n, layout):
    g = np.random.default_rng(m * 31 + k * 7 + n)
    a = g.standard_normal((k, m) if layout == "A.t()@B" else (m, k), dtype=np.float32)
    b = g.standard_normal((n, k) if layout == "A@B.t()" else (k, n), dtype=np.float32)
    ta, tb, ma, mb = torch.from_numpy(a), torch.from_numpy(b), mt.tensor(a), mt.tensor(b)
    if layout == "A@B":
        return {"minitorch": lambda: ma @ mb, "torch": lambda: ta @ tb, "numpy": lambda: a @ b}
    if layout == "A@B.t()":
        return {"minitorch": lambda: ma @ mb.t(), "torch": lambda: ta @ tb.t(),
                "numpy": lambda: a @ b.T}
    return {"minitorch": lambda: ma.t() @ mb, "torch": lambda: ta.t() @ tb,
            "numpy": lambda: a.T @ b}


def mv_case(mt, torch, rows, cols):
    g = np.random.default_rng(rows + cols)
    a = g.standard_normal((rows, cols), dtype=np.float32)
    v = g.standard_normal(cols, dtype=np.float32)
    ta, tv, ma, mv = torch.from_numpy(a), torch.from_numpy(v), mt.tensor(a), mt.tensor(v)
    return {"minitorch": lambda: mt.mv(ma, mv), "torch": lambda: torch.mv(ta, tv),
            "numpy": lambda: a @ v}


def cases(mt, torch, quick):
    if quick:
        yield "Linear(784->512) batch 1", linear_case(mt, torch, 1, 784, 512)
        yield "matmul m=2 (64,128) A@B.t()", matmul_case(mt, torch, 2, 64, 128, "A@B.t()")
        yield "mv 64x80", mv_case(mt, torch, 64, 80)
        return
    for fin, fout in LINEAR:
        for batch in BATCHES:
            yield f"Linear({fin}->{fout}) batch {batch}", linear_case(mt, torch, batch, fin, fout)
    for k, n in KN:
        for layout in LAYOUTS:
            for m in ROWS:
                yield f"matmul m={m} ({k},{n}) {layout}", matmul_case(mt, torch, m, k, n, layout)
    for rows, cols in MV:
        yield f"mv {rows}x{cols}", mv_case(mt, torch, rows, cols)


def measure(fns, rounds, sample_ns):
    """Median time per call of each library, through the main suites' timing
    (harness.run_case): the libraries take turns in every round, each timed
    in its own steady state (the others' idle threads parked, its own awake),
    so a change in the machine's load falls on all of them."""
    libs = {"minitorch": True, "torch": True, "numpy": True}
    case = harness.Case("matmul", "sweep",
                        [harness.Variant(name, name, lambda lib, f=f: f)
                         for name, f in fns.items()], [])
    results, _ = harness.run_case(case, libs, rounds, sample_ns, 40 * rounds * sample_ns)
    return {name: results[name].median_ns for name in fns}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cpu", action="store_true", help="CPU time, every library on 1 thread")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sample-ms", type=float, default=2.0)
    p.add_argument("--json", default=None, help="write the medians here")
    p.add_argument("--match", default="", help="only the cases whose name holds this")
    args = p.parse_args(argv)
    threads = 1 if args.cpu else args.threads
    if threads:
        # before NumPy loads OpenBLAS: its idle threads spin for a while after
        # each call, and CPU time would charge that to the next library timed
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(threads)
    global np
    import numpy as np
    import torch

    import minitorch as mt
    if threads:
        torch.set_num_threads(threads)
        mt.set_num_threads(threads)
    harness.CLOCK_NS = time.process_time_ns if args.cpu else time.perf_counter_ns
    rounds = 1 if args.quick else args.rounds
    sample_ns = (0.1 if args.quick else args.sample_ms) * 1e6
    print(f"minitorch {mt.__version__ if hasattr(mt, '__version__') else '?'}, torch "
          f"{torch.__version__}, numpy {np.__version__}; threads "
          f"{threads or 'default'}; clock {'CPU' if args.cpu else 'wall'}; "
          f"load average {_load()}")
    print(f"{'case':40s} {'minitorch':>11s} {'torch':>11s} {'numpy':>11s} {'mt/torch':>9s} "
          f"{'np/torch':>9s}")
    rows = []
    for name, fns in cases(mt, torch, args.quick):
        if args.match not in name:
            continue
        want = np.asarray(fns["torch"]().numpy())
        got = np.asarray(fns["minitorch"]().numpy())
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * max(1, abs(want).max()))
        med = measure(fns, rounds, sample_ns)
        r = med["minitorch"] / med["torch"]
        flag = " >1.1" if r > 1.1 else " >1.0" if r > 1.0 else ""
        print(f"{name:40s} {med['minitorch'] / 1e3:9.1f}us {med['torch'] / 1e3:9.1f}us "
              f"{med['numpy'] / 1e3:9.1f}us {r:9.2f} {med['numpy'] / med['torch']:9.2f}{flag}",
              flush=True)
        rows.append({"case": name, **{k: v / 1e3 for k, v in med.items()}, "ratio": r})
    print(f"load average after: {_load()}")
    over10 = [x for x in rows if x["ratio"] > 1.0]
    over11 = [x for x in rows if x["ratio"] > 1.1]
    print(f"{len(over10)} of {len(rows)} cases above 1.0 of torch, {len(over11)} above 1.1:")
    for x in over10:
        print(f"  {x['case']:40s} {x['ratio']:.2f}{' (>1.1)' if x['ratio'] > 1.1 else ''}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load": _load(), "cpu": args.cpu, "threads": threads, "rows": rows}, f,
                      indent=1)
    return rows


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
