"""minitorch.library.opcheck against torch.library.opcheck: the same ops
(correct, mutating an input it does not declare, returning an input, with a
wrong fake, without a fake, without autograd) defined in both libraries give
the same result dicts and the same failure wording."""
import pytest

import minitorch as mt
from minitorch.library import OpCheckError, custom_op, opcheck

torch = pytest.importorskip("torch")

_defined = {}


def _ops(lib, ns):
    """Every op of the tests, defined in minitorch (lib=mt) or torch."""
    if (lib, ns) in _defined:
        return _defined[(lib, ns)]
    T = lib.Tensor
    ops = {}

    @lib.library.custom_op(f"{ns}::good", mutates_args=())
    def good(a: T, b: T, alpha: float = 1.0) -> T:
        return a + alpha * b
    good.register_fake(lambda a, b, alpha=1.0: lib.empty_like(a))
    good.register_autograd(lambda ctx, g: (g, g * ctx.alpha, None),
                           setup_context=lambda ctx, inputs, output: setattr(ctx, "alpha",
                                                                              inputs[2]))
    ops["good"] = good

    @lib.library.custom_op(f"{ns}::mutates", mutates_args=())
    def mutates(a: T) -> T:
        a.add_(1)
        return a.clone()
    mutates.register_fake(lambda a: lib.empty_like(a))
    ops["mutates"] = mutates

    @lib.library.custom_op(f"{ns}::declared", mutates_args=("a",))
    def declared(a: T) -> None:
        a.mul_(2)
    declared.register_fake(lambda a: None)
    ops["declared"] = declared

    @lib.library.custom_op(f"{ns}::bad_shape", mutates_args=())
    def bad_shape(a: T) -> T:
        return a * 2
    bad_shape.register_fake(lambda a: a.new_empty(a.shape[0] + 1))
    ops["bad_shape"] = bad_shape

    @lib.library.custom_op(f"{ns}::bad_dtype", mutates_args=())
    def bad_dtype(a: T) -> T:
        return a * 2
    bad_dtype.register_fake(lambda a: a.new_empty(a.shape, dtype=lib.float64))
    ops["bad_dtype"] = bad_dtype

    @lib.library.custom_op(f"{ns}::pair", mutates_args=())
    def pair(a: T) -> tuple[T, T]:
        return a * 2, a.sum()
    pair.register_fake(lambda a: (lib.empty_like(a), a.new_empty(2)))
    ops["pair"] = pair

    @lib.library.custom_op(f"{ns}::no_fake", mutates_args=())
    def no_fake(a: T) -> T:
        return a * 2
    ops["no_fake"] = no_fake

    @lib.library.custom_op(f"{ns}::no_autograd", mutates_args=())
    def no_autograd(a: T) -> T:
        return a * 2
    no_autograd.register_fake(lambda a: lib.empty_like(a))
    ops["no_autograd"] = no_autograd

    @lib.library.custom_op(f"{ns}::returns_input", mutates_args=())
    def returns_input(a: T) -> T:
        return a
    returns_input.register_fake(lambda a: lib.empty_like(a))
    ops["returns_input"] = returns_input
    _defined[(lib, ns)] = ops
    return ops


def _args(lib, name, requires_grad):
    g = mt.Generator().manual_seed(len(name))
    values = [mt.randn(3, 4, generator=g).tolist() for _ in range(2)]
    made = [lib.tensor(v, requires_grad=requires_grad) for v in values]
    if name == "good":
        return (made[0], made[1]), {"alpha": 2.0}
    return (made[0],), None


def _run(lib, name, requires_grad, **kw):
    ops = _ops(lib, "mt_opcheck" if lib is mt else "mt_opcheck_ref")
    args, kwargs = _args(lib, name, requires_grad)
    return lib.library.opcheck(ops[name], args, kwargs, **kw)


def _summary(result, torch_names=False):
    """The dict with each exception as (type name, message); with
    torch_names, torch's names in the messages spelled as ours."""
    spell = _ours if torch_names else str
    return {k: v if v == "SUCCESS" else (type(v).__name__, spell(str(v)))
            for k, v in result.items()}


def _ours(text):
    return (text.replace("mt_opcheck_ref", "mt_opcheck").replace("torch.Size", "minitorch.Size")
            .replace("torch.float", "minitorch.float"))


NAMES = ["good", "mutates", "declared", "bad_shape", "bad_dtype", "pair", "no_fake",
         "no_autograd"]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_results_match_torch(name, requires_grad):
    ours = _run(mt, name, requires_grad, raise_exception=False)
    theirs = _run(torch, name, requires_grad, raise_exception=False)
    assert list(ours) == list(theirs)
    assert _summary(ours) == _summary(theirs, torch_names=True)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("good", "declared")])
