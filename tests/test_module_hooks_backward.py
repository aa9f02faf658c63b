"""nn.Module backward hooks against torch: register_full_backward_hook,
register_full_backward_pre_hook and the legacy register_backward_hook.

Every scenario is written once against a library ``L`` (torch or minitorch),
records what the hooks saw as plain Python data, and the two records must be
equal: grad_input/grad_output values and None positions, call order and
counts, replaced gradients, and the text of errors and warnings."""
import warnings

import pytest


torch = pytest.importorskip("torch")
from side_by_side import both as _both, errmsg, same as _same, val  # noqa: E402


def same(scenario, *args):
    return _same(torch, scenario, *args)


def both(scenario, *args):
    return _both(torch, scenario, *args)


def linear(L, n_in=3, n_out=2, bias=True):
    m = L.nn.Linear(n_in, n_out, bias=bias)
    with L.no_grad():
        m.weight.copy_(L.arange(n_in * n_out, dtype=L.float32).reshape(n_out, n_in) / 10 - 0.2)
        if bias:
            m.bias.copy_(L.arange(n_out, dtype=L.float32) - 0.5)
    return m


# ---- full backward hooks: values, order, counts --------------------------------------

@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 3)])
def test_full_hook_sees_linear_grads(shape):
    def run(L, shape):
        log = []
        m = linear(L)
        m.register_full_backward_hook(lambda mod, gi, go: log.append(
            ("full", mod is m, val(gi), val(go))))
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", val(go))))
        n = 1
        for s in shape:
            n *= s
        x = (L.arange(n, dtype=L.float32).reshape(shape) / 7).requires_grad_()
        out = m(x)
        log.append(("fwd grad_fn", out.grad_fn is not None))
        (out * L.arange(2, dtype=L.float32)).sum().backward()
        log.append(("x.grad", val(x.grad)))
        return log
    log = same(run, shape)
    assert [e[0] for e in log] == ["fwd grad_fn", "pre", "full", "x.grad"]


def test_order_prepend_and_counts():
    def run(L):
        fired = []
        m = L.nn.Sequential(linear(L), L.nn.ReLU(), linear(L, 2, 2))
        for i, prepend in enumerate([False, False, True, False, True]):
            m.register_full_backward_hook(
                lambda mod, gi, go, i=i: fired.append(("full", i)), prepend=prepend)
            m.register_full_backward_pre_hook(
                lambda mod, go, i=i: fired.append(("pre", i)), prepend=not prepend)
        x = L.ones(2, 3, requires_grad=True)
        out = m(x)
        fired.append("forward done")
        out.sum().backward()
        m(x).sum().backward()
        return fired
    fired = same(run)
    assert fired.count(("full", 0)) == 2 and fired[0] == "forward done"


def test_nested_modules_fire_inner_last_in_backward():
    def run(L):
        fired = []
        inner = linear(L, 3, 3)
        outer = L.nn.Sequential(inner, L.nn.Tanh())
        for name, mod in (("inner", inner), ("outer", outer), ("tanh", outer[1])):
            mod.register_full_backward_pre_hook(
                lambda m, go, name=name: fired.append((name, "pre", val(go))))
            mod.register_full_backward_hook(
                lambda m, gi, go, name=name: fired.append((name, "full", val(gi))))
        outer(L.ones(1, 3, requires_grad=True)).sum().backward()
        return fired
    same(run)


def test_retain_graph_fires_each_backward():
    def run(L):
        count = [0, 0]
        m = L.nn.Sigmoid()
        m.register_full_backward_hook(lambda *a: count.__setitem__(0, count[0] + 1))
        m.register_full_backward_pre_hook(lambda *a: count.__setitem__(1, count[1] + 1))
        out = m(L.ones(5, 5, requires_grad=True))
        out.backward(L.ones(5, 5) * 2, retain_graph=True)
        out.backward(L.ones(5, 5) * 2, retain_graph=True)
        return count
    assert same(run) == [2, 2]


# ---- replacements and their checks --------------------------------------------------

@pytest.mark.parametrize("factor", [0.0, 2.0, -1.5])
def test_pre_hook_replacement_reaches_input_and_full_hook(factor):
    def run(L, factor):
        log = []
        m = linear(L)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * factor,))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(val(go)))
        a = L.ones(2, 3, requires_grad=True)
        m(a).sum().backward()
        log.append(val(a.grad))
        return log
    same(run, factor)


