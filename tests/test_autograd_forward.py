"""Forward-mode AD: dual tensors, jvp of built-in ops against torch's forward
AD, custom Function jvp, func.jvp and gradcheck(check_forward_ad=True)."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfw = torch.autograd.forward_ad


def rand(rng, *shape, positive=False):
    a = rng.standard_normal(shape)
    return np.abs(a) + 0.5 if positive else a


def jvp_both(fn, primals, tangents):
    """(minitorch primal, tangent), (torch primal, tangent) of fn at primals."""
    results = []
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        with fw.dual_level():
            duals = [fw.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None
                     else lib.tensor(p) for p, t in zip(primals, tangents)]
            out = fw.unpack_dual(fn(lib, *duals))
            results.append((out.primal.detach().numpy(),
                            None if out.tangent is None else out.tangent.detach().numpy()))
    return results


def check(fn, *shapes, positive=False, seed=0, tangent_for=None):
    rng = np.random.default_rng(seed)
    primals = [rand(rng, *s, positive=positive) for s in shapes]
    tangents = [rand(rng, *s) if tangent_for is None or k in tangent_for else None
                for k, s in enumerate(shapes)]
    (mp, mtan), (tp, ttan) = jvp_both(fn, primals, tangents)
    np.testing.assert_allclose(mp, tp, rtol=1e-10, atol=1e-12)
    assert (mtan is None) == (ttan is None)
    if ttan is not None:
        assert mtan.shape == ttan.shape
        np.testing.assert_allclose(mtan, ttan, rtol=1e-9, atol=1e-11)


ELEMENTWISE = {
    "add": (lambda M, x, y: x + y, [(3, 4), (3, 4)]),
    "add_alpha": (lambda M, x, y: M.add(x, y, alpha=2.5), [(3, 4), (4,)]),
    "sub_alpha": (lambda M, x, y: M.sub(x, y, alpha=-1.5), [(3, 1), (1, 4)]),
    "rsub": (lambda M, x: 2 - x, [(5,)]),
    "mul": (lambda M, x, y: x * y, [(2, 3), (2, 3)]),
    "mul_broadcast": (lambda M, x, y: x * y, [(3, 1), (4,)]),
    "mul_number": (lambda M, x: x * 3, [(4,)]),
    "div": (lambda M, x, y: x / y, [(3, 4), (3, 4)]),
    "div_number": (lambda M, x: x / 4, [(4,)]),
    "rdiv": (lambda M, x: 2 / x, [(4,)]),
    "neg": (lambda M, x: -x, [(2, 2)]),
    "exp": (lambda M, x: x.exp(), [(5,)]),
    "sin": (lambda M, x: M.sin(x), [(5,)]),
    "cos": (lambda M, x: M.cos(x), [(5,)]),
    "tanh": (lambda M, x: M.tanh(x), [(5,)]),
    "sigmoid": (lambda M, x: M.sigmoid(x), [(5,)]),
    "relu": (lambda M, x: M.relu(x), [(6,)]),
    "pow2": (lambda M, x: x ** 2, [(5,)]),
    "pow0": (lambda M, x: x ** 0, [(5,)]),
    "abs": (lambda M, x: x.abs(), [(5,)]),
    "clamp": (lambda M, x: x.clamp(-0.5, 0.5), [(7,)]),
    "where": (lambda M, x, y: M.where(x > 0, x, y), [(6,), (6,)]),
    "maximum": (lambda M, x, y: M.maximum(x, y), [(6,), (6,)]),
    "atan2": (lambda M, x, y: M.atan2(x, y), [(6,), (6,)]),
    "floor": (lambda M, x: x.floor(), [(4,)]),
    "erf": (lambda M, x: M.erf(x), [(4,)]),
    "to_float32": (lambda M, x: x.to(M.float32).to(M.float64), [(4,)]),
}

POSITIVE = {
    "log": (lambda M, x: x.log(), [(5,)]),
    "sqrt": (lambda M, x: x.sqrt(), [(5,)]),
    "pow_float": (lambda M, x: x ** 2.5, [(5,)]),
    "pow_tensor": (lambda M, x, y: x ** y, [(5,), (5,)]),
    "rpow": (lambda M, x: 2 ** x, [(5,)]),
}

REDUCTIONS = {
    "sum": (lambda M, x: x.sum(), [(3, 4)]),
    "sum_dim": (lambda M, x: x.sum(1, keepdim=True), [(3, 4)]),
    "mean": (lambda M, x: x.mean(0), [(3, 4)]),
    "var": (lambda M, x: x.var(1), [(3, 4)]),
    "std": (lambda M, x: x.std(), [(3, 4)]),
    "amax": (lambda M, x: x.amax(1), [(3, 4)]),
    "max_dim": (lambda M, x: x.max(1).values, [(3, 4)]),
    "prod": (lambda M, x: x.prod(1), [(3, 4)]),
    "logsumexp": (lambda M, x: M.logsumexp(x, 1), [(3, 4)]),
    "cumsum": (lambda M, x: x.cumsum(0), [(3, 4)]),
    "softmax": (lambda M, x: M.softmax(x, 1), [(3, 4)]),
    "log_softmax": (lambda M, x: M.log_softmax(x, 0), [(3, 4)]),
    "norm": (lambda M, x: x.norm(), [(3, 4)]),
}

MATMUL = {
    "mm": (lambda M, a, b: a.mm(b), [(3, 4), (4, 2)]),
    "matmul_batched": (lambda M, a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "bmm": (lambda M, a, b: M.bmm(a, b), [(2, 3, 4), (2, 4, 2)]),
    "mv": (lambda M, a, b: M.mv(a, b), [(3, 4), (4,)]),
    "dot": (lambda M, a, b: M.dot(a, b), [(4,), (4,)]),
    "addmm": (lambda M, c, a, b: M.addmm(c, a, b), [(3, 2), (3, 4), (4, 2)]),
}

VIEWS = {
    "view": (lambda M, x: x.view(4, 3), [(3, 4)]),
    "reshape": (lambda M, x: x.reshape(-1), [(3, 4)]),
    "t": (lambda M, x: x.t(), [(3, 4)]),
    "transpose": (lambda M, x: x.transpose(0, 2), [(2, 3, 4)]),
    "permute": (lambda M, x: x.permute(2, 0, 1), [(2, 3, 4)]),
    "unsqueeze": (lambda M, x: x.unsqueeze(1), [(3, 4)]),
    "squeeze": (lambda M, x: x.squeeze(1), [(3, 1, 4)]),
    "expand": (lambda M, x: x.expand(2, 3, 4), [(3, 1)]),
    "flatten": (lambda M, x: x.flatten(), [(2, 3, 4)]),
    "t_then_mul": (lambda M, x: x.t() * 2, [(3, 4)]),
}

INDEXING = {
    "slice": (lambda M, x: x[1:, ::2], [(4, 5)]),
    "select": (lambda M, x: x[2], [(4, 5)]),
    "advanced": (lambda M, x: x[[0, 2, 2]], [(4, 5)]),
    "gather": (lambda M, x: x.gather(1, M.tensor([[0, 1], [2, 2], [1, 0]])), [(3, 4)]),
    "index_select": (lambda M, x: x.index_select(0, M.tensor([2, 0])), [(3, 4)]),
    "cat": (lambda M, x, y: M.cat([x, y], 0), [(2, 3), (1, 3)]),
    "stack": (lambda M, x, y: M.stack([x, y], 1), [(2, 3), (2, 3)]),
    "masked_fill": (lambda M, x: x.masked_fill(x > 0, 1.0), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise(name):
    fn, shapes = ELEMENTWISE[name]
    check(fn, *shapes)


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_elementwise_positive(name):
    fn, shapes = POSITIVE[name]
    check(fn, *shapes, positive=True)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name):
    fn, shapes = REDUCTIONS[name]
    check(fn, *shapes)


@pytest.mark.parametrize("name", sorted(MATMUL))
def test_matmul(name):
    fn, shapes = MATMUL[name]
    check(fn, *shapes)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views(name):
    fn, shapes = VIEWS[name]
    check(fn, *shapes)


@pytest.mark.parametrize("name", sorted(INDEXING))
def test_indexing(name):
    fn, shapes = INDEXING[name]
    check(fn, *shapes)


@pytest.mark.parametrize("which", [{0}, {1}])
def test_tangent_on_one_input_only(which):
    for fn, shapes in (ELEMENTWISE["mul_broadcast"], ELEMENTWISE["div"], MATMUL["mm"],
                       ELEMENTWISE["sub_alpha"]):
        check(fn, *shapes, tangent_for=which)


def test_composite_chain():
    check(lambda M, x, w: M.tanh(x @ w).sum(1).exp() * 0.1, (3, 4), (4, 5))


def test_noncontiguous_primal_and_tangent():
    rng = np.random.default_rng(1)
    p, t = rand(rng, 4, 3), rand(rng, 4, 3)
    outs = []
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(p).t(), lib.tensor(t).t())
            outs.append(fw.unpack_dual((d.sin() * d)[:, 1:]).tangent.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10)


def test_float32_and_zero_size():
    with fwAD.dual_level():
        d = fwAD.make_dual(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 1.0]))
        out = d * d
        assert out.dtype == mt.float32
        assert fwAD.unpack_dual(out).tangent.tolist() == [2.0, 4.0]
        e = fwAD.make_dual(mt.zeros(0, 3), mt.zeros(0, 3))
        t = fwAD.unpack_dual(e.exp().sum(0)).tangent
        assert t.tolist() == [0.0, 0.0, 0.0]


# rows of zeros have norm 0; constant rows have std 0
ZERO_NORM_ROWS = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [0.0, 0.0, 0.0]])
ZERO_STD_ROWS = np.array([[3.0, 3.0, 3.0], [1.0, -2.0, 0.5], [-1.0, -1.0, -1.0]])


@pytest.mark.parametrize("fn,primal", [
    (lambda M, x: M.linalg.vector_norm(x, 2.0, 1), ZERO_NORM_ROWS),
    (lambda M, x: M.linalg.vector_norm(x, 3.0, 1, keepdim=True), ZERO_NORM_ROWS),
    (lambda M, x: M.linalg.vector_norm(x, 1.5, 1), ZERO_NORM_ROWS),
    (lambda M, x: M.norm(x, 2, 1), ZERO_NORM_ROWS),
    (lambda M, x: M.linalg.vector_norm(x, 2.0), np.zeros((2, 3))),
    (lambda M, x: M.std(x, 1), ZERO_STD_ROWS),
    (lambda M, x: M.std(x, 1, correction=0, keepdim=True), ZERO_STD_ROWS),
    (lambda M, x: M.std_mean(x, 1)[0], ZERO_STD_ROWS),
], ids=["norm2", "norm3-keepdim", "norm1.5", "torch.norm", "norm2-all", "std", "std-keepdim",
        "std_mean"])
def test_tangent_where_the_norm_or_std_is_zero(fn, primal):
    """0 where the reduced value is 0, as torch's (not 0 * inf = NaN)."""
    tangent = np.random.default_rng(0).standard_normal(primal.shape)
    (mp, mtan), (tp, ttan) = jvp_both(fn, [primal], [tangent])
    assert np.isfinite(mtan).all()
    np.testing.assert_allclose(mtan, ttan, rtol=1e-10, atol=1e-12)


