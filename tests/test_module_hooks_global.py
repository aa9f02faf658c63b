"""nn.Module hooks against torch, beyond backward hooks: the global
``register_module_*`` hooks and their order against per-module ones,
``with_kwargs``/``always_call``/``prepend``, registration hooks, state_dict
and load_state_dict hooks, and RemovableHandle.

As in test_module_hooks_backward.py, each scenario runs once per library and
the two records must be equal."""
import pickle
import warnings
import weakref

import pytest

import minitorch

torch = pytest.importorskip("torch")
from side_by_side import errmsg, same as _same, val  # noqa: E402


def same(scenario, *args):
    return _same(torch, scenario, *args)


LIBS = (torch, minitorch)
GLOBALS = ("_global_backward_pre_hooks", "_global_backward_hooks", "_global_forward_pre_hooks",
           "_global_forward_hooks", "_global_forward_hooks_always_called",
           "_global_forward_hooks_with_kwargs", "_global_buffer_registration_hooks",
           "_global_module_registration_hooks", "_global_parameter_registration_hooks")


@pytest.fixture(autouse=True)
def clean_globals():
    """Global hooks outlive a test: every test starts and ends without any."""
    def clear():
        for L in LIBS:
            mod = L.nn.modules.module
            for name in GLOBALS:
                getattr(mod, name).clear()
            mod._global_is_full_backward_hook = None
    clear()
    yield
    clear()


def caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [(x.category.__name__, str(x.message)) for x in w]


def kwarg_model(L):
    class KwargModel(L.nn.Module):
        def forward(self, x, bias=None):
            return x if bias is None else x + bias
    return KwargModel()


# ---- global forward hooks ------------------------------------------------------------------

def test_global_hooks_run_before_module_hooks():
    def run(L):
        log = []
        mm = L.nn.modules.module
        m = L.nn.Sigmoid()
        m.register_forward_pre_hook(lambda mod, a: log.append("local pre"))
        m.register_forward_hook(lambda mod, a, o: log.append("local fwd"), prepend=True)
        m.register_full_backward_pre_hook(lambda mod, go: log.append("local bpre"),
                                          prepend=True)
        m.register_full_backward_hook(lambda mod, gi, go: log.append("local full"),
                                      prepend=True)
        mm.register_module_forward_pre_hook(lambda mod, a: log.append("global pre"))
        mm.register_module_forward_hook(lambda mod, a, o: log.append("global fwd"))
        mm.register_module_full_backward_pre_hook(lambda mod, go: log.append("global bpre"))
        mm.register_module_full_backward_hook(lambda mod, gi, go: log.append(
            ("global full", val(gi), val(go))))
        x = L.tensor([0.0, 1.0], requires_grad=True)
        m(x).sum().backward()
        return log
    assert same(run)[:2] == ["global pre", "local pre"]


def test_global_hooks_reach_every_module_and_remove():
    def run(L):
        mm = L.nn.modules.module
        counts = {"fwd": 0, "bwd": 0}

        def fw(inc, mod, inp, out):
            counts["fwd"] += inc

        def bw(inc, mod, gi, go):
            counts["bwd"] += inc
        mods = [L.nn.Sigmoid() for _ in range(3)]
        x = L.ones(5, 5, requires_grad=True)
        h1 = mm.register_module_forward_hook(lambda *a: fw(1, *a))
        for m in mods:
            m(x)
        h2 = mm.register_module_backward_hook(lambda *a: bw(1, *a))
        outs = [m(x) for m in mods]
        for o in outs:
            o.backward(L.ones(5, 5) * 2, retain_graph=True)
        h3 = mm.register_module_backward_hook(lambda *a: bw(2, *a))
        mods[0](x).backward(L.ones(5, 5))
        snap = dict(counts)
        h3.remove()
        h1.remove()
        mods[1](x).backward(L.ones(5, 5))
        h2.remove()
        mods[2](x).backward(L.ones(5, 5))
        return snap, counts
    same(run)


def test_global_replacements_are_applied():
    def run(L):
        mm = L.nn.modules.module
        mm.register_module_forward_pre_hook(lambda m, inp: L.nn.functional.relu(inp[0]))
        mm.register_module_forward_hook(lambda m, inp, out: -out)
        mm.register_module_backward_hook(lambda m, gi, go: tuple(g * 2 for g in gi))
        x = L.tensor([[-1.0, 0.5], [2.0, -0.25]], requires_grad=True)
        m = L.nn.Sigmoid()
        out, warns = caught(lambda: m(x))
        out.backward(L.ones(2, 2))
        return val(out), val(x.grad), warns
    same(run)