def test_full_hook_replacement_is_chained():
    def run(L):
        log = []
        m = L.nn.Sigmoid()
        m.register_full_backward_hook(lambda mod, gi, go: tuple(g * 2 for g in gi))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(val(gi)))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
        x = L.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
        m(x).backward(L.ones(2, 2))
        log.append(val(x.grad))
        return log
    same(run)


@pytest.mark.parametrize("kind,ret", [
    ("full", lambda gi, go: gi[:-1]),
    ("full", lambda gi, go: gi + (None,)),
    ("pre", lambda gi, go: ()),
    ("pre", lambda gi, go: go + (go[0],)),
])
def test_wrong_number_of_gradients_is_an_error(kind, ret):
    def run(L):
        m = L.nn.Sigmoid()
        if kind == "full":
            m.register_full_backward_hook(lambda mod, gi, go: ret(gi, go))
        else:
            m.register_full_backward_pre_hook(lambda mod, go: ret(None, go))
        return errmsg(lambda: m(L.randn(5, 5, requires_grad=True)).sum().backward())
    assert same(run)[0] == "RuntimeError"


# ---- None entries: non-tensors, inputs without grad, unused outputs -----------------------

def test_non_tensor_input_and_output_are_none():
    def run(L):
        log = []

        class M(L.nn.Module):
            def forward(self, flag, t, scale=1.0):
                return t.clone() * scale, flag

        m = M()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", val(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", val(gi), val(go))))
        x = L.tensor([1.0, 2.0], requires_grad=True)
        out, flag = m(True, x, scale=3.0)
        log.append(("flag", flag))
        out.sum().backward()
        log.append(val(x.grad))
        return log
    same(run)


def test_tensor_input_without_grad_gets_zeros():
    def run(L):
        log = []

        class M(L.nn.Module):
            def forward(self, a, b, c):
                return a * b, b * c

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append((val(gi), val(go))))
        a = L.ones(2, requires_grad=True)
        o1, o2 = m(a, L.ones(2) * 3, 5)
        log.append((o1.grad_fn.name(), o2.grad_fn is None, o2.requires_grad))
        o1.sum().backward()
        return log
    same(run)


def test_unused_output_grad_is_none():
    def run(L):
        log = []

        class Split(L.nn.Module):
            def forward(self, x):
                return x * 2, x * 3

        m = Split()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", val(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", val(gi), val(go))))
        x = L.tensor([1.0, -1.0], requires_grad=True)
        a, b = m(x)
        b.sum().backward()
        log.append(val(x.grad))
        return log
    same(run)


@pytest.mark.parametrize("return_val", ["None", "grad_input", "all_none", "invalid"])
def test_no_input_requires_grad(return_val):
    def run(L, return_val):
        log = []
        m = linear(L, 2, 3)
        inp = L.ones(1, 2)

        def hook(mod, gi, go):
            log.append((val(gi), val(go)))
            return {"None": None, "grad_input": gi, "all_none": (None,),
                    "invalid": inp}[return_val]
        m.register_full_backward_hook(hook)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            log.append(errmsg(lambda: m(inp).sum().backward()))
        log.append([(x.category.__name__, str(x.message)) for x in w])
        log.append(val(m.weight.grad))
        return log
    same(run, return_val)


def test_requires_grad_of_inputs_is_kept():
    def run(L):
        seen = []

        class M(L.nn.Module):
            def forward(self, a, b, c):
                seen.append((a.requires_grad, b.requires_grad, c.requires_grad))
                return a.sum() + b.sum() + c.sum()
        inp = L.rand(2, requires_grad=True)
        m = M()
        m(inp, inp.detach(), inp)
        m.register_full_backward_hook(lambda mod, gi, go: None)
        m(inp, inp.detach(), inp)
        l1 = L.nn.L1Loss()
        l1.register_full_backward_hook(lambda *a: seen.append("l1"))
        l1(inp.detach(), inp).backward()
        return seen
    same(run)


# ---- grad modes and outputs hooks cannot see ----------------------------------------------

