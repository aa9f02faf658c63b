"""Timing and reporting for benchmarks/run.py.

A case is a list of variants (one per implementation: minitorch, NumPy, PyTorch,
sometimes extra baselines) and a list of ratios between their medians. Variants
are timed in interleaved rounds: every round runs each variant once (once the
process's threads are idle, after untimed warm-up calls of at least WARM_NS),
in an order that rotates from round to round, so clock and thermal drift land
on all of them.
"""
import gc
import os
import time
from dataclasses import dataclass, field
from statistics import median
from typing import Callable, Optional, Union

# Every library runs on this many threads.
THREADS = 2
# Errors that mean "minitorch does not have this yet" rather than "minitorch is broken".
MISSING_ERRORS = (AttributeError, TypeError, NotImplementedError, ImportError)
# A case is CONTENDED when, while it was timed, processes other than this one
# used more than this many cores on average (busy jiffies of the whole machine
# from /proc/stat minus our own utime+stime from /proc/self/stat). A quarter of
# a core: torch's OpenMP team loses 10-600x to one busy neighbour on a 2-core
# machine, and a shell or an editor idling stays well under it.
CONTENDED_CORES = 0.25
# Untimed calls before each round, so the variant's own threads are awake
# (waking parked ones costs up to a millisecond on a VM).
WARM_NS = 20e6
# Before those, the previous variant's library's threads are let park:
# libgomp's spin about 9 ms, minitorch's 5 ms and OpenBLAS's about 100 ms
# after a call. They yield while they spin, but Linux's EEVDF scheduler (6.6
# on) gives a yielding thread its fair share of a core all the same: during
# minitorch's 1024 matmul right after NumPy's, OpenBLAS's idle worker ran as
# long as each of minitorch's two threads (schedstat), and the matmul took
# 13.2 instead of 8.8 ms. A variant waits until no thread of this process has
# used more than a quarter of a QUIET_PROBE_S sleep, for at most QUIET_MAX_NS.
# The probe spans several scheduler ticks: the kernel charges a thread running
# on another core to the process's CPU clock only at a tick (4 ms at HZ=250),
# so a 2 ms probe read OpenBLAS's spinning worker as idle every other time.
QUIET_PROBE_S = 0.012
QUIET_MAX_NS = 300e6


@dataclass
class Variant:
    label: str
    lib: str  # key into the libraries dict: "minitorch", "numpy", "torch"
    # setup(lib) returns the thing to time: a callable, or (statement, namespace).
    setup: Callable


# A ratio term is a variant label, or (a, b) meaning median(a) - median(b).
Term = Union[str, tuple]


@dataclass
class Ratio:
    label: str
    num: Term
    den: Term
    target: Optional[float] = None


@dataclass
class Case:
    group: str
    name: str
    variants: list
    ratios: list
    notes: list = field(default_factory=list)
    # extra(medians_ns) -> list of text lines, e.g. GFLOPS for matmul.
    extra: Optional[Callable] = None
    # check(libs) -> (ok, detail): numeric agreement of minitorch with torch,
    # run before timing; a failure is printed beside the times.
    check: Optional[Callable] = None
    # Also count minor page faults per call of each variant (getrusage).
    count_faults: bool = False


@dataclass
class CpuSample:
    """Jiffies read at one moment: the machine's total and idle, and ours."""
    total: int
    idle: int
    own: int


def parse_proc_stat(text):
    """(total, idle) jiffies from the first ("cpu ") line of /proc/stat; idle counts iowait."""
    fields = [int(x) for x in text.split("\n", 1)[0].split()[1:]]
    # user nice system idle iowait irq softirq steal [guest guest_nice]: guest time
    # is already inside user and nice, so only the first eight are added.
    return sum(fields[:8]), fields[3] + (fields[4] if len(fields) > 4 else 0)


def parse_self_stat(text):
    """utime + stime jiffies of a process (all its threads) from /proc/<pid>/stat."""
    # The command name in parentheses may hold spaces; the fields after it are fixed.
    rest = text[text.rindex(")") + 2:].split()
    return int(rest[11]) + int(rest[12])


def cpu_sample():
    """The current CpuSample, or None where /proc is not there."""
    try:
        with open("/proc/stat") as f:
            total, idle = parse_proc_stat(f.read())
        with open("/proc/self/stat") as f:
            own = parse_self_stat(f.read())
    except (OSError, ValueError, IndexError):
        return None
    return CpuSample(total, idle, own)


def others_cores(before, after, ncpu=None):
    """Cores that other processes kept busy on average between two samples."""
    if before is None or after is None:
        return None
    ncpu = ncpu or os.cpu_count() or 1
    total = after.total - before.total
    if total <= 0:
        return 0.0
    busy = total - (after.idle - before.idle)
    others = max(0, busy - (after.own - before.own))
    # total counts every CPU's jiffies, so total / ncpu is the wall time in jiffies
    return others * ncpu / total


