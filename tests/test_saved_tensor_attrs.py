"""grad_fn._saved_<name> / _raw_saved_<name> (SavedTensor objects), a custom
Function node's _raw_saved_tensors, and torch._C._autograd's saved-tensor
entry points, each scenario run on torch and on minitorch side by side."""
import warnings

import pytest

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")


def dtype_name(d):
    return str(d).split(".")[-1]


def ident(x):
    return x


# ---------------------------------------------------------------- names and values

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3,), (2, 3), ()])
def test_saved_values_of_builtin_nodes(dtype, shape):
    def scenario(L):
        dt = getattr(L, dtype)
        a = (L.arange(1, 1 + L.zeros(shape).numel(), dtype=dt).reshape(shape) / 4 + 0.25)
        a.requires_grad_()
        b = (a.detach() + 1).requires_grad_()
        c = a.detach() * 2
        out = []
        y = a.exp()
        out.append(("exp", val(y.grad_fn._saved_result), y.grad_fn._saved_result.grad_fn is y.grad_fn,
                    dtype_name(y.grad_fn._saved_result.dtype)))
        y = a.tanh()
        out.append(("tanh", val(y.grad_fn._saved_result)))
        y = a.sigmoid()
        out.append(("sigmoid", val(y.grad_fn._saved_result)))
        out.append(("sin", a.sin().grad_fn._saved_self is a, a.log().grad_fn._saved_self is a))
        y = a * b
        out.append(("mul", y.grad_fn._saved_self is a, y.grad_fn._saved_other is b))
        y = a ** 2
        out.append(("pow", type(y.grad_fn).__name__, y.grad_fn._saved_exponent,
                    y.grad_fn._saved_self is a))
        y = a ** 2.5
        out.append(("pow2.5", y.grad_fn._saved_exponent))
        y = a ** b
        out.append(("powt", type(y.grad_fn).__name__, y.grad_fn._saved_self is a,
                    y.grad_fn._saved_exponent is b, val(y.grad_fn._saved_result)))
        y = a / b
        out.append(("div", y.grad_fn._saved_self is a, y.grad_fn._saved_other is b))
        y = c / a
        out.append(("cdiv", y.grad_fn._saved_self is c, y.grad_fn._saved_other is a))
        y = a.softmax(0)
        out.append(("softmax", val(y.grad_fn._saved_result), y.grad_fn._saved_dim))
        return out

    same(torch, scenario)


def test_saved_non_tensor_arguments():
    def scenario(L):
        a = L.tensor([[0.5, 1.5, -2.0], [1.0, 2.0, 3.0]], requires_grad=True)
        b = L.tensor([[1.0, 2.0, 0.5], [0.25, 4.0, 1.0]], requires_grad=True)
        out = []
        # arguments left to their defaults read as the defaults
        out.append(L.add(a, b).grad_fn._saved_alpha)
        out.append(L.sub(a, b, alpha=2).grad_fn._saved_alpha)
        out.append(L.nn.functional.gelu(a).grad_fn._saved_approximate)
        out.append(L.nn.functional.gelu(a, approximate="tanh").grad_fn._saved_approximate)
        out.append(L.cat([a, b]).grad_fn._saved_dim)
        out.append(L.cat([a, b], 1).grad_fn._saved_dim)
        out.append(a.div(2.0).grad_fn._saved_self)
        sp = L.nn.functional.softplus(a).grad_fn
        out.append((sp._saved_beta, sp._saved_threshold))
        y = a.sum(0)
        out.append((y.grad_fn._saved_dim, y.grad_fn._saved_keepdim))
        y = a.sum(1, keepdim=True)
        out.append((y.grad_fn._saved_dim, y.grad_fn._saved_keepdim))
        out.append(a.div(2.0, rounding_mode="trunc").grad_fn._saved_rounding_mode)
        out.append(type(a.pow(3).grad_fn._saved_exponent).__name__)
        out.append(type(a.pow(3.0).grad_fn._saved_exponent).__name__)
        m, n = L.ones(2, 3, requires_grad=True), L.ones(3, 2, requires_grad=True)
        y = m.mm(n)
        out.append((y.grad_fn._saved_self is m, y.grad_fn._saved_mat2 is n))
        return out

    same(torch, scenario)