def test_inplace_ops_update_self_tangent():
    rng = np.random.default_rng(2)
    p, q, tp, tq = (rand(rng, 4) for _ in range(4))
    outs = []
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(p), lib.tensor(tp))
            y = fw.make_dual(lib.tensor(q), lib.tensor(tq))
            z = x.clone()
            z.mul_(y)
            z.add_(x, alpha=2)
            z.sin_()
            w = lib.zeros(4, dtype=lib.float64)
            w += y
            outs.append((fw.unpack_dual(z).tangent.numpy(), fw.unpack_dual(w).tangent.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-10)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-10)


def test_setitem_takes_tangent():
    with fwAD.dual_level():
        x = mt.zeros(4, dtype=mt.float64)
        x[1:3] = fwAD.make_dual(mt.tensor([1.0, 2.0], dtype=mt.float64),
                                mt.tensor([5.0, 6.0], dtype=mt.float64))
        assert fwAD.unpack_dual(x).tangent.tolist() == [0.0, 5.0, 6.0, 0.0]


def test_integer_and_boolean_outputs_have_no_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(mt.tensor([1.0, -2.0, 3.0]), mt.ones(3))
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert fwAD.unpack_dual(d > 0).tangent is None
        assert fwAD.unpack_dual(d.long()).tangent is None