def test_no_grad_forward_sets_up_nothing():
    def run(L):
        fired = []
        m = linear(L)
        m.register_full_backward_hook(lambda *a: fired.append("full"))
        m.register_full_backward_pre_hook(lambda *a: fired.append("pre"))
        x = L.ones(2, 3, requires_grad=True)
        with L.no_grad():
            out = m(x)
        fired.append((out.requires_grad, out.grad_fn is None))
        m(x).sum().backward()
        return fired
    assert same(run) == [(False, True), "pre", "full"]


def test_dict_output_warns_and_hooks_do_not_fire():
    def run(L):
        counter = {"forward": 0, "backward": 0}

        class M(L.nn.Module):
            def forward(self, d):
                return {"x": L.nn.functional.softmax(d["x"], dim=0)}

        m = M()
        m.register_forward_pre_hook(lambda *a: counter.__setitem__("forward",
                                                                   counter["forward"] + 1))
        m.register_forward_hook(lambda *a: counter.__setitem__("forward",
                                                               counter["forward"] + 1))
        bump = lambda *a: counter.__setitem__("backward", counter["backward"] + 1)  # noqa: E731
        m.register_full_backward_pre_hook(bump)
        m.register_full_backward_hook(bump)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m({"x": L.ones(2, requires_grad=True)})["x"].sum().backward()
        msgs = [(x.category.__name__, str(x.message).replace("torch.", "T.")
                 .replace("minitorch.", "T.")) for x in w]
        return counter, msgs
    counter, msgs = same(run)
    assert counter == {"forward": 2, "backward": 0} and len(msgs) == 1


# ---- in-place changes to what the hooks wrap ---------------------------------------------

@pytest.mark.parametrize("register", ["full", "pre"])
def test_inplace_on_wrapped_tensors_is_an_error(register):
    def run(L, register):
        log = []

        class M(L.nn.Module):
            def forward(self, inp, do_inplace):
                self.inp = inp
                if do_inplace:
                    inp += 1
                return inp.clone()

        m = M()
        if register == "full":
            m.register_full_backward_hook(lambda *a: log.append("hook"))
        else:
            m.register_full_backward_pre_hook(lambda *a: log.append("hook"))
        inp = L.rand(10, requires_grad=True)
        m(inp, False).sum().backward()
        log.append(errmsg(lambda: m(inp.clone(), True)))
        local = inp.clone()
        m(local, False)
        local[0] *= 1
        log.append(errmsg(lambda: m.inp + 2))
        out = m(inp, False)

        def add_inplace():
            nonlocal out
            out += 1
        log.append(errmsg(add_inplace))
        return log
    log = same(run, register)
    assert log[0] == "hook" and all(e[0] == "RuntimeError" for e in log[1:])


# ---- legacy register_backward_hook -------------------------------------------------------

def test_legacy_hook_values_and_replacement():
    def run(L):
        log = []
        m = L.nn.Sigmoid()
        x = L.tensor([[0.3, -0.7], [1.5, 0.0]], requires_grad=True)

        def hook(mod, gi, go):
            log.append((mod is m, val(gi), val(go)))
            return tuple(g * 2 for g in gi)
        m.register_backward_hook(hook)
        m(x).backward(L.ones(2, 2) * 3)
        log.append(val(x.grad))
        return log
    same(run)


@pytest.mark.parametrize("ret", [lambda gi: gi[:-1], lambda gi: gi + (gi[0],)])
def test_legacy_hook_wrong_count(ret):
    def run(L):
        m = L.nn.Sigmoid()

        def bw_fail(mod, gi, go):
            return ret(gi)
        with m.register_backward_hook(bw_fail):
            return errmsg(lambda: m(L.randn(5, 5, requires_grad=True)).sum().backward())
    assert "incorrect number of values" in same(run)[1]


def test_full_and_legacy_cannot_be_mixed():
    def run(L):
        a, b = L.nn.ReLU(), L.nn.ReLU()
        a.register_full_backward_hook(lambda *x: None)
        b.register_backward_hook(lambda *x: None)
        h = a.register_full_backward_pre_hook(lambda *x: None)  # pre-hooks mix with either
        h.remove()
        return [errmsg(lambda: a.register_backward_hook(lambda *x: None)),
                errmsg(lambda: b.register_full_backward_hook(lambda *x: None))]
    log = same(run)
    assert log[0][0] == "RuntimeError"


