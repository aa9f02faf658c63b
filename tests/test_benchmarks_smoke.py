"""The realistic benchmark suite's agreement checks at tiny sizes, the harness's
contention arithmetic on made-up /proc readings, and its wait for other
libraries' spinning threads."""
import os
import sys

import pytest

import minitorch

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import harness  # noqa: E402

# A /proc/stat first line: user nice system idle iowait irq softirq steal guest guest_nice
STAT = "cpu  {u} 0 {s} {i} {w} 0 0 0 7 7\ncpu0 1 2 3 4 5 6 7 8 9 10\n"
# /proc/self/stat with a command name holding a space and a parenthesis
SELF = "1234 (py (x) y) R 1 2 3 4 5 6 7 8 9 10 {ut} {st} 0 0 20 0 1 0"


def _sample(user, system, idle, iowait, ut, st):
    total, idle_j = harness.parse_proc_stat(STAT.format(u=user, s=system, i=idle, w=iowait))
    return harness.CpuSample(total, idle_j, harness.parse_self_stat(SELF.format(ut=ut, st=st)))


def test_parse_proc_stat_skips_guest_and_counts_iowait_as_idle():
    assert harness.parse_proc_stat(STAT.format(u=10, s=5, i=100, w=3)) == (118, 103)


def test_parse_self_stat_reads_utime_and_stime_after_the_name():
    assert harness.parse_self_stat(SELF.format(ut=40, st=2)) == 42


def test_others_cores_subtracts_our_own_time():
    # 2 CPUs for 100 jiffies of wall time: 200 jiffies in all, 120 busy, 100 of them ours
    before = _sample(1000, 0, 5000, 0, 500, 0)
    after = _sample(1100, 20, 5080, 0, 590, 10)
    assert harness.others_cores(before, after, ncpu=2) == pytest.approx(20 * 2 / 200)
    assert not harness.is_contended(harness.others_cores(before, after, ncpu=2))


def test_a_busy_neighbour_marks_the_case_contended():
    # the other core busy the whole time while we used one core
    before = _sample(0, 0, 0, 0, 0, 0)
    after = _sample(200, 0, 0, 0, 100, 0)
    cores = harness.others_cores(before, after, ncpu=2)
    assert cores == pytest.approx(1.0)
    assert harness.is_contended(cores)
    case = harness.Case("g", "n", [], [harness.Ratio("a/b", "a", "b")])
    results = {k: harness.Result(k, k, "ok", samples_ns=[1.0]) for k in "ab"}
    assert harness.evaluate(case, results, cores)[0] == {
        "label": "a/b", "target": None, "value": None, "result": "CONTENDED"}
    assert harness.evaluate(case, results, 0.0)[0]["value"] == 1.0


def test_others_cores_without_samples_or_time():
    s = _sample(1, 1, 1, 1, 1, 1)
    assert harness.others_cores(None, s) is None
    assert harness.others_cores(s, s, ncpu=2) == 0.0
    assert not harness.is_contended(None)


def test_cpu_sample_reads_this_machine():
    s = harness.cpu_sample()
    if s is None:
        pytest.skip("no /proc")
    assert s.total >= s.idle >= 0 and s.own >= 0


class FakeClock:
    """time for wait_quiet: a sleep of s seconds advances the wall clock by s and
    this process's CPU time by s * busy_cores while `spinning` sleeps remain."""

    def __init__(self, spinning, busy_cores):
        self.wall = self.cpu = 0
        self.spinning, self.busy_cores, self.sleeps = spinning, busy_cores, 0

    def perf_counter_ns(self):
        return self.wall

    def process_time_ns(self):
        return self.cpu

    def sleep(self, s):
        self.wall += int(s * 1e9)
        if self.sleeps < self.spinning:
            self.cpu += int(s * 1e9 * self.busy_cores)
        self.sleeps += 1


@pytest.mark.parametrize("spinning,busy_cores", [(0, 1.0), (3, 1.0), (50, 0.3), (10, 0.2)])
def test_wait_quiet_sleeps_until_the_process_uses_no_cpu(monkeypatch, spinning, busy_cores):
    clock = FakeClock(spinning, busy_cores)
    monkeypatch.setattr(harness, "time", clock)
    waited = harness.wait_quiet(probe_s=0.002, max_ns=1e9)
    # a thread using a quarter of a core or more is waited for; less counts as quiet
    probes = spinning + 1 if busy_cores >= 0.25 else 1
    assert clock.sleeps == probes
    assert waited == probes * 2_000_000


def test_wait_quiet_gives_up_after_max_ns(monkeypatch):
    clock = FakeClock(10**6, 1.0)
    monkeypatch.setattr(harness, "time", clock)
    assert harness.wait_quiet(probe_s=0.002, max_ns=100e6) == 100_000_000
    assert clock.sleeps == 50