def test_unsupported_ops_raise_like_torch():
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.ones(3), lib.ones(3))
            with pytest.raises(NotImplementedError, match="^Trying to use forward AD with mul_out "
                                                          "that does not support it because it "
                                                          "is an out= function$"):
                lib.mul(d, 2, out=lib.zeros(3))
    with fwAD.dual_level():
        d = fwAD.make_dual(mt.ones(3), mt.ones(3))
        with pytest.raises(NotImplementedError, match="^Trying to use forward AD with "
                                                      "floor_divide that does not support it.$"):
            mt.floor_divide(d, 2)


def test_backward_still_works_with_dual_inputs():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, mt.tensor([1.0, 0.0]))
        y = (d * d).sum()
        assert fwAD.unpack_dual(y).tangent.item() == 2.0
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


# ------------------------------------------------------------- dual tensor API

def test_make_and_unpack_dual():
    x = mt.tensor([1.0, 2.0, 3.0])
    t = mt.tensor([0.5, 0.5, 0.5])
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, t)
        p, tan = fwAD.unpack_dual(d)
        assert tan is t
        d[0] = 10.0  # aliases x's memory; the written element's tangent becomes 0
        assert x.tolist()[0] == 10.0
        assert fwAD.unpack_dual(d).tangent.tolist() == [0.0, 0.5, 0.5]
        assert p.tolist() == x.tolist()
        assert fwAD.unpack_dual(p).tangent is None
        assert fwAD.unpack_dual(x).tangent is None
        r = fwAD.unpack_dual(d)
        assert type(r).__name__ == "UnpackedDualTensor" and r.primal is r[0]
    assert fwAD.unpack_dual(d).tangent is None
    assert fwAD.unpack_dual(d).primal is d


