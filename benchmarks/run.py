"""Times minitorch beside NumPy and PyTorch in one process and checks the speed targets.

    python benchmarks/run.py [--quick] [--filter SUBSTR] [--threads 1,2] [--clock cpu] [--json F]
    python benchmarks/run.py --suite realistic [--threads 1,2] [--quick] ...

Run from the repository root after building (`python setup.py build_ext --inplace`);
minitorch is imported from the checkout when it has been built there, otherwise from
the installed package. PyTorch is optional (`pip install torch==2.13.0`); without it
the PyTorch column reads n/a. The default suite runs on 2 threads (or each count in
--threads; --clock cpu times the 1-thread pass in process CPU time); the realistic
suite (model-sized ops and whole training steps, cases_models.py) runs each case
once per thread count in --threads, every library set to that count.

Every case records how many cores other processes used while it was timed; a
case above harness.CONTENDED_CORES is marked CONTENDED and its ratios withheld.
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
                "cases_extensions", "cases_data", "cases_linalg", "cases_fft", "cases_complex",
                "cases_sparse")
# Suites whose cases() take the thread count they are run at.
THREADED_MODULES = {"realistic": ("cases_models",), "latency": ("cases_latency",)}


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


def set_threads(libs, n):
    if hasattr(libs["minitorch"], "set_num_threads"):
        libs["minitorch"].set_num_threads(n)
    if libs["torch"] is not None:
        libs["torch"].set_num_threads(n)


def run_one(case, libs, threads, counts, timing):
    check = harness.run_check(case, libs)
    results, contention = harness.run_case(case, libs, *timing)
    # CPU time counts this process's work only: other processes' load does
    # not void its ratios (it still slows caches and memory a little)
    withheld = None if harness.CLOCK_NS is time.process_time_ns else contention
    ratios = harness.evaluate(case, results, withheld)
    print(harness.format_case(case, results, ratios, withheld, check), end="\n\n", flush=True)
    medians = {k: v.median_ns for k, v in results.items() if v.status == "ok"}
    for r in ratios:
        if r["target"] is not None:
            counts[r["result"]] = counts.get(r["result"], 0) + 1
    return {
        "group": case.group, "name": case.name, "threads": threads,
        "others_cores": contention, "check": list(check),
        "variants": {k: {"lib": v.lib, "status": v.status, "detail": v.detail,
                         "median_ns": v.median_ns, "inner": v.inner, "faults": v.faults,
                         "samples_ns": v.samples_ns} for k, v in results.items()},
        "ratios": ratios, "notes": case.notes,
        "extra": case.extra(medians) if case.extra is not None else []}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter rounds (under 30 s)")
    ap.add_argument("--filter", default="", help="only cases whose 'group name' contains this")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--suite", choices=("kernels", "realistic", "latency"), default="kernels",
                    help="kernels: op overhead and big kernels (default); realistic: model-sized"
                         " ops and training steps; latency: inference, decoding, small programs")
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts (default: 1,%d for the realistic and"
                         " latency suites, %d for kernels)" % (THREADS, THREADS))
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: time 1-thread passes in process CPU time (more threads: wall)")
    args = ap.parse_args(argv)

    mt = import_minitorch()
    torch = import_torch()
    libs = {"minitorch": mt, "numpy": np, "torch": torch}
    if args.quick:
        rounds, round_ns, budget_ns, min_rounds = 5, 4e6, 0.4e9, 2
    else:
        rounds, round_ns, budget_ns, min_rounds = 15, 10e6, 2.5e9, 3
    if args.suite in THREADED_MODULES:
        counts_arg = args.threads or "1,%d" % THREADS
        passes = [(int(t), THREADED_MODULES[args.suite]) for t in counts_arg.split(",")]
        # model-sized cases take milliseconds a call: fewer, fuller rounds
        budget_ns = 0.6e9 if args.quick else 1.5e9
    else:
        passes = [(int(t), CASE_MODULES) for t in (args.threads or str(THREADS)).split(",")]

    print("minitorch %s (%s)" % (getattr(mt, "__version__", "?"), os.path.dirname(mt.__file__)))
    print("numpy %s | torch %s | python %s | %s | %s threads | %s | suite %s"
          % (np.__version__, torch.__version__ if torch else "n/a", platform.python_version(),
             platform.machine(), ",".join(str(t) for t, _ in passes),
             "quick" if args.quick else "full", args.suite))
    busy = harness.machine_load()
    print("load average %.2f on %d CPUs; %s cores busy right now (contended above %.2f cores"
          " used by others while a case is timed)"
          % (os.getloadavg()[0], os.cpu_count() or 0,
             "?" if busy is None else "%.2f" % busy, harness.CONTENDED_CORES))
    print("median time per call over interleaved rounds (spread = (max - min) / median);"
          " ratio < 1 means minitorch is faster\n")

    needle = args.filter.lower()
    report, counts, t_start = [], {}, time.perf_counter()
    for threads, modules in passes:
        set_threads(libs, threads)
        cpu_clock = args.clock == "cpu" and threads == 1
        harness.CLOCK_NS = time.process_time_ns if cpu_clock else time.perf_counter_ns
        if len(passes) > 1 or args.clock == "cpu":
            print("==== %d thread%s, %s clock ====" % (threads, "" if threads == 1 else "s",
                                                     "CPU" if cpu_clock else "wall"))
        if args.suite == "realistic":
            from bandwidth import copy_gbps
            from peak import peak_gflops
            before = harness.cpu_sample()
            peak, gbps = peak_gflops(threads), copy_gbps(threads)
            others = harness.others_cores(before, harness.cpu_sample())
            print("yardsticks at %d threads: copy bandwidth %.1f GB/s, multiply-add peak %s"
                  " GFLOPS (other processes used %s cores meanwhile%s)\n"
                  % (threads, gbps, "%.0f" % peak if peak else "unknown",
                     "?" if others is None else "%.2f" % others,
                     ": both understated" if harness.is_contended(others) else ""))
        for mod_name in modules:
            mod = __import__(mod_name)
            for case in (mod.cases(threads) if mod_name in THREADED_MODULES.get(args.suite, ())
                         else mod.cases()):
                if needle not in ("%s %s" % (case.group, case.name)).lower():
                    continue
                report.append(run_one(case, libs, threads, counts,
                                      (rounds, round_ns, budget_ns, min_rounds)))
    elapsed = time.perf_counter() - t_start
    contended = sum(1 for r in report if harness.is_contended(r["others_cores"]))
    failed = sum(1 for r in report if r["check"][0] is False)
    print("targets: %s   (%d cases in %.1f s; %d contended; %d agreement checks failed)"
          % ("  ".join("%s %d" % kv for kv in sorted(counts.items())) or "none", len(report),
             elapsed, contended, failed))
    for r in report:
        for ratio in r["ratios"]:
            if ratio["target"] is not None and ratio["result"] not in ("PASS", ""):
                print("  %s: %s %s (%s, target <= %.2f)"
                      % (ratio["result"], r["name"], "" if r["threads"] is None else
                         "at %d thread%s" % (r["threads"], "" if r["threads"] == 1 else "s"),
                         "%.2f" % ratio["value"] if ratio["value"] is not None else "no value",
                         ratio["target"]))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"minitorch": getattr(mt, "__version__", None), "numpy": np.__version__,
                       "torch": torch.__version__ if torch else None,
                       "threads": [t for t, _ in passes], "suite": args.suite,
                       "quick": args.quick, "seconds": elapsed,
                       "loadavg": os.getloadavg()[0], "cases": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
