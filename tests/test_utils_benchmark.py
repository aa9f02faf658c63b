"""minitorch.utils.benchmark against torch.utils.benchmark: Measurements built
from the same fixed raw times print and summarize the same (repr after its
object-address line, statistics, significant figures), Compare prints the
same tables in every mode; real Timer runs keep their invariants and restore
the thread count; bad arguments fail with torch's errors."""
import random

import pytest

import minitorch
import minitorch.utils.benchmark as mb

torch = pytest.importorskip("torch")
tb = pytest.importorskip("torch.utils.benchmark")


def _pair(number, raw, **spec):
    spec.setdefault("stmt", "x + y")
    spec.setdefault("setup", "pass")
    return [lib.Measurement(number, list(raw), lib.TaskSpec(**spec)) for lib in (mb, tb)]


def _body(m):
    return repr(m).split("\n", 1)[1]


def _raw_cases():
    rng = random.Random(7)
    for scale in (3e-9, 4.2e-7, 1e-6, 5.5e-5, 2e-3, 0.7, 12.0):
        for n in (1, 2, 3, 4, 9, 30):
            for spread in (0.0, 0.001, 0.05, 0.2, 0.6):
                yield scale, [scale * 10 * (1 + spread * rng.random()) for _ in range(n)]


SPECS = [
    {},
    {"label": "add", "sub_label": "float", "description": "n=4", "num_threads": 4},
    {"stmt": "a = x\nb = y", "setup": "x = 1\ny = 2", "sub_label": "two lines"},
    {"stmt": "f()", "setup": "def f():\n    pass", "description": "desc", "num_threads": 2},
    {"label": "L", "setup": "x = 1", "env": "A"},
]


@pytest.mark.parametrize("spec", SPECS, ids=[f"spec{i}" for i in range(len(SPECS))])
def test_measurement_reads_as_torch(spec):
    for scale, raw in _raw_cases():
        ours, theirs = _pair(10, raw, **spec)
        assert _body(ours) == _body(theirs), (scale, raw)
        assert repr(ours).startswith("<minitorch.utils.benchmark.utils.common.Measurement object")
        for attr in ("median", "mean", "iqr"):
            assert getattr(ours, attr) == pytest.approx(getattr(theirs, attr), rel=1e-12)
        assert ours.times == theirs.times
        assert ours.significant_figures == theirs.significant_figures
        assert ours.has_warnings == theirs.has_warnings
        assert ours.meets_confidence(0.05) == theirs.meets_confidence(0.05)
        assert (ours.title, ours.env, ours.as_row_name, ours.num_threads, ours.label) == \
            (theirs.title, theirs.env, theirs.as_row_name, theirs.num_threads, theirs.label)


def test_measurement_repr_lines():
    m = mb.Measurement(100, [2e-4, 2.1e-4, 2.2e-4, 2.6e-4],
                       mb.TaskSpec("x * 2", "x = 1", label="mul", num_threads=4))
    assert _body(m).splitlines() == [
        "mul", "setup: x = 1", "  Median: 2.15 us", "  IQR:    0.22 us (2.08 to 2.30)",
        "  4 measurements, 100 runs per measurement, 4 threads",
        "  WARNING: Interquartile range is 10.5% of the median measurement.",
        "           This could indicate system fluctuation."]
    assert m.has_warnings and not m.meets_confidence(0.1) and m.meets_confidence(0.25)
    one = mb.Measurement(10, [5e-3], mb.TaskSpec("f()", "pass"))
    assert _body(one).splitlines() == ["f()", "  500.00 us", "  1 measurement, 10 runs , 1 thread"]


@pytest.mark.parametrize("t", [3e-10, 1e-9, 2.5e-8, 9.99e-7, 1e-6, 1.2e-5, 3e-4, 1e-3, 0.02, 1.0,
                               5.0, 1234.0])
def test_select_unit_and_trim_as_torch(t):
    assert mb.select_unit(t) == tb.select_unit(t)
    for n in (1, 2, 3, 4):
        assert mb.trim_sigfig(t * 3.14159, n) == tb.trim_sigfig(t * 3.14159, n)
    unit = mb.select_unit(t)[0]
    assert mb.unit_to_english(unit) == tb.unit_to_english(unit)