def test_tangents_dropped_on_exit_and_new_level_starts_clean():
    with fwAD.dual_level():
        d = fwAD.make_dual(mt.ones(2), mt.ones(2))
        out = d * 2
    with fwAD.dual_level():
        assert fwAD.unpack_dual(d).tangent is None
        assert fwAD.unpack_dual(out).tangent is None
        assert fwAD.unpack_dual(out * 3).tangent is None


def test_enter_exit_functions():
    assert fwAD.enter_dual_level() == 0
    try:
        with pytest.raises(RuntimeError, match="^Nested forward mode AD is not supported at the "
                                               "moment$"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="was not the last one"):
            fwAD.exit_dual_level(level=3)
    finally:
        fwAD.exit_dual_level()
    with pytest.raises(RuntimeError, match="^Dual level must be a positive number.$"):
        fwAD.exit_dual_level()


def test_dual_errors_match_torch():
    x = mt.randn(3)
    messages = []
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        xx = lib.zeros(3)
        got = []
        for f in (lambda: fw.make_dual(xx, lib.zeros(3)),):
            with pytest.raises(RuntimeError) as e:
                f()
            got.append(str(e.value))
        with fw.dual_level():
            for f, exc in ((lambda: fw.make_dual(xx, lib.zeros(4)), RuntimeError),
                           (lambda: fw.make_dual(xx, lib.zeros(3, dtype=lib.int32)), ValueError),
                           (lambda: fw.make_dual(xx.long(), lib.zeros(3)), ValueError),
                           (lambda: fw.make_dual(xx, lib.zeros(3), level=5), RuntimeError),
                           (lambda: fw.make_dual(fw.make_dual(xx, lib.zeros(3)), lib.zeros(3)),
                            RuntimeError)):
                with pytest.raises(exc) as e:
                    f()
                got.append(str(e.value) if lib is mt else str(e.value).replace("torch.", "minitorch."))
        messages.append(got)
    assert messages[0] == messages[1]
    assert x.shape == (3,)


