"""Per-call overhead of tiny ops: two minitorch builds and PyTorch, side by side.

    python benchmarks/overhead_ab.py --before PATH --after PATH [--cpu] [--rounds N]
                                     [--processes P]

PATH is a checkout with the extension built in place (`python setup.py build_ext
--inplace`). Each library runs in a child process of its own (two builds of
minitorch._C cannot share one); the parent interleaves the rounds, one round of
every case in every child in turn, so that a change in the machine's load lands
on all of them alike. A round times a batch of calls. The children are started
afresh P times (the rounds split between them): where a process's code and heap
land in memory moves its speed by a few percent for its whole life, and
several processes average that out. The table gives each case's median time
per call, and the median of the rounds' after/before ratios (each ratio taken
between rounds run back to back) with their interquartile range; the ratio
after/torch is of the medians. As timeit does, a round runs with the garbage
collector off (and after a collection): a collection of the whole heap
landing in one library's round and not another's would otherwise be timed as
the op's cost. --cpu times with the process's CPU clock (robust on a busy
machine, for one thread); the load average before and after is printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

# Each case: (name, setup, statement, calls per round). `lib` is the library;
# the statements are ones torch and minitorch both run.
CASES = [
    ("add 1 element", "x = lib.ones(1); y = lib.ones(1)", "x + y", 2000),
    ("torch.add 1 element", "x = lib.ones(1); y = lib.ones(1)", "lib.add(x, y)", 2000),
    ("sum 1 element", "x = lib.ones(1)", "x.sum()", 2000),
    ("relu 1 element", "x = lib.ones(1)", "x.relu()", 2000),
    ("x[0] of 4x4", "x = lib.ones(4, 4)", "x[0]", 2000),
    ("sum 64x64", "x = lib.ones(64, 64)", "x.sum(1)", 1000),
    ("sum 2^16 elements", "x = lib.ones(1 << 16)", "x.sum()", 200),
    ("sum 2^20 elements", "x = lib.ones(1 << 20)", "x.sum()", 20),
    ("conv2d 1x3x16x16, 8 3x3 filters", "x = lib.ones(1, 3, 16, 16); w = lib.ones(8, 3, 3, 3)",
     "lib.nn.functional.conv2d(x, w)", 500),
    ("softmax 8x64", "x = lib.ones(8, 64)", "x.softmax(1)", 1000),
    ("max_pool2d 1x4x16x16", "x = lib.ones(1, 4, 16, 16)",
     "lib.nn.functional.max_pool2d(x, 2)", 1000),
    ("add, requires_grad", "x = lib.ones(1, requires_grad=True); y = lib.ones(1)", "x + y", 2000),
    ("linear 1x8 @ 8x8", "x = lib.ones(1, 8); w = lib.ones(8, 8); b = lib.ones(8)",
     "lib.nn.functional.linear(x, w, b)", 2000),
    ("1000-op chain, forward", "x = lib.ones(1, requires_grad=True)",
     "y = x\nfor _ in range(1000):\n    y = y * 1.0001", 3),
    ("1000-op chain, forward+backward", "x = lib.ones(1, requires_grad=True)",
     "y = x\nfor _ in range(1000):\n    y = y * 1.0001\ny.backward()", 3),
]

CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, sys.argv[1]) if sys.argv[1] else None
lib = __import__(sys.argv[2])
lib.set_num_threads(1)
clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
cases = json.loads(sys.stdin.readline())
funcs = []
for name, setup, stmt, n in cases:
    env = {"lib": lib}
    exec(setup, env)
    code = compile("def run(n):\n    for _ in range(n):\n" +
                   "\n".join("        " + line for line in stmt.splitlines()), name, "exec")
    exec(code, env)
    env["run"](n)
    funcs.append((env["run"], n))
print(json.dumps(lib.__file__), flush=True)
for line in sys.stdin:
    run, n = funcs[int(line)]
    gc.collect()
    gc.disable()
    t0 = clock()
    run(n)
    dt = clock() - t0
    gc.enable()
    print(json.dumps(dt / n), flush=True)
"""


def start(root, module, clock):
    p = subprocess.Popen([sys.executable, "-c", CHILD, root, module, clock],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"))
    p.stdin.write(json.dumps(CASES) + "\n")
    p.stdin.flush()
    where = json.loads(p.stdout.readline())
    return p, where


def time_one(p, k):
    p.stdin.write("%d\n" % k)
    p.stdin.flush()
    return json.loads(p.stdout.readline())


def fmt(t):
    return "%.2f µs" % (t * 1e6) if t < 1e-3 else "%.2f ms" % (t * 1e3)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="checkout of the build before the change")
    ap.add_argument("--after", required=True, help="checkout of the build after the change")
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--processes", type=int, default=5,
                    help="fresh child processes per library, the rounds split between them")
    ap.add_argument("--cpu", action="store_true", help="time with the process CPU clock")
    args = ap.parse_args(argv)
    clock = "cpu" if args.cpu else "wall"
    libs = [("before", args.before, "minitorch"), ("after", args.after, "minitorch")]
    try:
        import torch  # noqa: F401
        libs.append(("torch", "", "torch"))
    except ImportError:
        pass
    load0 = os.getloadavg()[0]
    times = {(label, k): [] for label, _, _ in libs for k in range(len(CASES))}
    for gen in range(args.processes):
        procs = {}
        for label, root, module in libs:
            procs[label], where = start(root, module, clock)
            if gen == 0:
                print("%-7s %s" % (label, where))
        for _ in range(max(1, args.rounds // args.processes)):
            for k in range(len(CASES)):
                for label, _, _ in libs:
                    times[label, k].append(time_one(procs[label], k))
        for p in procs.values():
            p.stdin.close()
            p.wait()
    rounds = len(times["before", 0])
    print("clock: %s, 1 thread, %d interleaved rounds in %d processes each; "
          "load average %.2f before, %.2f after"
          % (clock, rounds, args.processes, load0, os.getloadavg()[0]))
    has_torch = any(label == "torch" for label, _, _ in libs)
    torch_cols = " torch | after/torch |" if has_torch else ""
    print("| case | before | after | after/before (IQR) |" + torch_cols)
    print("|---|---|---|---|" + ("---|---|" if has_torch else ""))
    for k, (name, *_rest) in enumerate(CASES):
        med = {label: statistics.median(times[label, k]) for label, _, _ in libs}
        ratios = [a / b for a, b in zip(times["after", k], times["before", k])]
        q1, q2, q3 = statistics.quantiles(ratios, n=4)
        row = "| %s | %s | %s | %.3f (%.2f–%.2f) |" % (name, fmt(med["before"]),
                                                       fmt(med["after"]), q2, q1, q3)
        if has_torch:
            row += " %s | %.2f |" % (fmt(med["torch"]), med["after"] / med["torch"])
        print(row)


if __name__ == "__main__":
    main()