def machine_load(seconds=0.5):
    """Cores busy on the whole machine (this process only sleeps) over a short look."""
    a = cpu_sample()
    time.sleep(seconds)
    b = cpu_sample()
    if a is None or b is None:
        return None
    ncpu = os.cpu_count() or 1
    return (b.total - a.total - (b.idle - a.idle)) * ncpu / max(1, b.total - a.total)


def trio(group, name, tt, np_setup=None, target=None, target_np=None, notes=(), extra=None,
         torch_setup=None):
    """The common case: the same torch-style code for minitorch and PyTorch, and a NumPy twin."""
    variants = [Variant("minitorch", "minitorch", tt)]
    ratios = [Ratio("minitorch/torch", "minitorch", "torch", target)]
    if np_setup is not None:
        variants.append(Variant("numpy", "numpy", np_setup))
        ratios.append(Ratio("minitorch/numpy", "minitorch", "numpy", target_np))
    variants.append(Variant("torch", "torch", torch_setup or tt))
    return Case(group, name, variants, ratios, list(notes), extra)


def _compile(thing):
    """Turns a setup result into bench(n) running the statement n times in a tight loop."""
    if callable(thing):
        stmt, ns = "_f()", {"_f": thing}
    else:
        stmt, ns = thing
    names = sorted(ns)
    body = "\n".join("        " + line for line in stmt.strip().splitlines())
    # Namespace entries become default arguments, so the loop reads them as fast locals.
    src = ("def _bench(_n, %s):\n    for _ in range(_n):\n%s\n"
           % (", ".join("%s=_ns[%r]" % (k, k) for k in names), body))
    scope = {"_ns": ns}
    exec(compile(src, "<bench>", "exec"), scope)
    return scope["_bench"]


# The clock rounds are timed with: wall time, or (run.py --clock cpu, 1-thread
# passes) this process's CPU time, which a busy machine disturbs far less.
CLOCK_NS = time.perf_counter_ns


def _time(bench, n):
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = CLOCK_NS()
        bench(n)
        return CLOCK_NS() - t0
    finally:
        if gc_was_enabled:
            gc.enable()


def wait_quiet(probe_s=QUIET_PROBE_S, max_ns=QUIET_MAX_NS):
    """Sleeps until this process's threads (other libraries' spinning ones) use
    no CPU; returns the nanoseconds waited."""
    start = time.perf_counter_ns()
    while time.perf_counter_ns() - start < max_ns:
        cpu = time.process_time_ns()
        time.sleep(probe_s)
        if time.process_time_ns() - cpu < probe_s * 1e9 / 4:
            break
    return time.perf_counter_ns() - start


def _calibrate(bench, round_ns, first_ns):
    """(inner iterations so one round takes about round_ns, estimated time per iteration).

    first_ns is the time of the warm-up call."""
    n, elapsed = 1, first_ns
    if elapsed >= round_ns:
        # One call fills a round; a second look tells a slow op from a one-off stall.
        elapsed = min(elapsed, _time(bench, 1))
        if elapsed >= round_ns:
            return 1, elapsed
    while elapsed < round_ns / 10 and n < 1 << 30:
        n *= 4 if elapsed < round_ns / 100 else 2
        elapsed = _time(bench, n)
    # The first calls can be cold (lazy init, page faults): measure once more at the chosen size.
    n = max(1, int(round_ns * n / max(elapsed, 1)))
    per_iter = max(_time(bench, n), 1) / n
    return max(1, int(round_ns / per_iter)), per_iter


@dataclass
class Result:
    label: str
    lib: str
    status: str  # "ok", "missing", "n/a", "error"
    detail: str = ""
    inner: int = 0
    samples_ns: list = field(default_factory=list)  # per-iteration time of each round
    faults: Optional[float] = None  # minor page faults per call, when counted

    @property
    def median_ns(self):
        return median(self.samples_ns) if self.samples_ns else None