def test_wait_quiet_sees_a_real_spinning_thread():
    import threading
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            pass

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        # spins for the whole look: never quiet
        assert harness.wait_quiet(max_ns=50e6) >= 50e6
    finally:
        stop.set()
        spinner.join()
    assert harness.wait_quiet(max_ns=2e9) < 1e9


torch = pytest.importorskip("torch")
cases_models = pytest.importorskip("cases_models")
LIBS = {"minitorch": minitorch, "torch": torch}


@pytest.mark.parametrize("spec", cases_models.op_specs(), ids=lambda s: s.name)
def test_op_case_agrees_with_torch_at_tiny_size(spec):
    ok, detail = cases_models.check_op(spec, tiny=True)(LIBS)
    assert ok, detail


@pytest.mark.parametrize("kind", [k for k, _ in cases_models.TRAIN])
def test_training_step_agrees_with_torch_at_tiny_size(kind):
    ok, detail = cases_models.check_train(kind, tiny=True)(LIBS)
    assert ok, detail


def test_a_wrong_result_fails_the_check():
    spec = cases_models.op_specs()[0]
    build = spec.build

    def skewed(lib, tiny, grad):
        p = build(lib, tiny, grad)
        if lib is minitorch:
            fn = p.fn
            p.fn = lambda *a: fn(*a) * 1.01
        return p

    bad = cases_models.OpSpec(spec.name, skewed)
    ok, detail = cases_models.check_op(bad, tiny=True)(LIBS)
    assert not ok and "max rel err" in detail


def test_every_case_has_a_check_and_both_thread_counts_differ_in_name():
    one, two = cases_models.cases(1), cases_models.cases(2)
    assert len(one) == len(two) > 40
    assert all(c.check is not None for c in one)
    assert {c.name for c in one}.isdisjoint({c.name for c in two})
    assert sum(c.count_faults for c in one) == len(cases_models.TRAIN)


def test_table_withholds_contended_ratios_and_tells_minitorch_from_torch():
    import table

    def case(others):
        return {"group": "realistic", "name": "op forward, 1T", "threads": 1,
                "others_cores": others, "check": [True, "max rel err 1e-7"],
                "variants": {k: {"lib": k, "status": "ok", "median_ns": ns, "faults": None}
                             for k, ns in (("minitorch", 2e6), ("torch", 1e6))},
                "ratios": [{"label": "minitorch/torch", "target": None, "value": 2.0,
                            "result": ""}],
                "extra": ["GB/s (minimal traffic 34 MB) minitorch 17.0 (40%)  torch 34.0 (80%)"]}
    quiet, busy = list(table.rows({"cases": [case(0.1), case(1.5)]}))[2:]
    assert "| 2.00 |" in quiet and "40% / 80%" in quiet and "| 1 |" in quiet
    assert "| CONTENDED |" in busy and "| 2.00 |" not in busy


def test_matmul_sweep_quick_run_checks_and_lists_the_cases_over_torch():
    """The matmul shape sweep's --quick run (a few small cases, each checked
    against torch before it is timed), in a child: --cpu sets the thread
    counts of both libraries."""
    import subprocess

    from child_env import child_env

    r = subprocess.run([sys.executable, os.path.join(BENCH, "matmul_sweep.py"), "--quick",
                        "--cpu"], env=child_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "load average" in r.stdout and "Linear(784->512) batch 1" in r.stdout
    assert "cases above 1.0 of torch" in r.stdout


def test_latency_suite_cases_agree_with_torch_and_all_aim_at_torch():
    """Every latency case targets minitorch/torch <= 1.0; the cheap ones' checks pass
    (the 100 MB save/load and the matmul-heavy ones run in the benchmark only)."""
    cases_latency = pytest.importorskip("cases_latency")
    cases = cases_latency.cases(1)
    assert len(cases) > 25
    assert all([r.target for r in c.ratios] == [1.0] for c in cases)
    checked = [c for c in cases if c.check is not None and "batch 512" not in c.name]
    assert len(checked) > 10
    for c in checked:
        ok, detail = c.check(LIBS)
        assert ok, (c.name, detail)


def test_cpu_clock_ratios_are_not_withheld_for_contention(monkeypatch):
    import time

    import run

    case = harness.Case("g", "n", [harness.Variant(k, k, None) for k in ("minitorch", "torch")],
                        [harness.Ratio("minitorch/torch", "minitorch", "torch", 1.0)])
    results = {k: harness.Result(k, k, "ok", samples_ns=[ns]) for k, ns in
               (("minitorch", 1.0), ("torch", 2.0))}
    monkeypatch.setattr(harness, "run_check", lambda case, libs: (None, "no check"))
    monkeypatch.setattr(harness, "run_case", lambda case, libs, *t: (results, 1.9))
    for clock, want in ((time.perf_counter_ns, "CONTENDED"), (time.process_time_ns, "PASS")):
        monkeypatch.setattr(harness, "CLOCK_NS", clock)
        counts = {}
        run.run_one(case, LIBS, 1, counts, ())
        assert counts == {want: 1}
