"""The grad-mode objects (no_grad, enable_grad, set_grad_enabled, inference_mode,
set_multithreading_enabled) as context managers and decorators, against torch.

Each scenario runs once on minitorch and once on torch and logs the modes it
sees (grad mode, inference mode) at every step; the logs must agree, and the
key entries are also asserted outright.
"""
import asyncio
import threading
import warnings

import pytest

import minitorch

torch = pytest.importorskip("torch")

LIBS = [minitorch, torch]


def modes(lib):
    return (lib.is_grad_enabled(), lib.is_inference_mode_enabled())


# (name, factory(lib) -> a fresh context-manager object, the modes inside it
# when entered from the default (grad on, inference off) and from no_grad)
OBJECTS = [
    ("no_grad", lambda lib: lib.no_grad(), (False, False), (False, False)),
    ("enable_grad", lambda lib: lib.enable_grad(), (True, False), (True, False)),
    ("set_grad_enabled(False)", lambda lib: lib.set_grad_enabled(False), (False, False),
     (False, False)),
    ("set_grad_enabled(True)", lambda lib: lib.set_grad_enabled(True), (True, False),
     (True, False)),
    ("inference_mode()", lambda lib: lib.inference_mode(), (False, True), (False, True)),
    ("inference_mode(True)", lambda lib: lib.inference_mode(True), (False, True), (False, True)),
    # inference_mode(False) turns grad mode back on, even inside no_grad
    ("inference_mode(False)", lambda lib: lib.inference_mode(False), (True, False),
     (True, False)),
]
OBJECT_IDS = [o[0] for o in OBJECTS]

# the objects usable as a bare decorator (@no_grad)
BARE = [
    ("no_grad", lambda lib: lib.no_grad, (False, False)),
    ("enable_grad", lambda lib: lib.enable_grad, (True, False)),
    ("inference_mode", lambda lib: lib.inference_mode, (False, True)),
]


def both(scenario, *args):
    """Runs scenario on minitorch and torch; their logs must agree."""
    logs = []
    for lib in LIBS:
        prev = lib.is_grad_enabled()
        try:
            logs.append(scenario(lib, *args))
        finally:
            lib._C._set_grad_enabled(prev)
        assert modes(lib) == (prev, False), f"{lib.__name__} leaked a mode"
    assert logs[0] == logs[1], f"minitorch {logs[0]} != torch {logs[1]}"
    return logs[0]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
@pytest.mark.parametrize("outer", ["default", "no_grad"])
def test_context_manager(name, make, inside, inside_no_grad, outer):
    def scenario(lib):
        log = []
        lib._C._set_grad_enabled(outer == "default")
        log.append(modes(lib))
        with make(lib):
            log.append(modes(lib))
        log.append(modes(lib))
        return log

    log = both(scenario)
    expected_inside = inside if outer == "default" else inside_no_grad
    assert log[1] == expected_inside
    assert log[2] == log[0] == (outer == "default", False)


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_context_manager_restores_after_exception(name, make, inside, inside_no_grad):
    def scenario(lib):
        log = []
        with pytest.raises(KeyError, match="boom"):
            with make(lib):
                log.append(modes(lib))
                raise KeyError("boom")
        log.append(modes(lib))
        return log

    assert both(scenario) == [inside, (True, False)]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_function(name, make, inside, inside_no_grad):
    def scenario(lib):
        log = []

        @make(lib)
        def f(a, b=2):
            """doc of f"""
            log.append(modes(lib))
            return a * b

        # the decorator changes nothing by being applied
        log.append(modes(lib))
        log.append(f(3, b=5))
        log.append(modes(lib))
        log.append((f.__name__, f.__doc__))
        lib._C._set_grad_enabled(False)
        f(1)
        log.append(modes(lib))
        return log

    log = both(scenario)
    assert log[0] == (True, False)
    assert log[1] == inside and log[2] == 15 and log[3] == (True, False)
    assert log[4] == ("f", "doc of f")
    assert log[5] == inside_no_grad and log[6] == (False, False)


@pytest.mark.parametrize("name,make,inside", BARE, ids=[b[0] for b in BARE])
def test_bare_decorator(name, make, inside):
    def scenario(lib):
        log = []

        @make(lib)
        def f(x):
            log.append(modes(lib))
            return x + 1

        log.append(modes(lib))
        log.append(f(41))
        log.append(modes(lib))
        log.append(type(f).__name__)
        return log

    assert both(scenario) == [(True, False), inside, 42, (True, False), "function"]