def test_global_backward_kinds_cannot_be_mixed():
    def run(L):
        mm = L.nn.modules.module
        h = mm.register_module_full_backward_hook(lambda *a: None)
        e1 = errmsg(lambda: mm.register_module_backward_hook(lambda *a: None))
        h.remove()
        # the kind stays claimed after removal, as in torch
        e2 = errmsg(lambda: mm.register_module_backward_hook(lambda *a: None))
        return e1, e2
    e1, _ = same(run)
    assert e1[0] == "RuntimeError"


def test_global_legacy_hook_wrong_count():
    def run(L):
        mm = L.nn.modules.module
        out = []
        for fail in (lambda m, gi, go: gi[:-1], lambda m, gi, go: gi + (gi[0],)):
            with mm.register_module_backward_hook(fail):
                out.append(errmsg(lambda: L.nn.Sigmoid()(
                    L.randn(5, 5, requires_grad=True)).sum().backward()))
        return out
    same(run)


# ---- with_kwargs, always_call, prepend --------------------------------------------------

def test_with_kwargs_hooks():
    def run(L):
        log = []
        m = kwarg_model(L)

        def pre(mod, args, kwargs):
            log.append(("pre", len(args), sorted(kwargs)))
            kwargs["bias"] = 2 * kwargs["bias"]
            return args, kwargs

        def post(mod, args, kwargs, out):
            log.append(("post", val(kwargs["bias"])))
            return out + kwargs["bias"]
        hp = m.register_forward_pre_hook(pre, with_kwargs=True)
        hf = m.register_forward_hook(post, with_kwargs=True)
        x, b = L.ones(2, 2), L.ones(2, 2)
        log.append(val(m(x, bias=b)))
        hf.remove()
        log.append((val(m(x, bias=b)), hf.id in m._forward_hooks_with_kwargs))
        hp.remove()
        log.append((val(m(x, bias=b)), hp.id in m._forward_pre_hooks_with_kwargs))
        m.register_forward_pre_hook(lambda mod, a, k: "bad", with_kwargs=True)
        log.append(errmsg(lambda: m(x, bias=b)))
        return log
    same(run)


def test_global_forward_hook_with_kwargs():
    def run(L):
        log = []
        L.nn.modules.module.register_module_forward_hook(
            lambda mod, args, kwargs, out: log.append(sorted(kwargs)) or out * 10,
            with_kwargs=True)
        m = kwarg_model(L)
        return val(m(L.ones(2), bias=L.ones(2))), log
    same(run)


@pytest.mark.parametrize("where", ["forward", "pre_hook", "hook"])
def test_always_call_runs_when_forward_raises(where):
    def run(L, where):
        log = []
        mm = L.nn.modules.module

        class Boom(L.nn.Module):
            def forward(self, x):
                if where == "forward":
                    raise ValueError("forward failed")
                return x * 2

        m = Boom()
        if where == "pre_hook":
            m.register_forward_pre_hook(lambda *a: (_ for _ in ()).throw(
                KeyError("pre failed")))
        mm.register_module_forward_hook(lambda mod, a, o: log.append(("global", val(o))),
                                        always_call=True)
        mm.register_module_forward_hook(lambda mod, a, o: 1 / 0, always_call=True)
        m.register_forward_hook(lambda mod, a, o: log.append(("plain", val(o))))
        m.register_forward_hook(lambda mod, a, k, o: log.append(("kw", sorted(k), val(o))),
                                always_call=True, with_kwargs=True)
        m.register_forward_hook(lambda mod, a, o: log.append(("always", val(o))),
                                always_call=True)
        if where == "hook":
            m.register_forward_hook(lambda *a: (_ for _ in ()).throw(
                IndexError("hook failed")))
        err, warns = caught(lambda: errmsg(lambda: m(L.ones(2), )))
        log.append(err)
        log.append(warns)
        return log
    same(run, where)


def test_prepend_orders_for_every_kind():
    def run(L):
        fired = []
        m = L.nn.Linear(2, 2)
        for i, prepend in enumerate([False, True, False, True, False]):
            m.register_forward_pre_hook(lambda *a, i=i: fired.append(("pre", i)),
                                        prepend=prepend)
            m.register_forward_hook(lambda *a, i=i: fired.append(("fwd", i)), prepend=prepend)
            m.register_full_backward_pre_hook(lambda *a, i=i: fired.append(("bpre", i)),
                                              prepend=prepend)
            m.register_full_backward_hook(lambda *a, i=i: fired.append(("full", i)),
                                          prepend=prepend)
        m(L.ones(1, 2, requires_grad=True)).sum().backward()
        return fired
    fired = same(run)
    assert fired[:5] == [("pre", 3), ("pre", 1), ("pre", 0), ("pre", 2), ("pre", 4)]


