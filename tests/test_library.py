"""Custom ops written in Python (minitorch.library.custom_op), compared with
torch.library's: rows of the op table like the C ones, with torch's autograd
(GeneratedBackwardFor_<ns>_<name>_default), schema inference and errors."""
import pytest

import minitorch as mt
from minitorch import Tensor
from minitorch.library import custom_op, infer_schema, register_autograd, register_fake


def _define(torch_lib, qualname):
    """The same op, myadd(a, b, alpha) = a + alpha * b, in minitorch or torch."""
    T = torch_lib.Tensor

    @torch_lib.library.custom_op(qualname, mutates_args=())
    def myadd(a: T, b: T, alpha: float = 1.0) -> T:
        return a + alpha * b

    def setup_context(ctx, inputs, output):
        ctx.alpha = inputs[2]

    def backward(ctx, grad):
        return grad, grad * ctx.alpha, None
    myadd.register_autograd(backward, setup_context=setup_context)
    return myadd


@pytest.fixture(scope="module")
def myadd():
    return _define(mt, "mt_pylib::myadd")


def test_values_grads_and_names_match_torch(myadd):
    torch = pytest.importorskip("torch")
    theirs = _define(torch, "mt_pylib_ref::myadd")
    a, b = mt.randn(4, requires_grad=True), mt.randn(4, requires_grad=True)
    ta, tb = (torch.tensor(x.tolist(), requires_grad=True) for x in (a, b))
    y, ty = myadd(a, b, 2.5), theirs(ta, tb, 2.5)
    assert y.tolist() == pytest.approx(ty.tolist())
    assert (type(y.grad_fn).__name__.replace("mt_pylib", "mt_pylib_ref")
            == type(ty.grad_fn).__name__ == "GeneratedBackwardFor_mt_pylib_ref_myadd_defaultBackward")
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert a.grad.tolist() == pytest.approx(ta.grad.tolist())
    assert b.grad.tolist() == pytest.approx(tb.grad.tolist())


def test_op_is_a_row_published_under_ops(myadd):
    op = mt.ops.mt_pylib.myadd
    assert op.__doc__ == "mt_pylib::myadd(Tensor a, Tensor b, float alpha=1.0) -> Tensor"
    a = mt.ones(2)
    assert op(a, a).tolist() == [2.0, 2.0] and op(a, a, alpha=3.0).tolist() == [4.0, 4.0]
    assert op in mt.overrides.get_overridable_functions()[mt.ops.mt_pylib]
    assert "myadd" in list(mt.ops.mt_pylib)
    with pytest.raises(AttributeError, match="'_OpNamespace' 'mt_pylib' object has no attribute "
                                             "'nope'"):
        mt.ops.mt_pylib.nope


def test_parser_errors(myadd):
    a = mt.ones(2)
    with pytest.raises(TypeError, match=r"^mt_pylib::myadd\(\): argument 'b' \(position 2\) "
                                        r"must be Tensor, not str$"):
        myadd(a, "x")
    with pytest.raises(TypeError, match=r"argument 'alpha' \(position 3\) must be float, not str"):
        myadd(a, a, "2")
    with pytest.raises(TypeError, match=r'missing 1 required positional argument: "b"'):
        mt.ops.mt_pylib.myadd(a)


def test_gradcheck(myadd):
    inputs = (mt.randn(3, dtype=mt.float64, requires_grad=True),
              mt.randn(3, dtype=mt.float64, requires_grad=True))
    assert mt.autograd.gradcheck(lambda x, y: myadd(x, y, -0.5), inputs)