@pytest.mark.parametrize("name,make,inside", BARE, ids=[b[0] for b in BARE])
def test_bare_decorator_called_as_function(name, make, inside):
    # no_grad(fn) is the same as no_grad()(fn)
    def scenario(lib):
        seen = []
        wrapped = make(lib)(lambda: seen.append(modes(lib)) or "r")
        return [wrapped(), seen, modes(lib)]

    assert both(scenario) == ["r", [inside], (True, False)]


@pytest.mark.parametrize("name,make,inside", BARE, ids=[b[0] for b in BARE])
def test_bare_decorator_on_generator(name, make, inside):
    def scenario(lib):
        log = []

        @make(lib)
        def gen(n):
            for i in range(n):
                log.append(("body", i, modes(lib)))
                yield i
            return "done"

        out = []
        for v in gen(2):
            out.append((v, modes(lib)))
        return log + out

    assert both(scenario) == [("body", 0, inside), ("body", 1, inside),
                              (0, (True, False)), (1, (True, False))]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_generator_send_and_return(name, make, inside, inside_no_grad):
    def scenario(lib):
        log = []

        @make(lib)
        def gen(start):
            total = start
            while total < 10:
                log.append(("body", modes(lib)))
                got = yield total
                total += got if got is not None else 1
            return total * 100

        g = gen(1)
        log.append(("made", modes(lib)))  # nothing ran yet
        log.append(("first", next(g), modes(lib)))
        lib._C._set_grad_enabled(False)
        log.append(("send", g.send(4), modes(lib)))
        lib._C._set_grad_enabled(True)
        with pytest.raises(StopIteration) as stop:
            g.send(20)
        log.append(("return", stop.value.value, modes(lib)))
        return log

    log = both(scenario)
    assert log[0] == ("made", (True, False))
    assert log[1] == ("body", inside)
    assert log[2] == ("first", 1, (True, False))
    # the generator's body keeps the decorator's mode whatever the caller's
    assert log[3] == ("body", inside_no_grad)
    assert log[4] == ("send", 5, (False, False))
    assert log[5] == ("return", 2500, (True, False))


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_generator_throw(name, make, inside, inside_no_grad):
    def scenario(lib):
        log = []

        @make(lib)
        def gen():
            while True:
                try:
                    yield "value"
                except ValueError as e:
                    log.append(("caught", str(e), modes(lib)))
                    yield "recovered"
                except KeyError:
                    log.append(("reraise", modes(lib)))
                    raise

        g = gen()
        next(g)
        log.append(("throw", g.throw(ValueError("v")), modes(lib)))
        next(g)
        with pytest.raises(KeyError):
            g.throw(KeyError("k"))
        log.append(("after", modes(lib)))
        return log

    assert both(scenario) == [("caught", "v", inside), ("throw", "recovered", (True, False)),
                              ("reraise", inside), ("after", (True, False))]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_generator_close(name, make, inside, inside_no_grad):
    def scenario(lib):
        log = []

        @make(lib)
        def gen():
            try:
                yield 1
                yield 2
            finally:
                log.append(("finally", modes(lib)))

        g = gen()
        next(g)
        g.close()
        log.append(("closed", modes(lib)))
        with pytest.raises(StopIteration):
            next(g)
        return log

    assert both(scenario) == [("finally", inside), ("closed", (True, False))]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_generator_raising(name, make, inside, inside_no_grad):
    def scenario(lib):
        @make(lib)
        def gen():
            yield modes(lib)
            raise RuntimeError("inside gen")

        g = gen()
        first = next(g)
        with pytest.raises(RuntimeError, match="inside gen"):
            next(g)
        return [first, modes(lib)]

    assert both(scenario) == [inside, (True, False)]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_coroutine(name, make, inside, inside_no_grad):
    # torch wraps only the call that makes the coroutine: its body runs in
    # the mode of whoever awaits it
    def scenario(lib):
        log = []

        @make(lib)
        async def coro(x):
            log.append(("body", modes(lib)))
            await asyncio.sleep(0)
            log.append(("resumed", modes(lib)))
            return x * 2

        c = coro(21)
        log.append(("made", modes(lib)))
        log.append(("result", asyncio.run(c), modes(lib)))
        return log

    assert both(scenario) == [("made", (True, False)), ("body", (True, False)),
                              ("resumed", (True, False)), ("result", 42, (True, False))]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_method(name, make, inside, inside_no_grad):
    def scenario(lib):
        class Model:
            def __init__(self):
                self.seen = []

            @make(lib)
            def forward(self, x):
                self.seen.append(modes(lib))
                return x - 1

            @staticmethod
            @make(lib)
            def static(x):
                return modes(lib), x

        m = Model()
        return [m.forward(3), m.seen, Model.static(7), modes(lib)]

    assert both(scenario) == [2, [inside], (inside, 7), (True, False)]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorated_function_raising(name, make, inside, inside_no_grad):
    def scenario(lib):
        @make(lib)
        def f():
            raise ZeroDivisionError(str(modes(lib)))

        with pytest.raises(ZeroDivisionError) as e:
            f()
        return [str(e.value), modes(lib)]

    assert both(scenario) == [str(inside), (True, False)]


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_decorating_a_class_warns(name, make, inside, inside_no_grad):
    def scenario(lib):
        class Thing:
            def __init__(self):
                self.made_in = modes(lib)

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            Wrapped = make(lib)(Thing)
        obj = Wrapped()
        return [[(x.category.__name__, str(x.message)[:40]) for x in w], type(obj).__name__,
                obj.made_in, modes(lib), callable(Wrapped), isinstance(Wrapped, type)]

    log = both(scenario)
    assert log[0] == [("FutureWarning", "Decorating classes is deprecated and wil")]
    assert log[1:] == ["Thing", inside, (True, False), True, False]