@pytest.mark.parametrize("number", [3, 3.5, -2])
def test_number_operand_is_a_wrapped_tensor_and_is_never_packed(number):
    def scenario(L):
        packed = []
        a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, ident):
            y = a * number
            z = number * a
            w = a / number
        out = [len(packed)]
        for r in (y, z, w):
            g = r.grad_fn
            out.append((g._saved_self, val(g._saved_other), dtype_name(g._saved_other.dtype),
                        val(g._raw_saved_other.unpack())))
        (ga,) = L.autograd.grad((y + z + w).sum(), (a,))
        out.append(val(ga))
        return out

    same(torch, scenario)


def _counting_hooks():
    """(counts, pack, unpack): identity hooks that count their calls."""
    count = {"pack": 0, "unpack": 0}

    def pack(t):
        count["pack"] += 1
        return t

    def unpack(t):
        count["unpack"] += 1
        return t
    return count, pack, unpack


@pytest.mark.parametrize("op", ["mul", "div"])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_only_what_a_gradient_needs_is_saved(op, needs):
    def scenario(L):
        count, pack, unpack = _counting_hooks()

        x = L.tensor([1.0, 2.0, 4.0], requires_grad=needs[0])
        y = L.tensor([3.0, 5.0, 7.0], requires_grad=needs[1])
        with L.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = getattr(L, op)(x, y)
            seen = [dict(count)]
            g = out.grad_fn
            saved = [g._saved_self, g._saved_other]
            seen.append(dict(count))
            out.sum().backward()
            seen.append(dict(count))
        return seen, val(saved), val(x.grad), val(y.grad)

    same(torch, scenario)


def test_mul_needed_save_double_backward_and_forward_mode():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 4.0], requires_grad=True)
        c = L.tensor([3.0, 5.0, 7.0])
        y = (x * c) * x
        (g,) = L.autograd.grad(y.sum(), (x,), create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), (x,))
        import minitorch.autograd.forward_ad as fa_mt
        import torch.autograd.forward_ad as fa_t
        fa = fa_t if L is torch else fa_mt
        with fa.dual_level():
            d = fa.make_dual(L.tensor([1.0, 2.0]), L.tensor([1.0, 1.0]))
            tangent = fa.unpack_dual(d * L.tensor([2.0, 3.0])).tangent
            tangent2 = fa.unpack_dual(L.tensor([2.0, 3.0]) / d).tangent
        return val(g), val(gg), val(tangent), val(tangent2)

    same(torch, scenario)


@pytest.mark.parametrize("op", ["max", "min", "sort", "topk", "cummax", "kthvalue", "median",
                                "mode", "adaptive_max_pool2d"])
def test_kept_output_names(op):
    def scenario(L):
        a = L.tensor([[0.5, 1.5, -2.0, 4.0], [1.0, 3.0, 2.0, -1.0], [0.0, 2.5, 1.0, 0.25]],
                     requires_grad=True)
        call = {
            "max": lambda: L.max(a, 0), "min": lambda: L.min(a, 1), "sort": lambda: L.sort(a),
            "topk": lambda: L.topk(a, 2), "cummax": lambda: L.cummax(a, 0),
            "kthvalue": lambda: L.kthvalue(a, 2), "median": lambda: L.median(a, 1),
            "mode": lambda: L.mode(a, 1),
            "adaptive_max_pool2d": lambda: L.nn.functional.adaptive_max_pool2d(
                a[None], 2, return_indices=True),
        }[op]
        values, indices = call()
        g = values.grad_fn
        names = [n for n in ("_saved_result", "_saved_result1", "_saved_indices",
                             "_saved_values") if hasattr(g, n)]
        return type(g).__name__, names, val(getattr(g, names[0])), val(indices)

    same(torch, scenario)


@pytest.mark.parametrize("op", ["exp", "mul", "mul_number", "mul_const", "pow", "pow_tensor",
                                "div", "max_dim", "sin", "custom"])