def test_raised_errors_match_torch(name):
    requires_grad = name == "no_autograd"
    with pytest.raises(OpCheckError) as ours:
        _run(mt, name, requires_grad)
    with pytest.raises(Exception) as theirs:
        _run(torch, name, requires_grad)
    assert type(theirs.value).__name__ == "OpCheckError"
    assert str(ours.value) == _ours(str(theirs.value))
    assert str(ours.value).startswith("opcheck(op, ...): test_")
    assert str(ours.value).endswith(" (scroll up for stack trace)")
    assert isinstance(ours.value.__cause__, Exception)


def test_expected_failures_are_the_documented_ones():
    r = _summary(_run(mt, "mutates", False, raise_exception=False))
    assert r["test_schema"] == ("RuntimeError",
                                "Argument a is not defined as mutable but was mutated")
    r = _summary(_run(mt, "bad_shape", False, raise_exception=False))
    assert r["test_faketensor"] == (
        "MetadataMismatchError", "When comparing the output of mt_opcheck.bad_shape.default on "
        "FakeTensor and concrete Tensors, found mismatched tensor metadata: Shapes "
        "minitorch.Size([3, 4]) and minitorch.Size([4]) are not equal!")
    r = _summary(_run(mt, "no_autograd", True, raise_exception=False))
    assert r["test_aot_dispatch_dynamic"] == (
        "RuntimeError", "Trying to backward through mt_opcheck.no_autograd.default but no "
        "autograd formula was registered. Please use register_autograd to add one.")
    assert _run(mt, "no_autograd", False) == dict.fromkeys(
        ["test_schema", "test_autograd_registration", "test_faketensor",
         "test_aot_dispatch_dynamic"], "SUCCESS")


def test_returning_an_input_fails_the_schema_test():
    ours = _summary(_run(mt, "returns_input", False, raise_exception=False))
    theirs = _summary(_run(torch, "returns_input", False, raise_exception=False), True)
    assert list(ours) == list(theirs)
    assert ours["test_schema"][0] == theirs["test_schema"][0] == "RuntimeError"
    for text in (ours["test_schema"][1], theirs["test_schema"][1]):
        assert "must not also be an input to this custom operator" in text


def test_arguments_are_not_changed():
    ops = _ops(mt, "mt_opcheck")
    a = mt.ones(3)
    assert opcheck(ops["declared"], (a,)) == dict.fromkeys(
        ["test_schema", "test_autograd_registration", "test_faketensor",
         "test_aot_dispatch_dynamic"], "SUCCESS")
    assert a.tolist() == [1.0, 1.0, 1.0]  # each test mutated its own copy


def test_test_utils_selection_and_validation():
    ops = _ops(mt, "mt_opcheck")
    args = (mt.ones(2),)
    assert opcheck(ops["no_fake"], args, test_utils="test_schema") == {"test_schema": "SUCCESS"}
    both = opcheck(ops["no_fake"], args, test_utils=("test_autograd_registration",
                                                     "test_aot_dispatch_static"),
                   raise_exception=False)
    assert both["test_autograd_registration"] == "SUCCESS"
    assert "There was no fake impl registered for <CustomOpDef(mt_opcheck::no_fake)>" in str(
        both["test_aot_dispatch_static"])
    with pytest.raises(ValueError) as ours:
        opcheck(ops["good"], args, test_utils="bogus")
    with pytest.raises(ValueError) as theirs:
        torch.library.opcheck(_ops(torch, "mt_opcheck_ref")["good"], (torch.ones(2),),
                              test_utils="bogus")
    assert str(ours.value) == str(theirs.value)


def test_op_forms_and_refusals():
    ops = _ops(mt, "mt_opcheck")
    args = (mt.ones(2), mt.ones(2))
    expected = opcheck(ops["good"], args)
    assert opcheck(mt.ops.mt_opcheck.good, args) == expected
    with pytest.raises(ValueError, match=r"^opcheck\(op, \.\.\.\): op must be a custom op .* "
                                         r"got <class 'function'>$"):
        opcheck(lambda x: x, (mt.ones(2),))
    with pytest.raises(ValueError, match=r"got <class 'minitorch._C.builtin_function'>"):
        opcheck(mt.add, args)


def test_unknown_mutation_declares_every_argument():
    @custom_op("mt_opcheck::unknown", mutates_args="unknown")
    def unknown(a: mt.Tensor) -> mt.Tensor:
        a.add_(1)
        return a.clone()
    unknown.register_fake(lambda a: mt.empty_like(a))
    assert opcheck(unknown, (mt.ones(2),))["test_schema"] == "SUCCESS"