# ----------------------------------------------------------- custom Function

class Scale(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

    @staticmethod
    def jvp(ctx, x_t, k_t):
        return x_t * ctx.k


def test_function_jvp_acceptance_example():
    with fwAD.dual_level():
        dual = fwAD.make_dual(mt.tensor([1.0, 2.0]), mt.tensor([1.0, -1.0]))
        p, t = fwAD.unpack_dual(Scale.apply(dual, 3.0))
        assert p.tolist() == [3.0, 6.0]
        assert t.tolist() == [3.0, -3.0]


def test_function_jvp_tangents_saved_and_materialize():
    seen = {}

    class Mul(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            seen["fwd_tangent"] = fwAD.unpack_dual(x).tangent
            ctx.save_for_forward(x, y)
            return x * y * k, x + y

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g2, None

        @staticmethod
        def jvp(ctx, xt, yt, kt):
            x, y = ctx.saved_tensors
            seen["args"] = (xt, yt, kt)
            return (xt * y + x * yt) * 2, xt + yt

    x, y = mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, mt.ones(2))
        a, b = Mul.apply(d, y, 2.0)
        assert seen["fwd_tangent"] is None
        xt, yt, kt = seen["args"]
        assert xt.tolist() == [1.0, 1.0] and yt.tolist() == [0.0, 0.0] and kt is None
        assert fwAD.unpack_dual(a).tangent.tolist() == [6.0, 8.0]
        assert fwAD.unpack_dual(b).tangent.tolist() == [1.0, 1.0]

    class Lazy(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.set_materialize_grads(False)
            return x * y

        @staticmethod
        def jvp(ctx, xt, yt):
            seen["lazy"] = yt
            return xt

    with fwAD.dual_level():
        Lazy.apply(fwAD.make_dual(x, mt.ones(2)), y)
        assert seen["lazy"] is None


def test_function_jvp_with_backward_recording():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        out = Scale.apply(fwAD.make_dual(x, mt.ones(2)), 2.0)
        assert fwAD.unpack_dual(out).tangent.tolist() == [2.0, 2.0]
        out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_function_jvp_errors():
    class NoJvp(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    class TwoForOne(Scale):
        @staticmethod
        def jvp(ctx, x_t, k_t):
            return x_t, x_t

    class NotATensor(Scale):
        @staticmethod
        def jvp(ctx, x_t, k_t):
            return 1.0

    class BadShape(Scale):
        @staticmethod
        def jvp(ctx, x_t, k_t):
            return mt.ones(2)

    with fwAD.dual_level():
        d = fwAD.make_dual(mt.ones(3), mt.ones(3))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function for "
                                                      "custom autograd.Function to use it with "
                                                      "forward mode AD."):
            NoJvp.apply(d)
        assert NoJvp.apply(mt.ones(3)).tolist() == [2.0] * 3
        with pytest.raises(RuntimeError, match=r"Function's jvp returned an invalid number of "
                                               r"forward gradients \(expected 1 but got 2\)"):
            TwoForOne.apply(d, 2.0)
        with pytest.raises(RuntimeError, match=r"expected Variable or None \(got float\) for "
                                               r"grad output 0."):
            NotATensor.apply(d, 2.0)
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given "
                                               r"forward gradient is of size \[2\]."):
            BadShape.apply(d, 2.0)


# ------------------------------------------------------------------ func.jvp

def test_func_jvp_matches_torch():
    rng = np.random.default_rng(3)
    p, t, q, u = rand(rng, 3), rand(rng, 3), rand(rng, 3), rand(rng, 3)
    res = []
    for lib in (mt, torch):
        out, jv = lib.func.jvp(lambda a, b: (a.sin() * b, a.exp()),
                               (lib.tensor(p), lib.tensor(q)), (lib.tensor(t), lib.tensor(u)))
        res.append([o.numpy() for o in out] + [j.numpy() for j in jv])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_func_jvp_output_without_tangent_gets_zeros_and_aux():
    out, jv, aux = mt.func.jvp(lambda x: (x.argmax().double(), 7), (mt.ones(3),), (mt.ones(3),),
                               has_aux=True)
    assert jv.tolist() == 0.0 and aux == 7
    assert fwAD.unpack_dual(out).tangent is None


def test_func_jvp_errors_match_torch():
    x = np.ones(3)
    for f, args in ((lambda a: a.sin(), lambda L: (L.tensor(x), (L.tensor(x),))),
                    (lambda a: a.sin(), lambda L: ((L.tensor(x),), (L.tensor(x),) * 2)),
                    (lambda a: a.sin(), lambda L: ((L.tensor(x),), [L.tensor(x)])),
                    (lambda a: a.sin(), lambda L: ((), ())),
                    (lambda a: 3, lambda L: ((L.tensor(x),), (L.tensor(x),))),
                    (lambda a: a.sin(), lambda L: ((L.tensor(x),), (L.ones(2),)))):
        msgs = []
        for lib in (mt, torch):
            with pytest.raises(RuntimeError) as e:
                lib.func.jvp(f, *args(lib))
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


# ----------------------------------------------------------------- gradcheck

@pytest.mark.parametrize("fn", [
    lambda x, y: (x * y).sin(),
    lambda x, y: x @ y.t(),
    lambda x, y: mt.softmax(x + y, 1),
    lambda x, y: mt.cat([x, y]).cumsum(0),
])
def test_gradcheck_forward_ad(fn):
    x = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    y = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(fn, (x, y), check_forward_ad=True)
    assert mt.autograd.gradcheck(fn, (x, y), check_forward_ad=True, check_backward_ad=False)


def test_gradcheck_forward_ad_detects_wrong_jvp():
    class Wrong(Scale):
        @staticmethod
        def jvp(ctx, x_t, k_t):
            return x_t * (ctx.k + 1)

    x = mt.randn(3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(Wrong.apply, (x, 2.0))
    with pytest.raises(mt.autograd.gradcheck_module.GradcheckError
                       if hasattr(mt.autograd, "gradcheck_module") else Exception,
                       match="Jacobian computed with forward mode mismatch for output 0 with "
                             "respect to input 0"):
        mt.autograd.gradcheck(Wrong.apply, (x, 2.0), check_forward_ad=True)


def test_detach_in_place_drops_the_tangent():
    outs = []
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])).clone()
            same_object = dual.detach_() is dual
            p, t = fw.unpack_dual(dual * 2)
            outs.append((same_object, p.tolist(), t, p.requires_grad))
    assert outs[0] == outs[1]