def test_dir_lists_what_was_saved(op):
    # what tools such as torchviz's show_saved walk: every _saved_ name dir()
    # lists reads without error
    def scenario(L):
        a = L.tensor([[0.5, 1.5], [2.0, 3.0]], requires_grad=True)
        b = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)

        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        out = {"exp": lambda: a.exp(), "mul": lambda: a * b, "mul_number": lambda: a * 2,
               "mul_const": lambda: a * b.detach(), "pow": lambda: a ** 2,
               "pow_tensor": lambda: a ** b, "div": lambda: a / b,
               "max_dim": lambda: L.max(a, 1)[0], "sin": lambda: a.sin(),
               "custom": lambda: Fn.apply(a)}[op]()
        g = out.grad_fn
        names = sorted(n for n in dir(g) if n.startswith(("_saved_", "_raw_saved_"))
                       and not n.endswith(("_sym_sizes", "_sym_strides")))
        got = []
        for n in names:
            v = getattr(g, n)
            got.append((n, type(v).__name__ if not isinstance(v, tuple) else len(v)))
        return got

    same(torch, scenario)


def test_missing_names_raise_attribute_error():
    def scenario(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        g = a.sum(0).grad_fn
        return [errmsg(lambda n=n: getattr(g, n))
                for n in ("_saved_foo", "_raw_saved_dim", "_raw_saved_foo")]

    same(torch, scenario)


# ------------------------------------------------------------------ SavedTensor

def test_saved_tensor_type_and_constructor():
    def scenario(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        raw = a.exp().grad_fn._raw_saved_result
        return (isinstance(raw, L._C._autograd.SavedTensor),
                L.autograd.SavedTensor is L._C._autograd.SavedTensor,
                type(raw).__name__, errmsg(lambda: L.autograd.SavedTensor()))

    same(torch, scenario)


def test_raw_saved_data_unpack_hook_and_unpack():
    def scenario(L):
        def unpack(t):
            return t

        a = L.tensor(2.0, requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(lambda t: ("boxed", t), lambda p: p[1]):
            b = a ** 2
        c = b.exp()
        d = c ** 2
        pow_sv, exp_sv, pow2_sv = (b.grad_fn._raw_saved_self, c.grad_fn._raw_saved_result,
                                   d.grad_fn._raw_saved_self)
        return (pow_sv.data[0], pow_sv.data[1] is a, pow_sv.unpack_hook is not None,
                exp_sv.data is c, val(exp_sv.data), exp_sv.unpack_hook,
                pow2_sv.data is c, pow2_sv.unpack_hook,
                val(pow_sv.unpack()), pow2_sv.unpack() is c,
                c.grad_fn._saved_result.grad_fn is c.grad_fn)

    same(torch, scenario)


@pytest.mark.parametrize("leaf", [True, False])
def test_register_hooks_on_saved_input(leaf):
    def scenario(L):
        def get():
            x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
            return x if leaf else x * 1
        out = []
        a = get()
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda t: 2 * t, lambda t: t / 2)
        # (a leaf's unpacked copy: minitorch gives it the leaf's AccumulateGrad
        # as grad_fn where torch keeps it a leaf, so grad_fn is compared for a
        # non-leaf only)
        out.append((val(y.grad_fn._saved_self),
                    leaf or y.grad_fn._saved_self.grad_fn is a.grad_fn))
        (g,) = L.autograd.grad(y.sum(), (a,))
        out.append(val(g))
        a = get()
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda t: 2 * t, ident)
        (g,) = L.autograd.grad(y.sum(), (a,))
        out.append(val(g))
        a = get()
        y = a ** 3
        y.grad_fn._raw_saved_self.register_hooks(ident, ident)
        (g,) = L.autograd.grad(y.sum(), (a,), create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), (a,))
        out.append((val(g), val(gg)))
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(ident, lambda t: 1)
        out.append(errmsg(lambda: y.grad_fn._saved_self))
        return out

    same(torch, scenario)


def test_register_hooks_on_saved_output():
    def scenario(L):
        a = L.tensor([0.5, 1.0], requires_grad=True)
        y = a.exp()
        y.grad_fn._raw_saved_result.register_hooks(ident, ident)
        got = (val(y.grad_fn._saved_result), y.grad_fn._saved_result.grad_fn is y.grad_fn)
        y.sum().backward()
        return got, val(a.grad)

    same(torch, scenario)