def test_merge_as_torch():
    a, ta = _pair(10, [1e-5, 2e-5], label="x")
    b, tb_ = _pair(100, [3e-4], label="x")
    c, tc = _pair(10, [4e-5], label="y")
    ours = mb.Measurement.merge([a, b, c])
    theirs = tb.Measurement.merge([ta, tb_, tc])
    assert [(m.number_per_run, m.raw_times, m.label, m.metadata) for m in ours] == \
        [(m.number_per_run, m.raw_times, m.label, m.metadata) for m in theirs]
    assert ours[0].raw_times == pytest.approx([1e-6, 2e-6, 3e-6])


def _measurements(lib, seed, envs=("A", "B"), replicates=2):
    rng = random.Random(seed)
    out = []
    for label in ("mm", "add", None):
        for threads in (1, 2, 8):
            for sub in ("float", "int", None):
                for desc in ("n=1", "n=64", "n=1024"):
                    for env in envs:
                        for _ in range(replicates):
                            scale = rng.choice([1e-7, 1e-5, 3e-3])
                            raw = [rng.uniform(1, rng.choice([1.01, 1.5, 3])) * scale
                                   * (1 + len(desc)) for _ in range(rng.choice([1, 5, 12]))]
                            stmt = "a @ b" if label == "mm" else "a + b"
                            out.append(lib.Measurement(100, raw, lib.TaskSpec(
                                stmt, "pass", label=label, sub_label=sub, description=desc,
                                env=env, num_threads=threads)))
    return out


MODES = [(), ("trim",), ("color",), ("rowcolor",), ("warn",), ("trim", "color", "warn"),
         ("trim", "rowcolor", "warn")]


@pytest.mark.parametrize("modes", MODES, ids=["-".join(m) or "plain" for m in MODES])
@pytest.mark.parametrize("seed,envs", [(1, ("A", "B")), (2, (None,)), (3, ("only",))])
def test_compare_prints_torchs_tables(modes, seed, envs):
    texts = []
    for lib in (mb, tb):
        c = lib.Compare(_measurements(lib, seed, envs)[:-5])  # some cells left empty
        if "trim" in modes:
            c.trim_significant_figures()
        if "color" in modes:
            c.colorize()
        if "rowcolor" in modes:
            c.colorize(rowwise=True)
        if "warn" in modes:
            c.highlight_warnings()
        texts.append(str(c))
    assert texts[0] == texts[1]
    assert "Times are in" in texts[0] and "threads: ---" in texts[0]


def test_compare_extend_and_print(capsys):
    ours = mb.Compare(_measurements(mb, 4)[:20])
    theirs = tb.Compare(_measurements(tb, 4)[:20])
    ours.extend_results(_measurements(mb, 4)[20:40])
    theirs.extend_results(_measurements(tb, 4)[20:40])
    ours.print()
    printed = capsys.readouterr().out
    assert printed == str(theirs) + "\n"
    for bad in ([1], ["m"], [None]):
        with pytest.raises(ValueError) as e:
            mb.Compare(bad)
        with pytest.raises(ValueError) as te:
            tb.Compare(bad)
        assert str(e.value) == str(te.value)
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        ours.extend_results([3.0])


def test_timer_timeit_runs_and_restores_threads():
    before = minitorch.get_num_threads()
    seen = []
    t = mb.Timer("seen.append(torch.get_num_threads()); x + y", setup="y = x * 2",
                 globals={"x": minitorch.ones(3), "seen": seen}, num_threads=2,
                 label="add", sub_label="ones", description="3")
    m = t.timeit(50)
    assert isinstance(m, mb.Measurement)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and m.raw_times[0] > 0
    assert set(seen) == {2} and len(seen) == 50 + 2  # warmup of max(50 // 100, 2)
    assert minitorch.get_num_threads() == before
    assert (m.label, m.sub_label, m.description, m.num_threads, m.stmt, m.setup) == \
        ("add", "ones", "3", 2, "seen.append(torch.get_num_threads()); x + y", "y = x * 2")
    assert m.times[0] == pytest.approx(m.raw_times[0] / 50)