def test_hooks_removing_themselves_during_call():
    def run(L):
        m = L.nn.Sigmoid()
        handles = {}

        def pre(mod, inp, k):
            handles[k].remove()
            return inp
        for k in ("a", "b"):
            handles[k] = m.register_forward_pre_hook(lambda mod, inp, k=k: pre(mod, inp, k))
            handles["f" + k] = m.register_forward_hook(
                lambda mod, inp, out, k=k: handles["f" + k].remove())
        before = len(handles["a"].hooks_dict_ref()), len(handles["fa"].hooks_dict_ref())
        out = m(L.zeros(2))
        after = len(handles["a"].hooks_dict_ref()), len(handles["fa"].hooks_dict_ref())
        return before, after, val(out)
    assert same(run)[:2] == ((2, 2), (0, 0))


# ---- registration hooks ---------------------------------------------------------------

@pytest.mark.parametrize("give_back", [False, True])
def test_registration_hooks(give_back):
    def run(L, give_back):
        mm = L.nn.modules.module
        log = []

        def hook(kind):
            def h(module, name, value):
                log.append((kind, type(module).__name__, name, type(value).__name__))
                if value is not None:
                    value.registered = True
                return value if give_back else None
            return h
        handles = [mm.register_module_buffer_registration_hook(hook("buffer")),
                   mm.register_module_parameter_registration_hook(hook("param")),
                   mm.register_module_module_registration_hook(hook("module"))]
        net = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2))
        net.extra = L.nn.ReLU()
        net.extra = None
        net[1].running_mean = L.zeros(2)
        net.add_module("tail", L.nn.Tanh())
        flags = [getattr(p, "registered", False) for p in net.parameters()]
        flags += [getattr(b, "registered", False) for b in net.buffers()]
        for h in handles:
            h.remove()
        net.more = L.nn.ReLU()
        return log, flags
    log, flags = same(run, give_back)
    assert all(flags) and log


def test_registration_hook_replaces_value():
    def run(L):
        mm = L.nn.modules.module
        swap = L.nn.Identity()
        mm.register_module_module_registration_hook(lambda mod, name, sub: swap)
        mm.register_module_buffer_registration_hook(lambda mod, name, b: b * 0 + 7)
        mm.register_module_parameter_registration_hook(
            lambda mod, name, p: L.nn.Parameter(p.detach() * 0 + 3))
        m = L.nn.Module()
        m.child = L.nn.ReLU()
        m.register_buffer("buf", L.ones(2))
        m.w = L.nn.Parameter(L.ones(2))
        return m.child is swap, val(m.buf), val(m.w)
    assert same(run)[0] is True


# ---- state_dict hooks ---------------------------------------------------------------------

def test_state_dict_pre_and_post_hooks():
    def run(L):
        log = []
        net = L.nn.Sequential(L.nn.Linear(2, 1))
        net.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(
            ("outer pre", prefix, keep)))
        net[0].register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(
            ("inner pre", prefix, keep)))

        def post(mod, sd, prefix, meta):
            log.append(("post", prefix, sorted(sd), meta))
            sd["extra"] = 1
        net[0].register_state_dict_post_hook(post)
        sd = net.state_dict(keep_vars=True)
        log.append(sorted(sd))
        net[0].register_state_dict_post_hook(lambda *a: {})
        log.append(errmsg(net.state_dict))
        log.append(errmsg(lambda: net._register_state_dict_hook(post)))
        return log
    same(run)


def test_private_state_dict_hook_can_replace():
    def run(L):
        m = L.nn.Linear(2, 1)
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})
        return m.state_dict()
    assert same(run) == {"only": 1}


# ---- load_state_dict hooks ------------------------------------------------------------------

def test_load_state_dict_pre_hooks():
    def run(L):
        log = []

        class Mod(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.foo = L.nn.Parameter(L.ones(3))

            def bound(self, sd, prefix, meta, strict, missing, unexpected, errors):
                log.append(("bound", prefix, sorted(sd), strict))

        outer = L.nn.Sequential(Mod())
        inner = outer[0]
        sd = outer.state_dict()
        inner._register_load_state_dict_pre_hook(
            lambda sd, prefix, meta, strict, missing, unexpected, errors: log.append(
                ("plain", prefix, sorted(sd), meta.get("version"), missing, unexpected,
                 errors)))
        inner._register_load_state_dict_pre_hook(
            lambda mod, sd, *rest: log.append(("with module", mod is inner, sorted(sd))), True)
        inner.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, *rest: log.append(("public", mod is inner, prefix)))
        inner._register_load_state_dict_pre_hook(inner.bound)
        log.append(repr(outer.load_state_dict(sd)))
        return log
    same(run)