def test_nested_objects():
    def scenario(lib):
        log = []
        with lib.no_grad():
            log.append(modes(lib))
            with lib.enable_grad():
                log.append(modes(lib))
                with lib.inference_mode():
                    log.append(modes(lib))
                    with lib.inference_mode(False):
                        log.append(modes(lib))
                        with lib.set_grad_enabled(False):
                            log.append(modes(lib))
                        log.append(modes(lib))
                    log.append(modes(lib))
                    with lib.enable_grad():
                        # grad mode can come back inside inference mode
                        log.append(modes(lib))
                    log.append(modes(lib))
                log.append(modes(lib))
            log.append(modes(lib))
        log.append(modes(lib))
        return log

    assert both(scenario) == [
        (False, False), (True, False), (False, True), (True, False), (False, False),
        (True, False), (False, True), (True, True), (False, True), (True, False),
        (False, False), (True, False)]


def test_nested_decorated_functions():
    def scenario(lib):
        log = []

        @lib.enable_grad
        def inner():
            log.append(("inner", modes(lib)))

        @lib.inference_mode
        def middle():
            log.append(("middle", modes(lib)))
            inner()
            log.append(("middle after", modes(lib)))

        @lib.no_grad()
        def outer():
            log.append(("outer", modes(lib)))
            middle()
            log.append(("outer after", modes(lib)))

        outer()
        return log

    assert both(scenario) == [("outer", (False, False)), ("middle", (False, True)),
                              ("inner", (True, True)), ("middle after", (False, True)),
                              ("outer after", (False, False))]


def test_same_decorated_function_recursive():
    # each call gets its own clone: inner exits do not undo outer entries
    def scenario(lib):
        log = []

        @lib.set_grad_enabled(False)
        def f(n):
            log.append((n, modes(lib)))
            if n:
                with lib.enable_grad():
                    f(n - 1)
                    log.append((n, "after inner", modes(lib)))

        f(2)
        return log + [modes(lib)]

    assert both(scenario) == [(2, (False, False)), (1, (False, False)), (0, (False, False)),
                              (1, "after inner", (True, False)),
                              (2, "after inner", (True, False)), (True, False)]


@pytest.mark.parametrize("mode", [False, True])
@pytest.mark.parametrize("start", [False, True])
def test_set_grad_enabled_sets_at_once(mode, start):
    def scenario(lib):
        lib._C._set_grad_enabled(start)
        obj = lib.set_grad_enabled(mode)
        log = [modes(lib)]
        with obj:
            log.append(modes(lib))
        log.append(modes(lib))
        return log

    assert both(scenario) == [(mode, False), (mode, False), (start, False)]


@pytest.mark.parametrize("mode", [False, True])
def test_set_grad_enabled_as_decorator_restores_at_once(mode):
    def scenario(lib):
        lib._C._set_grad_enabled(not mode)

        @lib.set_grad_enabled(mode)
        def f():
            return modes(lib)

        return [modes(lib), f(), modes(lib)]

    assert both(scenario) == [(not mode, False), (mode, False), (not mode, False)]


