"""Times minitorch beside NumPy and PyTorch in one process and checks the speed targets.

    python benchmarks/run.py [--quick] [--filter SUBSTR] [--json out.json]

Run from the repository root after building (`python setup.py build_ext --inplace`);
minitorch is imported from the checkout when it has been built there, otherwise from
the installed package. PyTorch is optional (`pip install torch==2.13.0`); without it
the PyTorch column reads n/a. Everything runs on 2 threads.
"""
import argparse
import json
import os
import platform
import sys
import time

from harness import THREADS  # harness imports no NumPy

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, str(THREADS))  # before NumPy loads its BLAS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

import numpy as np  # noqa: E402

import harness  # noqa: E402

CASE_MODULES = ("cases_core", "cases_kernels", "cases_dispatch", "cases_autograd", "cases_func",
                "cases_extensions", "cases_data")


def import_minitorch():
    """The checkout's minitorch if it is built, else the installed one."""
    sys.path.insert(0, ROOT)
    try:
        import minitorch
        return minitorch
    except ImportError:
        sys.path.remove(ROOT)
        for name in [m for m in sys.modules if m == "minitorch" or m.startswith("minitorch.")]:
            del sys.modules[name]
        import minitorch
        return minitorch


def import_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    return torch


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter rounds (under 30 s)")
    ap.add_argument("--filter", default="", help="only cases whose 'group name' contains this")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)

    mt = import_minitorch()
    if hasattr(mt, "set_num_threads"):
        mt.set_num_threads(THREADS)
    torch = import_torch()
    libs = {"minitorch": mt, "numpy": np, "torch": torch}
    if args.quick:
        rounds, round_ns, budget_ns, min_rounds = 5, 4e6, 0.4e9, 2
    else:
        rounds, round_ns, budget_ns, min_rounds = 15, 10e6, 2.5e9, 3

    print("minitorch %s (%s)" % (getattr(mt, "__version__", "?"), os.path.dirname(mt.__file__)))
    print("numpy %s | torch %s | python %s | %s | %d threads | %s"
          % (np.__version__, torch.__version__ if torch else "n/a", platform.python_version(),
             platform.machine(), THREADS, "quick" if args.quick else "full"))
    print("load average %.2f on %d CPUs" % (os.getloadavg()[0], os.cpu_count() or 0))
    print("median time per call over interleaved rounds (spread = (max - min) / median);"
          " ratio < 1 means minitorch is faster\n")

    needle = args.filter.lower()
    report, counts, t_start = [], {}, time.perf_counter()
    for mod_name in CASE_MODULES:
        for case in __import__(mod_name).cases():
            if needle not in ("%s %s" % (case.group, case.name)).lower():
                continue
            results = harness.run_case(case, libs, rounds, round_ns, budget_ns, min_rounds)
            ratios = harness.evaluate(case, results)
            print(harness.format_case(case, results, ratios), end="\n\n", flush=True)
            for r in ratios:
                if r["target"] is not None:
                    counts[r["result"]] = counts.get(r["result"], 0) + 1
            report.append({
                "group": case.group, "name": case.name,
                "variants": {k: {"lib": v.lib, "status": v.status, "detail": v.detail,
                                 "median_ns": v.median_ns, "inner": v.inner,
                                 "samples_ns": v.samples_ns} for k, v in results.items()},
                "ratios": ratios, "notes": case.notes})
    elapsed = time.perf_counter() - t_start
    print("targets: %s   (%d cases in %.1f s)"
          % ("  ".join("%s %d" % kv for kv in sorted(counts.items())) or "none", len(report),
             elapsed))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"minitorch": getattr(mt, "__version__", None), "numpy": np.__version__,
                       "torch": torch.__version__ if torch else None, "threads": THREADS,
                       "quick": args.quick, "seconds": elapsed,
                       "loadavg": os.getloadavg()[0], "cases": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