def test_register_hooks_errors():
    def scenario(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        out = []
        y = a * a
        raw = y.grad_fn._raw_saved_self

        def first_line(m):
            return m and (m[0], m[1].split("\n")[0].split(" The following")[0])
        out.append(first_line(errmsg(lambda: raw.register_hooks(ident))))
        out.append(first_line(errmsg(lambda: raw.register_hooks(1, 1))))
        # a pack hook that fails leaves torch's entry with hooks set: fresh ones
        out.append(errmsg(lambda: (a * a).grad_fn._raw_saved_self.register_hooks(
            lambda t, b: t, ident))[0])

        def inplace_double(t):
            t *= 2
            return t
        fresh = (a * a).grad_fn._raw_saved_self
        out.append(errmsg(lambda: fresh.register_hooks(inplace_double, ident)))
        raw.register_hooks(ident, ident)
        out.append(errmsg(lambda: raw.register_hooks(ident, ident)))
        y = a * a
        with L.autograd.graph.saved_tensors_hooks(ident, ident):
            z = a.exp()
        out.append(errmsg(lambda: z.grad_fn._raw_saved_result.register_hooks(ident, ident)))
        y.sum().backward()
        out.append(errmsg(lambda: y.grad_fn._raw_saved_self.register_hooks(ident, ident)))
        out.append(errmsg(lambda: y.grad_fn._saved_self))
        y = a * 3
        y.sum().backward()
        out.append(y.grad_fn._saved_self)  # never saved: None even after backward
        return out

    same(torch, scenario)


def test_pack_hook_writing_into_its_input_fails():
    def scenario(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)

        def inc(t):
            t += 1
            return t
        with L.autograd.graph.saved_tensors_hooks(inc, ident):
            e1 = errmsg(lambda: L.exp(a))
        y = L.exp(a)
        e2 = errmsg(lambda: y.grad_fn._raw_saved_result.register_hooks(inc, ident))
        return e1, e2, val(y)

    same(torch, scenario)


def test_saved_output_shares_the_version_counter():
    def scenario(L):
        a = L.tensor([0.0, 1.0], requires_grad=True)
        b = L.exp(a)
        u = b.grad_fn._saved_result
        out = [(b._version, u._version, val(u))]
        with L.no_grad():
            b += 1
        out.append((b._version, u._version, val(u)))
        stale = errmsg(lambda: b.grad_fn._saved_result)
        out.append((stale[0], stale[1].split(":")[0]))
        return out

    same(torch, scenario)


def test_saved_input_detached_in_place():
    def scenario(L):
        a = L.tensor(1.0, requires_grad=True).clone()
        b = a.sin()
        a.detach_()
        e = errmsg(b.backward)
        a = L.tensor(1.0, requires_grad=True)
        c = a.clone()
        d = c.exp()
        c.detach_()
        d.backward()
        return e, val(a.grad)

    same(torch, scenario)


# -------------------------------------------------------------- custom Function

def test_custom_function_raw_saved_tensors():
    def scenario(L):
        def make(save):
            class MyFn(L.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    if save:
                        ctx.save_for_backward(x, None)
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g * 2
            return MyFn

        a = L.tensor([1.0, 2.0], requires_grad=True)
        y = make(True).apply(a)
        raw = y.grad_fn._raw_saved_tensors
        out = [len(raw), [isinstance(r, L._C._autograd.SavedTensor) for r in raw]]
        out.append(errmsg(lambda: raw[1].register_hooks(ident, ident)))
        raw[0].register_hooks(lambda t: t * 10, lambda t: t / 10)
        out.append(errmsg(lambda: raw[0].register_hooks(ident, ident)))
        out.append(val(y.grad_fn.saved_tensors))
        raw = None
        y.sum().backward()
        out.append(errmsg(lambda: y.grad_fn._raw_saved_tensors))
        out.append(errmsg(lambda: y.grad_fn.saved_tensors))
        y = make(False).apply(a)
        out.append((y.grad_fn._raw_saved_tensors, y.grad_fn.saved_tensors))
        out.append(errmsg(lambda: y.grad_fn._saved_tensors))
        return out

    same(torch, scenario)


# --------------------------------------------------------------- _C._autograd

def test_make_saved_tensor():
    def scenario(L):
        count, pack, unpack = _counting_hooks()
        a = L.tensor([1.0, 2.0], requires_grad=True)
        out = []
        with L.autograd.graph.saved_tensors_hooks(pack, unpack):
            saved = L._C._autograd._make_saved_tensor(a, is_output=False)
            out.append(dict(count))
            u1, u2 = saved.unpack(), saved.unpack()
            out.append(dict(count))
        plain = L._C._autograd._make_saved_tensor(a, is_output=False)
        out += [u1 is a, u2 is a, plain.unpack() is a, plain.data is a, plain.unpack_hook,
                saved.unpack_hook is unpack]
        out.append(errmsg(lambda: L._C._autograd._make_saved_tensor(a))[0])
        return out

    same(torch, scenario)


def test_saved_tensors_hooks_enabled_switch():
    def scenario(L):
        C = L._C._autograd
        graph = L.autograd.graph
        out = [C._saved_tensors_hooks_is_enabled()]
        with graph.disable_saved_tensors_hooks("outer"):
            out.append(C._saved_tensors_hooks_is_enabled())
            with graph.disable_saved_tensors_hooks("inner"):
                out.append(errmsg(lambda: graph.saved_tensors_hooks(ident, ident).__enter__()))
            out.append(errmsg(lambda: graph.saved_tensors_hooks(ident, ident).__enter__()))
        out.append(C._saved_tensors_hooks_is_enabled())
        with graph.saved_tensors_hooks(ident, ident):
            def disable():
                with graph.disable_saved_tensors_hooks("busy"):
                    pass
            out.append(errmsg(disable))
        out.append(C._saved_tensors_hooks_is_enabled())
        return out

    same(torch, scenario)


def test_current_autograd_node():
    def scenario(L):
        seen = []

        def unpack(t):
            node = L._C._current_autograd_node()
            seen.append(node.name())
            return t

        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen.append(L._C._current_autograd_node().name())
                return g * 2

        out = [L._C._current_autograd_node()]
        a = L.tensor([1.0, 2.0], requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(ident, unpack):
            y = Fn.apply(a.exp()).sum()
        y.backward()
        out.append(seen)
        out.append(L._C._current_autograd_node())
        return out

    same(torch, scenario)


def test_save_on_cpu_keeps_values_and_dtype():
    def scenario(L):
        out = []
        for dt in (L.float32, L.float64):
            for pin in (True, False):
                with L.autograd.graph.save_on_cpu(pin):
                    a = L.tensor([1.0, -2.0, 3.0], dtype=dt, requires_grad=True)
                    y = a * a
                    out.append((val(y.grad_fn._saved_self), val(y.grad_fn._saved_other),
                                dtype_name(y.grad_fn._saved_self.dtype)))
                    y.sum().backward()
                out.append(val(a.grad))
        return out

    same(torch, scenario)


def test_default_hooks_warn_once_per_saved_tensor():
    def scenario(L):
        def pack(t):
            warnings.warn("pack")
            return t
        with L.autograd.graph.saved_tensors_hooks(pack, ident):
            a = L.ones(5, requires_grad=True)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                a * a
                a * 2
        return len(w)

    same(torch, scenario)


def test_post_hook_registered_by_an_unpack_hook():
    def scenario(L):
        seen = []

        def unpack(t):
            node = L._C._current_autograd_node()

            def hook(grad_inputs, grad_outputs):
                seen.append((node.name(), val(grad_inputs), grad_outputs))
                return tuple(g / 2 for g in grad_inputs)
            node.register_hook(hook)
            return t

        a = L.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(ident, unpack):
            y = a.exp()
        y.sum().backward()
        first = val(a.grad)
        # registered before the node ran: it sees the gradients it got
        z = a.sin()
        z.grad_fn.register_hook(lambda gi, go: seen.append(("before", val(gi), val(go))))
        z.sum().backward()
        return seen, first

    same(torch, scenario)
