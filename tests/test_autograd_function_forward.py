"""Forward-mode AD through autograd.Function.jvp: what jvp receives, and
torch's checks on what it returns for inputs changed in place and for outputs
that are views of inputs; run on minitorch and torch and compared."""
import pytest

import minitorch as mt


def _torch():
    return pytest.importorskip("torch")


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001
        return None, (type(e).__name__, str(e))


def both(run):
    got = [outcome(lambda: run(lib)) for lib in (mt, _torch())]
    assert got[0] == got[1]
    return got[0]


def test_jvp_receives_none_for_integer_and_non_tensor_inputs():
    def run(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, idx, other, n):
                return x * 2 + other

            @staticmethod
            def jvp(ctx, xt, it, ot, nt):
                seen.extend([xt.tolist(), it, ot.tolist(), nt])
                return xt * 2 + ot

        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            out = F.apply(x, lib.tensor([3, 4]), lib.ones(2, dtype=lib.float64), 5)
            seen.append(fw.unpack_dual(out).tangent.tolist())
        return seen

    value, error = both(run)
    assert value == [[1.0, 1.0], None, [0.0, 0.0], None, [2.0, 2.0]]


def inplace_case(lib, modify, same):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return 2 * g

        @staticmethod
        def jvp(ctx, t):
            if modify:
                t.mul_(2)
            return t if same else t.clone()

    fw = lib.autograd.forward_ad
    with fw.dual_level():
        tangent = lib.ones(2, dtype=lib.float64)
        x = fw.make_dual(lib.ones(2, dtype=lib.float64), tangent)
        out = Double.apply(x)
        got = fw.unpack_dual(out).tangent
        return [out is x, got is tangent, got.tolist()]


@pytest.mark.parametrize("modify,same", [(True, True), (False, True), (True, False)])
def test_inplace_function_must_update_the_tangent_in_place(modify, same):
    value, error = both(lambda lib: inplace_case(lib, modify, same))
    if modify and same:
        assert value == [True, True, [2.0, 2.0]]
    else:
        assert "An inplace custom Function is not" in error[1]


def view_case(lib, flag):
    class Narrow(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.narrow(0, 0, 2)

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, g.new_zeros(2)])

        @staticmethod
        def jvp(ctx, t):
            res = t.narrow(0, 0, 2)
            if flag != "ok":
                res = res.clone()
            if flag in ("other_view", "other_base"):
                res = res.view_as(res)
            return res

    fw = lib.autograd.forward_ad
    with fw.dual_level():
        base_t = lib.ones(4, dtype=lib.float64)
        tangent = base_t.view_as(base_t) if flag == "other_base" else base_t
        x = fw.make_dual(lib.arange(4.0, dtype=lib.float64), tangent)
        out = Narrow.apply(x)
        return [fw.unpack_dual(out).tangent._base is base_t]


@pytest.mark.parametrize("flag", ["ok", "not_a_view", "other_view", "other_base"])
def test_view_output_needs_a_view_of_the_input_tangent(flag):
    value, error = both(lambda lib: view_case(lib, flag))
    if flag == "ok":
        assert value == [True]
    else:
        assert error[0] == "RuntimeError" and "jvp is not returning a view" in error[1]


@pytest.mark.parametrize("how", ["view_as", "self", "double"])
def test_input_returned_as_is_is_a_view_for_jvp(how):
    def run(lib):
        class Pass(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y, x

            @staticmethod
            def jvp(ctx, xt, yt):
                second = {"view_as": xt.view_as(xt), "self": xt, "double": xt * 2}[how]
                return xt + yt, second

        fw = lib.autograd.forward_ad
        with fw.dual_level():
            t = lib.ones((), dtype=lib.float64)
            x = fw.make_dual(lib.ones((), dtype=lib.float64), t)
            _, out = Pass.apply(x, lib.ones((), dtype=lib.float64))
            return [fw.unpack_dual(out).tangent._base is t]

    value, error = both(run)
    if how == "view_as":
        assert value == [True]
    else:
        assert error[1].startswith("A custom Function's forward is returning a view (or an "
                                   "input as-is) but the jvp is not returning a view.")


def test_non_differentiable_output_takes_no_tangent():
    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                out = y.clone()
                ctx.mark_non_differentiable(out)
                return x.clone(), out

            @staticmethod
            def jvp(ctx, xt, yt):
                return xt, xt.clone()

        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(2.0), lib.tensor(1.0))
            F.apply(x, lib.tensor(3.0))

    value, error = both(run)
    assert error == ("RuntimeError",
                     "Function's jvp returned a gradient at position 1, but  the corresponding "
                     "forward output is not a differentiable Tensor.You should return None at "
                     "that position instead.")
