"""torch.set_warn_always / is_warn_always_enabled: a warning torch gives once per
process (a plain-method __torch_function__) is given at every call while the
flag is on, as torch does."""
import warnings

import pytest

import minitorch

torch = pytest.importorskip("torch")

LIBS = [minitorch, torch]


@pytest.fixture(autouse=True)
def restore_flag():
    yield
    for lib in LIBS:
        lib.set_warn_always(False)


def plain_method_subclass(lib):
    class Plain(lib.Tensor):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs or {})

    return lib.ones(2).as_subclass(Plain)


def count_warnings(lib, t, calls):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(calls):
            lib.add(t, 1)
    return [str(x.message)[:40] for x in w if "plain method" in str(x.message)]


@pytest.mark.parametrize("calls", [1, 3])
def test_once_by_default_every_time_when_on(calls):
    counts = []
    for lib in LIBS:
        assert lib.is_warn_always_enabled() is False
        t = plain_method_subclass(lib)
        # torch warns once per process, minitorch once per class: after this
        # both are past their one warning
        count_warnings(lib, t, 1)
        again = count_warnings(lib, t, calls)
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled() is True
        always = count_warnings(lib, t, calls)
        lib.set_warn_always(False)
        after = count_warnings(lib, t, calls)
        counts.append((len(again), len(always), len(after)))
    assert counts[0] == counts[1] == (0, calls, 0)


def test_first_call_warns_once():
    t = plain_method_subclass(minitorch)
    assert len(count_warnings(minitorch, t, 3)) == 1
    assert len(count_warnings(minitorch, t, 3)) == 0


def test_flag_round_trip_and_errors():
    for lib in LIBS:
        for value in (True, False, True):
            lib.set_warn_always(value)
            assert lib.is_warn_always_enabled() is value
        for bad in (1, None, "yes", 1.0):
            with pytest.raises(RuntimeError, match="setWarnOnlyOnce expects a bool, but got"):
                lib.set_warn_always(bad)
        assert lib.is_warn_always_enabled() is True
        with pytest.raises(TypeError):
            lib.set_warn_always(b=True)


def test_listed_as_ignored_by_overrides():
    ignored = minitorch.overrides.get_ignored_functions()
    assert minitorch.set_warn_always in ignored
    assert minitorch.is_warn_always_enabled in ignored