def test_make_dual_copies_a_tangent_laid_out_unlike_the_primal():
    outs = []
    for lib, fw in ((mt, fwAD), (torch, tfw)):
        with fw.dual_level():
            primal = lib.arange(5.0)[:4].detach()
            tangent = lib.arange(4.0)
            _, kept = fw.unpack_dual(fw.make_dual(primal, tangent))
            kept *= 2
            dual = fw.make_dual(primal, tangent)
            wide = fw.unpack_dual(dual.as_strided((5,), (1,), 0)).tangent
            z = lib.ones(2, 2, dtype=lib.complex128)
            conj_t = (lib.ones(2, 2, dtype=lib.complex128) * 1j).conj()
            conj_tangent_kept = fw.unpack_dual(fw.make_dual(z, conj_t)).tangent is conj_t
            plain_t = lib.ones(2, 2, dtype=lib.complex128)
            plain_tangent_kept = fw.unpack_dual(fw.make_dual(z, plain_t)).tangent is plain_t
            transposed_t = lib.ones(2, 2, dtype=lib.complex128).t()
            transposed_kept = fw.unpack_dual(fw.make_dual(z, transposed_t)).tangent is transposed_t
            empty_t = lib.tensor([1.0]).as_strided((0,), (1,), 2)
            empty_kept = fw.unpack_dual(fw.make_dual(
                lib.tensor([1.0]).as_strided((0,), (1,), 1), empty_t)).tangent is empty_t
            outs.append((tangent.tolist(), wide.tolist()[:4], conj_tangent_kept,
                         plain_tangent_kept, transposed_kept, empty_kept))
    assert outs[0] == outs[1]