def test_timer_blocked_and_adaptive_autorange():
    before = minitorch.get_num_threads()
    calls = []
    t = mb.Timer("""
        z = minitorch.add(x, 1)
    """, setup="x = torch.zeros(4)", num_threads=1)
    assert t._task_spec.stmt == "z = minitorch.add(x, 1)"
    m = t.blocked_autorange(callback=lambda n, s: calls.append((n, s)), min_run_time=0.02)
    assert m.number_per_run >= 1 and len(m.raw_times) == len(calls) >= 1
    assert all(s > 0 for s in m.raw_times) and sum(m.raw_times) >= 0.02
    assert all(n == m.number_per_run for n, _ in calls)
    assert str(m.number_per_run).strip("0") == "1"  # a power of ten
    a = t.adaptive_autorange(threshold=0.5, min_run_time=0.01, max_run_time=0.5)
    assert a.median > 0 and a.number_per_run >= 1
    assert len(a.raw_times) > 3 or sum(a.raw_times) > 0.5
    assert minitorch.get_num_threads() == before


def test_timer_restores_threads_after_an_error():
    before = minitorch.get_num_threads()
    t = mb.Timer("1 / 0", num_threads=3)
    with pytest.raises(ZeroDivisionError):
        t.timeit(5)
    with pytest.raises(ZeroDivisionError):
        t.blocked_autorange(min_run_time=0.01)
    assert minitorch.get_num_threads() == before


def test_timer_errors_as_torch():
    cases = [
        ({"stmt": 5}, ValueError, "Currently only a `str` stmt is supported."),
        ({"global_setup": "int x;"}, ValueError, "global_setup is C++ only"),
        ({"language": "rust"}, ValueError, "Invalid language `rust`."),
    ]
    for kwargs, exc, msg in cases:
        with pytest.raises(exc) as ours:
            mb.Timer(**kwargs)
        with pytest.raises(exc) as theirs:
            tb.Timer(**kwargs)
        assert str(ours.value) == str(theirs.value) and msg in str(ours.value)
    t, tt = mb.Timer("pass"), tb.Timer("pass")
    for call in (lambda x: x.repeat(3, 10), lambda x: x.autorange()):
        with pytest.raises(NotImplementedError) as ours:
            call(t)
        with pytest.raises(NotImplementedError) as theirs:
            call(tt)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(NotImplementedError, match="Python statements only"):
        mb.Timer("x", language="cpp")
    for language in ("py", "python", mb.Language.PYTHON):
        assert mb.Timer("pass", language=language)._language is mb.Language.PYTHON


def test_public_names_match_torch():
    for name in ("Timer", "Measurement", "Compare", "TaskSpec", "Colorize", "Language",
                 "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
                 "set_torch_threads", "timer"):
        assert hasattr(mb, name) and hasattr(tb, name), name
    assert mb.ordered_unique([3, 1, 3, 2, 1]) == tb.ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]
    before = minitorch.get_num_threads()
    with mb.set_torch_threads(2):
        assert minitorch.get_num_threads() == 2
    assert minitorch.get_num_threads() == before
    assert mb.timer() <= mb.timer()


class _Clock:
    """A deterministic clock: each execution of the statement advances it by
    `step` and each reading by `tick` (the timer's own overhead)."""

    def __init__(self, step, tick):
        self.t, self.step, self.tick = 0.0, step, tick

    def read(self):
        self.t += self.tick
        return self.t


@pytest.mark.parametrize("step,tick", [(1e-6, 1e-9), (3e-4, 1e-8), (2e-8, 5e-9), (0.05, 1e-7)])
def test_autorange_block_sizes_and_times_match_torch(step, tick):
    results = []
    for lib in (mb, tb):
        clock = _Clock(step, tick)
        t = lib.Timer("clock.t += clock.step", timer=clock.read, globals={"clock": clock})
        calls = []
        blocked = t.blocked_autorange(callback=lambda n, s: calls.append((n, s)),
                                      min_run_time=0.1)
        adaptive = t.adaptive_autorange(threshold=0.1, min_run_time=0.01, max_run_time=1.0)
        timed = t.timeit(1000)
        results.append([(m.number_per_run, m.raw_times) for m in (blocked, adaptive, timed)]
                       + [calls])
    assert results[0] == results[1]
    (number, raw), _, _, calls = results[0]
    assert calls == [(number, s) for s in raw]