def test_load_state_dict_post_hook():
    def run(L):
        log = []
        nested = L.nn.Linear(2, 2)
        wrapped = L.nn.ModuleList([nested])

        def post(mod, keys):
            log.append((mod is nested, list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.missing_keys.append("foo")
            keys.unexpected_keys.append("bar")
        h = nested.register_load_state_dict_post_hook(post)
        ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)
        log.append((ret.missing_keys, ret.unexpected_keys))
        log.append(errmsg(lambda: wrapped.load_state_dict(wrapped.state_dict())))
        h.remove()
        log.append(repr(wrapped.load_state_dict(wrapped.state_dict(), strict=False)))
        nested.register_load_state_dict_post_hook(
            lambda mod, keys: (keys.missing_keys.clear(), keys.unexpected_keys.clear()) and None)
        sd = wrapped.state_dict()
        sd["extra"] = L.ones(1)
        log.append(repr(wrapped.load_state_dict(sd)))
        nested.register_load_state_dict_post_hook(lambda mod, keys: keys)
        log.append(errmsg(lambda: wrapped.load_state_dict(wrapped.state_dict())))
        return log
    same(run)


# ---- RemovableHandle ---------------------------------------------------------------------

def test_removable_handle_details():
    def run(L):
        m = L.nn.Linear(2, 2)
        h1 = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
        h2 = m.register_forward_pre_hook(lambda *a: None, with_kwargs=True)
        log = [h2.id - h1.id, h1.id in m._forward_hooks_always_called,
               h1.hooks_dict_ref() is m._forward_hooks, len(h1.extra_dict_ref),
               len(h2.extra_dict_ref)]
        h1.remove()
        h1.remove()
        h2.remove()
        log.append((len(m._forward_hooks), len(m._forward_hooks_with_kwargs),
                    len(m._forward_hooks_always_called), len(m._forward_pre_hooks_with_kwargs)))
        with m.register_full_backward_hook(lambda *a: None) as h3:
            log.append((type(h3).__name__, len(m._backward_hooks)))
        log.append(len(m._backward_hooks))
        return log
    same(run)


def _pickled_hook(*args, **kwargs):
    return None


def test_handle_and_module_pickling():
    def run(L):
        m = L.nn.Linear(2, 2)
        h = m.register_forward_hook(_pickled_hook, with_kwargs=True)
        m._register_load_state_dict_pre_hook(_pickled_hook, True)
        m2 = pickle.loads(pickle.dumps(m))
        h2 = pickle.loads(pickle.dumps(h))
        fresh = m.register_forward_pre_hook(_pickled_hook)
        out = [h2.id == h.id, fresh.id > h.id, len(m2._forward_hooks),
               len(m2._load_state_dict_pre_hooks), list(m2._forward_hooks_with_kwargs.values())]
        h2.remove()  # the revived handle owns a copy of the dict: the original keeps its hook
        out.append(len(m._forward_hooks))
        mod_h = next(iter(m2._load_state_dict_pre_hooks.values()))
        out.append(mod_h.module() is m2)
        return out
    same(run)


def test_load_pre_hook_holds_module_weakly():
    def run(L):
        m = L.nn.Linear(2, 2)
        m._register_load_state_dict_pre_hook(_pickled_hook, True)
        ref = weakref.ref(m)
        del m
        import gc
        gc.collect()
        return ref() is None
    assert same(run) is True


def test_module_hook_handle_is_torch_utils_hooks_class():
    m = minitorch.nn.Linear(2, 2)
    h = m.register_forward_hook(lambda *a: None)
    assert type(h) is minitorch.utils.hooks.RemovableHandle
    assert minitorch.nn.modules.module.RemovableHandle is minitorch.utils.hooks.RemovableHandle


@pytest.mark.parametrize("global_full", [True, False])
def test_global_and_module_backward_kinds_combine(global_full):
    def run(L, global_full):
        log = []
        mm = L.nn.modules.module
        if global_full:
            mm.register_module_full_backward_hook(lambda m, gi, go: log.append(("g full",
                                                                                val(gi))))
        else:
            mm.register_module_backward_hook(lambda m, gi, go: log.append(("g legacy", val(gi))))
        a, b = L.nn.Tanh(), L.nn.Sigmoid()
        a.register_backward_hook(lambda m, gi, go: log.append(("a legacy", val(gi))))
        b.register_full_backward_hook(lambda m, gi, go: log.append(("b full", val(gi))))
        x = L.tensor([0.25, -0.5], requires_grad=True)
        _, warns = caught(lambda: b(a(x * 1)).sum().backward())
        log.append(val(x.grad))
        log.append(len(warns))
        return log
    same(run, global_full)