def test_set_grad_enabled_repr_and_errors():
    obj = minitorch.set_grad_enabled(False)
    minitorch.set_grad_enabled(True)
    assert repr(obj) == str(obj) == "minitorch.autograd.grad_mode.set_grad_enabled(mode=False)"
    assert obj.mode is False
    for lib in LIBS:
        with pytest.raises(TypeError):
            lib.set_grad_enabled()
        with pytest.raises(TypeError):
            lib.no_grad(1, 2)
    assert minitorch.is_grad_enabled()


@pytest.mark.parametrize("name,make,inside,inside_no_grad", OBJECTS, ids=OBJECT_IDS)
def test_clone(name, make, inside, inside_no_grad):
    def scenario(lib):
        obj = make(lib)
        lib._C._set_grad_enabled(True)  # set_grad_enabled set it when made
        copy = obj.clone()
        lib._C._set_grad_enabled(True)
        log = [type(copy) is type(obj), copy is not obj, getattr(copy, "mode", None)]
        with copy:
            log.append(modes(lib))
        with obj:
            log.append(modes(lib))
        log.append(modes(lib))
        return log

    log = both(scenario)
    assert log[:2] == [True, True]
    assert log[3] == log[4] == inside and log[5] == (True, False)


def test_inference_mode_argument_forms():
    def scenario(lib):
        log = []

        @lib.inference_mode(mode=False)
        def off():
            return modes(lib)

        with lib.inference_mode():
            log.append(off())
        log.append(lib.inference_mode(mode=True).mode)
        log.append(isinstance(lib.inference_mode(), lib.inference_mode))
        log.append(callable(lib.inference_mode(lambda: 1)))
        return log

    assert both(scenario) == [(True, False), True, True, True]


def test_inference_mode_turns_forward_ad_off():
    import minitorch.autograd.forward_ad as mt_fw
    import torch.autograd.forward_ad as t_fw

    def scenario(lib, fw):
        log = []
        with fw.dual_level():
            log.append(lib._C._is_fwd_grad_enabled())
            with lib.inference_mode():
                log.append(lib._C._is_fwd_grad_enabled())
                with lib.inference_mode(False):
                    log.append(lib._C._is_fwd_grad_enabled())
                log.append(lib._C._is_fwd_grad_enabled())
            log.append(lib._C._is_fwd_grad_enabled())
        return log

    assert scenario(minitorch, mt_fw) == scenario(torch, t_fw) == [True, False, True, False, True]


def test_grad_recording_under_each_object():
    for name, make, inside, _ in OBJECTS:
        x = minitorch.ones(3, requires_grad=True)
        with make(minitorch):
            y = x * 2
        minitorch._C._set_grad_enabled(True)
        assert y.requires_grad is inside[0], name
        assert (y.grad_fn is None) is (not inside[0]), name


def test_modes_are_thread_local():
    def scenario(lib):
        seen = {}

        def worker():
            seen["worker"] = modes(lib)

        with lib.no_grad():
            t = threading.Thread(target=worker)
            t.start()
            t.join()
            seen["main"] = modes(lib)
        with lib.inference_mode():
            t = threading.Thread(target=worker)
            t.start()
            t.join()
        return seen

    assert both(scenario) == {"worker": (True, False), "main": (False, False)}


@pytest.mark.parametrize("first", [False, True])
def test_set_multithreading_enabled(first):
    def scenario(lib):
        log = [lib.autograd.is_multithreading_enabled()]
        obj = lib.autograd.set_multithreading_enabled(first)
        log.append(lib.autograd.is_multithreading_enabled())
        with obj:
            log.append(lib.autograd.is_multithreading_enabled())
        log.append(lib.autograd.is_multithreading_enabled())

        @lib.autograd.grad_mode.set_multithreading_enabled(not first)
        def f():
            return lib.autograd.is_multithreading_enabled()

        log.append(f())
        log.append(lib.autograd.is_multithreading_enabled())
        log.append(obj.clone().mode)
        lib.autograd.set_multithreading_enabled(True)
        return log

    log = both(scenario)
    assert log[:4] == [True, first, first, True]
    assert log[4] == (not first) and log[6] == first


def test_public_names():
    for lib in LIBS:
        for name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
                     "set_multithreading_enabled"):
            assert name in lib.autograd.grad_mode.__all__
            assert hasattr(lib.autograd, name)
        assert lib.no_grad is lib.autograd.no_grad
        assert lib.inference_mode is lib.autograd.grad_mode.inference_mode