def test_dispatch_to_modes_subclasses_and_duck_types(myadd):
    seen = []

    class Mode(mt.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    class Sub(Tensor):
        pass

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("duck", func)
    a = mt.ones(2)
    with Mode():
        myadd(a, a)
    assert seen == [mt.ops.mt_pylib.myadd]
    out = myadd(a.as_subclass(Sub), a)
    assert type(out) is Sub and out.tolist() == [2.0, 2.0]
    assert myadd(a, Duck()) == ("duck", mt.ops.mt_pylib.myadd)


def test_backward_without_autograd_raises_torchs_error():
    torch = pytest.importorskip("torch")
    messages = []
    for lib, name in ((mt, "mt_pylib::noad"), (torch, "mt_pylib_ref::noad")):
        @lib.library.custom_op(name, mutates_args=())
        def noad(a: lib.Tensor) -> lib.Tensor:
            return a * 2
        y = noad(lib.ones(2, requires_grad=True))
        assert y.requires_grad
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        messages.append(str(info.value).replace("mt_pylib_ref", "mt_pylib"))
    assert messages[0] == messages[1]


def test_output_aliasing_an_input_is_refused():
    @custom_op("mt_pylib::alias", mutates_args=())
    def alias(a: Tensor) -> Tensor:
        return a
    with pytest.raises(RuntimeError, match=r"alias \(with implementation in .*\): The output of "
                                           r"this custom operator \(1\) must not also be an input"):
        alias(mt.ones(2))


def test_schema_inference():
    def f(a: Tensor, n: int, xs: list[int], s: str = "x", f: float = 2.0, b: bool = False,
          t: Tensor | None = None, *, k: int = 3) -> tuple[Tensor, Tensor]:
        pass
    assert infer_schema(f, mutates_args=()) == (
        "(Tensor a, int n, int[] xs, str s='x', float f=2.0, bool b=False, Tensor? t=None, *, "
        "int k=3) -> (Tensor, Tensor)")
    assert infer_schema(f, mutates_args=(), op_name="g").startswith("g(Tensor a")

    def unannotated(a) -> Tensor:
        pass
    with pytest.raises(ValueError, match="Parameter a must have a type annotation"):
        infer_schema(unannotated, mutates_args=())
    with pytest.raises(ValueError, match="not parameters of the function"):
        infer_schema(f, mutates_args=("zz",))


def test_many_argument_kinds_and_tuple_results():
    @custom_op("mt_pylib::kinds", mutates_args=())
    def kinds(a: Tensor, xs: list[int], t: Tensor | None = None, *, scale: float = 1.0
              ) -> tuple[Tensor, Tensor]:
        base = a.sum(xs) * scale
        return base, base if t is None else base + t.sum()
    x = mt.arange(6.0).reshape(2, 3)
    s, r = kinds(x, [1])
    assert s.tolist() == [3.0, 12.0] and r.tolist() == [3.0, 12.0]
    s, r = kinds(x, [0, 1], mt.ones(2), scale=2.0)
    assert s.item() == 30.0 and r.item() == 32.0


def test_mutating_op_returning_none():
    @custom_op("mt_pylib::fill_ones", mutates_args=("a",))
    def fill_ones(a: Tensor) -> None:
        a.fill_(1.0)
    x = mt.zeros(3)
    assert fill_ones(x) is None and x.tolist() == [1.0, 1.0, 1.0]


def test_name_must_have_a_namespace():
    with pytest.raises(ValueError, match="Expected name to be of form 'namespace::opname'"):
        custom_op("nonamespace", mutates_args=())


def test_register_by_name_and_fake_is_stored_not_called():
    @custom_op("mt_pylib::twice", mutates_args=())
    def twice(a: Tensor) -> Tensor:
        return a * 2
    calls = []

    def fake(a):
        calls.append(a)
        return mt.empty_like(a)
    assert register_fake("mt_pylib::twice", fake) is fake
    register_autograd("mt_pylib::twice", lambda ctx, g: g * 2)
    x = mt.ones(2, requires_grad=True)
    twice(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and calls == []
    with pytest.raises(ValueError, match="expected a custom op"):
        register_autograd("mt_pylib::unknown", lambda ctx, g: g)