def run_case(case, libs, rounds, round_ns, case_budget_ns, min_rounds=3):
    results, benches, round_cost = {}, {}, 0.0
    for v in case.variants:
        lib = libs.get(v.lib)
        if lib is None:
            results[v.label] = Result(v.label, v.lib, "n/a", "%s not installed" % v.lib)
            continue
        try:
            bench = _compile(v.setup(lib))
            first_ns = _time(bench, 1)  # warm-up; a missing feature usually shows here
        except MISSING_ERRORS as e:
            results[v.label] = Result(v.label, v.lib, "missing", "%s: %s" % (type(e).__name__, e))
            continue
        except Exception as e:  # noqa: BLE001  a broken feature is reported, not fatal
            results[v.label] = Result(v.label, v.lib, "error", "%s: %s" % (type(e).__name__, e))
            continue
        inner, per_iter = _calibrate(bench, round_ns, first_ns)
        results[v.label] = Result(v.label, v.lib, "ok", inner=inner)
        benches[v.label] = bench
        round_cost += inner * per_iter

    labels = list(benches)
    before = cpu_sample()
    if labels:
        # Slow variants (one call longer than a round) get fewer rounds, never below min_rounds.
        n_rounds = max(min_rounds, min(rounds, int(case_budget_ns // max(round_cost, 1))))
        for r in range(n_rounds):
            start = r % len(labels)
            for label in labels[start:] + labels[:start]:
                res = results[label]
                # Each variant is timed in its own steady state, as in a
                # program that uses only that library: the others' threads
                # parked, its own awake.
                wait_quiet()
                warm_start = time.perf_counter_ns()
                while True:
                    benches[label](res.inner)
                    if time.perf_counter_ns() - warm_start >= WARM_NS:
                        break
                res.samples_ns.append(_time(benches[label], res.inner) / res.inner)
    contention = others_cores(before, cpu_sample())
    if case.count_faults:
        for label in labels:
            results[label].faults = _faults_per_call(benches[label], results[label].inner)
    return results, contention


def _faults_per_call(bench, n, min_calls=10):
    """Minor page faults per call in the steady state (after the timed rounds),
    averaged over at least min_calls calls: a caching allocator faults now and then."""
    import resource
    n = max(n, min_calls)
    start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    bench(n)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start) / n


def run_check(case, libs):
    """(ok, detail) of the case's agreement check; ok is None when it was not run."""
    if case.check is None:
        return None, "no check"
    if libs.get("torch") is None:
        return None, "torch not installed"
    try:
        return case.check(libs)
    except MISSING_ERRORS as e:
        return False, "missing: %s: %s" % (type(e).__name__, e)
    except Exception as e:  # noqa: BLE001  reported in the table
        return False, "error: %s: %s" % (type(e).__name__, e)


def _term_value(term, results):
    """Median of a variant, or a difference of two; (None, why) when unavailable."""
    parts = [term] if isinstance(term, str) else list(term)
    for p in parts:
        if results[p].status != "ok":
            return None, results[p].status
    if isinstance(term, str):
        return results[term].median_ns, ""
    return results[term[0]].median_ns - results[term[1]].median_ns, ""


def is_contended(contention):
    return contention is not None and contention > CONTENDED_CORES


def evaluate(case, results, contention=None):
    """The case's ratios; none is given a value when the case was contended."""
    out = []
    for r in case.ratios:
        num, why_n = _term_value(r.num, results)
        den, why_d = _term_value(r.den, results)
        entry = {"label": r.label, "target": r.target, "value": None}
        if is_contended(contention):
            entry["result"] = "CONTENDED"
        elif num is None or den is None:
            # minitorch lacking the feature is the interesting reason; report it first.
            entry["result"] = "missing" if "missing" in (why_n, why_d) else (why_n or why_d)
        elif den <= 0:
            entry["result"] = "n/a (baseline within noise)"
        else:
            entry["value"] = num / den
            if r.target is not None:
                entry["result"] = "PASS" if entry["value"] <= r.target else "FAIL"
            else:
                entry["result"] = ""
        out.append(entry)
    return out


def fmt_ns(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3g ns" % ns


def format_case(case, results, ratios, contention=None, check=None):
    lines = ["[%s] %s" % (case.group, case.name)]
    if contention is not None:
        lines.append("  other processes used %.2f cores while timed%s"
                     % (contention, "  -> CONTENDED, ratios withheld"
                        if is_contended(contention) else ""))
    if check is not None and check[0] is not None:
        lines.append("  agreement with torch: %s%s"
                     % ("ok" if check[0] else "FAILED", " (%s)" % check[1] if check[1] else ""))
    width = max(len(v.label) for v in case.variants) + 2
    for v in case.variants:
        res = results[v.label]
        if res.status == "ok":
            spread = (max(res.samples_ns) - min(res.samples_ns)) / res.median_ns
            faults = "" if res.faults is None else ", %.1f page faults/call" % res.faults
            lines.append("  %-*s %10s   (%d rounds x %d iters, spread %d%%%s)"
                         % (width, v.label, fmt_ns(res.median_ns), len(res.samples_ns), res.inner,
                            round(100 * spread), faults))
        else:
            detail = res.detail if len(res.detail) < 90 else res.detail[:87] + "..."
            lines.append("  %-*s %10s   %s" % (width, v.label, res.status, detail))
    rwidth = max([len(r["label"]) for r in ratios] + [5]) + 2
    for r in ratios:
        value = "%.3f" % r["value"] if r["value"] is not None else "-"
        target = "target <= %.2f" % r["target"] if r["target"] is not None else ""
        lines.append("  %-*s %10s   %-16s %s" % (rwidth, r["label"], value, target, r["result"]))
    if case.extra is not None:
        medians = {k: v.median_ns for k, v in results.items() if v.status == "ok"}
        lines.extend("  " + line for line in case.extra(medians))
    lines.extend("  note: " + n for n in case.notes)
    return "\n".join(lines)
