"""Runs each script of this folder under torch and under minitorch, each in a
child process, and applies the same checks to both runs.

    python examples/real_programs/compare.py [script.py ...]

A script reports progress as lines `step N loss X` (or `step N length X` for
the reinforcement-learning one, where the episode length is what training
drives down). Checks, none tied to a seed (the two libraries draw different
random numbers from the same seed):
  * the run exits 0;
  * it learns: the mean of the last window of values is below DROP times the
    mean of the first window;
  * minitorch ends where torch ends: the last-window means differ by at most
    TOLERANCE of torch's.
The window is a fifth of the steps, so one noisy batch cannot decide a check.
"""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = ["char_gpt.py", "cnn_shapes.py", "lstm_lm.py", "reinforce_corridor.py",
           "conv_autoencoder.py"]
DROP = 0.8
TOLERANCE = 0.10
TIMEOUT = 300
_STEP = re.compile(r"^step (\d+) (?:loss|length) (\S+)$", re.M)


class Run:
    """One script's run under one library: exit code, output, reported values."""

    def __init__(self, lib, script, proc, seconds):
        self.lib, self.script, self.seconds = lib, script, seconds
        self.returncode, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.values = [float(v) for _, v in _STEP.findall(proc.stdout)]

    def window(self):
        return max(1, len(self.values) // 5)

    def first(self):
        return sum(self.values[:self.window()]) / self.window()

    def last(self):
        return sum(self.values[-self.window():]) / self.window()


def run(lib, script, env=None):
    """Runs examples/real_programs/<script> with lib imported as torch.

    The child gets one OpenMP thread unless the caller chose otherwise: on a
    busy 2-core machine torch's spinning worker threads make these small
    models many times slower, and the checks do not depend on speed."""
    env = dict(os.environ if env is None else env)
    env.setdefault("OMP_NUM_THREADS", "1")
    cmd = [sys.executable, os.path.join(HERE, "run_as.py"), lib, os.path.join(HERE, script)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=HERE,
                          env=env)
    return Run(lib, script, proc, time.perf_counter() - start)


def problems(run_, reference=None):
    """What is wrong with run_ (an empty list when every check holds)."""
    if run_.returncode != 0:
        return [f"{run_.lib} exited {run_.returncode}:\n{run_.stderr[-3000:]}"]
    if len(run_.values) < 10:
        return [f"{run_.lib} reported {len(run_.values)} steps"]
    found = []
    if not run_.last() < DROP * run_.first():
        found.append(f"{run_.lib} did not learn: first {run_.first():.4f}, last {run_.last():.4f}")
    if reference is not None and \
            abs(run_.last() - reference.last()) > TOLERANCE * reference.last():
        found.append(f"{run_.lib} ends at {run_.last():.4f}, torch at {reference.last():.4f} "
                     f"(ratio {run_.last() / reference.last():.3f})")
    return found


def main(scripts):
    try:
        import torch  # noqa: F401
        libs = ("torch", "minitorch")
    except ImportError:
        libs = ("minitorch",)
    failed = False
    print(f"{'script':24} {'lib':10} {'first':>9} {'last':>9} {'ratio':>7} {'seconds':>8}")
    for script in scripts:
        runs = {lib: run(lib, script) for lib in libs}
        reference = runs.get("torch")
        for lib, r in runs.items():
            found = problems(r, reference if lib != "torch" else None)
            ratio = (f"{r.last() / reference.last():7.3f}"
                     if reference is not None and r.values and reference.values else "      -")
            first, last = (r.first(), r.last()) if r.values else (float("nan"),) * 2
            print(f"{script:24} {lib:10} {first:9.4f} {last:9.4f} {ratio} {r.seconds:8.2f}")
            for p in found:
                failed = True
                print("  " + p)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or SCRIPTS))