def test_legacy_hook_warnings():
    def run(L):
        a = L.rand(2, requires_grad=True)
        b = L.rand(2, requires_grad=True)

        class ListIn(L.nn.Module):
            def forward(self, pair):
                return pair[0].clone(), pair[1].clone()

        class ListOut(L.nn.Module):
            def forward(self, x, y):
                return [x.clone(), y.clone()]

        class TwoNodes(L.nn.Module):
            def forward(self, x, y):
                return x.clone(), y.clone()

        class Chain(L.nn.Module):
            def forward(self, x):
                return x.clone().clone()

        class Fine(L.nn.Module):
            def forward(self, x):
                return x.clone()

        log = []
        for cls, args in ((ListIn, ([a, b],)), (ListOut, (a, b)), (TwoNodes, (a, b)),
                          (Chain, (a,)), (Fine, (a * 1,))):
            m = cls()
            m.register_backward_hook(lambda *x: None)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                m(*args)
            log.append([(x.category.__name__, str(x.message)) for x in w])
        return log
    log = same(run)
    assert [len(entry) for entry in log] == [1, 1, 1, 1, 0]


def test_keyword_tensors_are_not_in_grad_input():
    def run(L):
        log = []

        class M(L.nn.Module):
            def forward(self, x, bias=None):
                return x * 2 + bias

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append((val(gi), val(go))))
        x = L.tensor([1.0, 2.0], requires_grad=True)
        bias = L.tensor([0.5, 0.5], requires_grad=True)
        m(x, bias=bias).sum().backward()
        log.append((val(x.grad), val(bias.grad)))
        return log
    same(run)


def test_forward_hook_output_is_what_backward_hooks_wrap():
    def run(L):
        log = []
        m = linear(L)
        m.register_forward_hook(lambda mod, args, out: (out, out * 3, "tag"))
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", val(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", val(gi))))
        a, b, tag = m(L.ones(1, 3, requires_grad=True))
        (a.sum() + b.sum()).backward()
        log.append(tag)
        return log
    same(run)


def test_dead_module_hook_is_an_error():
    def run(L):
        m = L.nn.Linear(2, 2)
        m._register_load_state_dict_pre_hook(lambda *a: None, True)
        hook = next(iter(m._load_state_dict_pre_hooks.values()))
        del m
        import gc
        gc.collect()
        return errmsg(lambda: hook({}, "", {}, True, [], [], []))
    assert same(run)[0] == "RuntimeError"


def test_double_backward_fires_hooks_once():
    def run(L):
        log = []
        m = L.nn.Tanh()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", val(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", val(gi))))
        x = L.tensor([0.5, -1.0], requires_grad=True)
        (g,) = L.autograd.grad(m(x).sum(), x, create_graph=True)
        log.append(("g", val(g)))
        g.sum().backward()
        log.append(("x.grad", val(x.grad)))
        return log
    same(run)


@pytest.mark.parametrize("make", [lambda L: L.nn.Identity(), lambda L: L.nn.Dropout(0.5).eval(),
                                  lambda L: L.nn.Flatten(0)])
def test_module_returning_its_input_or_a_view(make):
    def run(L):
        log = []
        m = make(L)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
        m.register_full_backward_hook(lambda mod, gi, go: log.append((val(gi), val(go))))
        x = L.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        out = m(x)
        (out * L.arange(out.numel(), dtype=L.float32).reshape(out.shape)).sum().backward()
        log.append(val(x.grad))
        return log
    same(run)


@pytest.mark.parametrize("shape", ["dict out", "list in"])
def test_legacy_hook_warns_when_it_cannot_see_the_whole_module(shape):
    def scenario(L):
        class DictOut(L.nn.Module):
            def forward(self, x):
                return {"a": x * 2}

        class ListIn(L.nn.Module):
            def forward(self, x):
                return x[0] * 2
        x = L.ones(2, requires_grad=True)
        mod, arg = (DictOut(), x) if shape == "dict out" else (ListIn(), [x])
        mod.register_backward_hook(lambda *a: None)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            mod(arg)
        return [(w.category.__name__, str(w.message)) for w in seen]
    assert _same(torch, scenario)
