"""Inference tensors, as torch has them: which tensors are inference tensors,
what they refuse outside inference mode (in-place writes, being saved for
backward, requiring grad, their version counter), and how normal tensors and
their views behave inside inference mode. Flags and error messages are
compared with torch's."""
import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

LIBS = [minitorch, torch]

INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can "
               "make a clone to get a normal tensor before doing inplace update.See "
               "https://github.com/pytorch/rfcs/pull/17 for more details.")
SAVE_MSG = ("Inference tensors cannot be saved for backward. Please do not use Tensors created "
            "in inference mode in computation tracked by autograd. To work around this, you can "
            "make a clone to get a normal tensor and use it in autograd, or use "
            "`torch.no_grad()` instead of `torch.inference_mode()`.")
VERSION_MSG = "Inference tensors do not track version counter."
REQUIRES_GRAD_MSG = ("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                     "allowed.")


def outcome(fn):
    """('ok', value) or (exception type name, message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return (type(e).__name__, str(e))


def none(_):
    return None


def both(scenario, *args):
    logs = [scenario(lib, *args) for lib in LIBS]
    assert logs[0] == logs[1], f"minitorch {logs[0]} != torch {logs[1]}"
    for lib in LIBS:
        assert not lib.is_inference_mode_enabled() and lib.is_grad_enabled()
    return logs[0]


SHAPES = [(), (3,), (1, 2, 3), (2, 0, 4)]
DTYPES = ["float32", "float64", "int64", "bool"]


def inference_tensor(lib, shape=(1, 2, 3), dtype="float32", requires_grad=False):
    with lib.inference_mode():
        t = lib.ones(shape, dtype=getattr(lib, dtype))
        if requires_grad:
            t.requires_grad_()
    return t


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensors_made_in_inference_mode(shape, dtype):
    def scenario(lib):
        normal = lib.zeros(shape, dtype=getattr(lib, dtype))
        with lib.inference_mode():
            made = [lib.ones(shape, dtype=getattr(lib, dtype)),
                    lib.full(shape, 2, dtype=getattr(lib, dtype)),
                    normal + normal,           # a functional op on a normal tensor
                    normal.clone(),
                    lib.tensor(np.zeros(shape).tolist()),
                    lib.from_numpy(np.zeros(shape)),
                    normal.to(lib.float32 if dtype == "float64" else lib.float64)]
            views = [normal.view(shape), normal.reshape(shape), normal.detach(), normal[...]]
            flags = [lib.is_inference(t) for t in made] + [t.is_inference() for t in views]
        return flags + [lib.is_inference(normal), normal.is_inference()]

    # a view of a normal tensor stays normal, even in inference mode
    assert both(scenario) == [True] * 7 + [False] * 4 + [False, False]


@pytest.mark.parametrize("requires_grad", [False, True])
def test_functional_and_inplace_ops_inside_inference_mode(requires_grad):
    def scenario(lib):
        log = []
        with lib.inference_mode():
            c = lib.ones(1, 2, 3, requires_grad=requires_grad)
            log.append((c.requires_grad, lib.is_inference(c)))
            out = c * c
            log.append((out.requires_grad, lib.is_inference(out), out.grad_fn is None))
            c.add_(2)
            log.append((c.requires_grad, lib.is_inference(c), c.sum().item()))
            c.mul_(out)
            v = c.view(-1)
            log.append((v.requires_grad, lib.is_inference(v), v._is_view()))
            v.zero_()
            log.append(c.sum().item())
        return log

    assert both(scenario) == [(requires_grad, True), (False, True, True),
                              (requires_grad, True, 18.0), (False, True, False), 0.0]


@pytest.mark.parametrize("requires_grad", [False, True])
def test_views_of_inference_tensors_outside(requires_grad):
    def scenario(lib):
        c = inference_tensor(lib, requires_grad=requires_grad)
        log = []
        for v in (c.view(-1), c[0], c.transpose(0, 1), c.detach(), c.view_as(c), c.unbind(1)[0]):
            log.append((lib.is_inference(v), v.requires_grad, v._is_view(), v.is_leaf,
                        v.grad_fn is None))
        return log

    assert both(scenario) == [(True, False, False, True, True)] * 6


@pytest.mark.parametrize("requires_grad", [False, True])
def test_functional_op_on_inference_tensor_outside(requires_grad):
    def scenario(lib):
        c = inference_tensor(lib, requires_grad=requires_grad)
        s = lib.ones(1, 2, 3, requires_grad=requires_grad)
        out = c + 1
        mixed = c.add(s)   # add saves nothing: inference inputs are fine
        log = [(lib.is_inference(out), out.requires_grad, out.is_leaf),
               (lib.is_inference(mixed), mixed.requires_grad)]
        if requires_grad:
            mixed.backward(lib.ones_like(mixed))
            log.append((c.grad.tolist(), s.grad.tolist()))
            stacked = lib.stack([s, c])  # stack saves nothing either
            log.append(stacked.requires_grad)
        return log

    log = both(scenario)
    assert log[0] == (False, requires_grad, not requires_grad)


@pytest.mark.parametrize("op", ["add_", "mul_", "zero_", "fill_", "setitem", "copy_", "out=",
                                "resize_", "clamp_", "index_fill_", "unsqueeze_"])
def test_inplace_on_inference_tensor_outside_is_refused(op):
    def run(lib, c):
        if op == "add_":
            return c.add_(1)
        if op == "mul_":
            return c.mul_(c.clone())
        if op == "zero_":
            return c.zero_()
        if op == "fill_":
            return c.fill_(3)
        if op == "setitem":
            c[0] = 5
            return None
        if op == "copy_":
            return c.copy_(lib.zeros(1, 2, 3))
        if op == "out=":
            s = lib.ones(1, 2, 3)
            return lib.mul(s, s, out=c)
        if op == "resize_":
            return c.resize_(3, 2)
        if op == "clamp_":
            return c.clamp_(0, 0.5)
        if op == "index_fill_":
            return c.index_fill_(2, lib.tensor([0]), 7.0)
        return c.unsqueeze_(0)

    def scenario(lib):
        c = inference_tensor(lib)
        refused = outcome(lambda: none(run(lib, c)))
        with lib.no_grad():  # no_grad does not make it allowed (but for resize_)
            refused_no_grad = outcome(lambda: none(run(lib, c)))
        with lib.inference_mode():
            inside = outcome(lambda: none(run(lib, c)))
        return [refused, refused_no_grad, inside]

    if op == "unsqueeze_" and not hasattr(minitorch.Tensor, "unsqueeze_"):
        pytest.skip("minitorch has no unsqueeze_")
    log = both(scenario)
    assert log[0] == ("RuntimeError", INPLACE_MSG)
    assert log[1] == (("ok", None) if op == "resize_" else ("RuntimeError", INPLACE_MSG))
    assert log[2] == ("ok", None)


def test_refused_inplace_leaves_values_alone():
    c = inference_tensor(minitorch)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        c.add_(5)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        c.resize_(6)
    assert c.shape == (1, 2, 3) and c.sum().item() == 6.0


def test_inplace_on_inference_leaf_requiring_grad():
    # autograd's own refusal comes first when grad mode is on
    def scenario(lib):
        c = inference_tensor(lib, requires_grad=True)
        log = [outcome(lambda: c.add_(1))]
        with lib.no_grad():
            log.append(outcome(lambda: c.add_(1)))
        s = lib.ones(1, 2, 3, requires_grad=True)
        log.append(outcome(lambda: lib.mul(s, s, out=c)))
        return log

    log = both(scenario)
    assert log[0] == ("RuntimeError",
                      "a leaf Variable that requires grad is being used in an in-place operation.")
    assert log[1] == ("RuntimeError", INPLACE_MSG)
    assert "don't support automatic differentiation" in log[2][1]


@pytest.mark.parametrize("op", ["mul", "mul_other", "div", "matmul", "exp_of_view", "mul_",
                                "stack_then_mul"])
def test_saving_inference_tensor_for_backward_is_refused(op):
    def scenario(lib):
        c = inference_tensor(lib, shape=(2, 2), requires_grad=True)
        plain = inference_tensor(lib, shape=(2, 2))
        s = lib.ones(2, 2, requires_grad=True)
        runs = {
            "mul": lambda: c * s,
            "mul_other": lambda: s * plain,
            "div": lambda: s / plain,
            "matmul": lambda: s @ plain,
            "exp_of_view": lambda: c.view(4).exp(),
            "mul_": lambda: s.clone().mul_(plain),
            "stack_then_mul": lambda: lib.stack([s, c]) * 2,
        }
        got = outcome(runs[op])
        if got[0] == "ok":
            return ("ok", got[1].requires_grad)
        return got

    # a view of an inference tensor is one too, with no history: exp records nothing
    expected = {"stack_then_mul": ("ok", True), "exp_of_view": ("ok", False)}.get(
        op, ("RuntimeError", SAVE_MSG))
    assert both(scenario) == expected


def test_saving_inference_tensor_without_grad_is_fine():
    def scenario(lib):
        plain = inference_tensor(lib, shape=(2, 2))
        s = lib.ones(2, 2)  # nothing requires grad: nothing is saved
        with lib.no_grad():
            a = (inference_tensor(lib, shape=(2, 2), requires_grad=True) * s).requires_grad
        return [(s * plain).sum().item(), a]

    assert both(scenario) == [4.0, False]


def test_custom_function_saving_inference_tensor():
    def scenario(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(y)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None

        c = inference_tensor(lib, shape=(3,))
        x = lib.ones(3, requires_grad=True)
        refused = outcome(lambda: Double.apply(x, c))
        with lib.no_grad():
            fine = Double.apply(x, c).tolist()
        return [refused, fine]

    assert both(scenario) == [("RuntimeError", SAVE_MSG), [2.0, 2.0, 2.0]]


@pytest.mark.parametrize("how", ["method", "attribute", "kwarg"])
def test_requires_grad_on_inference_tensor(how):
    def set_rg(lib, t, value):
        if how == "method":
            return t.requires_grad_(value).requires_grad
        if how == "attribute":
            t.requires_grad = value
            return t.requires_grad
        return lib.ones(2, requires_grad=value).requires_grad

    def scenario(lib):
        c = inference_tensor(lib, shape=(2,))
        log = [outcome(lambda: set_rg(lib, c, True)), outcome(lambda: set_rg(lib, c, False))]
        with lib.inference_mode():
            log.append(outcome(lambda: set_rg(lib, c, True)))
        return log

    log = both(scenario)
    if how == "kwarg":  # a factory outside inference mode makes a normal tensor
        assert log == [("ok", True), ("ok", False), ("ok", True)]
    else:
        assert log == [("RuntimeError", REQUIRES_GRAD_MSG), ("ok", False), ("ok", True)]


def test_version_counter():
    def scenario(lib):
        c = inference_tensor(lib)
        log = [outcome(lambda: c._version), outcome(lambda: c.view(-1)._version)]
        with lib.inference_mode():
            log.append(outcome(lambda: c._version))
        a = lib.ones(3)
        with lib.inference_mode():
            a.add_(1)  # a normal tensor's version moves on, even in inference mode
            a[0] = 4
            log.append(a._version)
        log.append(a._version)
        return log

    assert both(scenario) == [("RuntimeError", VERSION_MSG)] * 3 + [2, 2]


def test_inplace_in_inference_mode_invalidates_saved_tensor():
    def scenario(lib):
        s = lib.ones(1, 2, 3, requires_grad=True)
        a = s.clone()
        out = a * a
        with lib.inference_mode():
            a.add_(2)
        assert not lib.is_inference(a)
        got = outcome(lambda: out.backward(lib.ones_like(out)))
        return got[0], "modified by an inplace operation" in got[1]

    assert both(scenario) == ("RuntimeError", True)


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("op", ["add_", "mul_", "setitem"])
def test_normal_tensor_inplace_inside_then_outside(requires_grad, op):
    def scenario(lib):
        def fn(x):
            if op == "setitem":
                x[0] = 3.0
            else:
                getattr(x, op)(2)

        s = lib.ones(2, 3, requires_grad=requires_grad)
        a = s.clone()
        log = []
        with lib.inference_mode():
            fn(a)
            fn(a)
            v = a.view(-1)
            log.append((lib.is_inference(a), a.requires_grad, lib.is_inference(v),
                        v.requires_grad))
        fn(a)
        v = a.view(-1)
        log.append((lib.is_inference(a), a.requires_grad, lib.is_inference(v), v.requires_grad,
                    a.sum().item()))
        return log

    assert both(scenario)[0] == (False, requires_grad, False, requires_grad)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_view_of_normal_tensor_made_in_inference_mode(requires_grad):
    def scenario(lib):
        s = lib.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()
        log = []
        with lib.inference_mode():
            out = a.view(-1)
            tmp = out.view(-1)
            log.append((lib.is_inference(out), out.requires_grad, out._is_view(), out.is_leaf,
                        tmp._is_view(), tmp.is_leaf))
        y = out * out
        log.append((lib.is_inference(y), y.requires_grad))
        log.append(outcome(lambda: none(out.add_(2))))
        w = out.view(2, 3)
        log.append((lib.is_inference(w), w.requires_grad))
        return log

    log = both(scenario)
    assert log[0] == (False, requires_grad, True, True, True, True)
    assert log[1] == (False, requires_grad)
    if requires_grad:
        assert log[2] == ("RuntimeError",
                          "A view was created in inference mode and is being modified inplace in "
                          "normal mode. Given that this use case is ambiguous and error-prone, it "
                          "is forbidden. You can clarify your code by moving both the view and "
                          "the inplace either both inside the inference_mode block (if you don't "
                          "want the inplace to be tracked) or both outside (if you want the "
                          "inplace to be tracked).")
    else:
        assert log[2] == ("ok", None)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_inplace_on_view_inside_inference_mode(requires_grad):
    def scenario(lib):
        s = lib.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()
        log = []
        with lib.inference_mode():
            tmp = a.view(-1).view(-1)
            tmp.add_(2)  # fine inside, and seen by a's version counter
            log.append((lib.is_inference(tmp), tmp.requires_grad, a._version == tmp._version,
                        a._version, a.sum().item()))
        # the base changed since the view was made: using the view is refused
        log.append(outcome(lambda: none(tmp * 2))[0])
        log.append(outcome(lambda: none(a * 2))[0])
        return log

    log = both(scenario)
    assert log[0] == (False, requires_grad, True, 1, 18.0)
    assert log[1:] == (["RuntimeError", "ok"] if requires_grad else ["ok", "ok"])


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("op", ["add_", "zero_", "fill_"])
def test_base_modified_after_view_made_in_inference_mode(requires_grad, op):
    def write(t):
        getattr(t, op)(*(() if op == "zero_" else (1,)))

    def scenario(lib):
        s = lib.ones(2, 3, requires_grad=requires_grad)
        a = s.clone()
        with lib.inference_mode():
            direct = a.view_as(a)
            indirect = a.view(-1)
        log = [outcome(lambda: write(direct))]
        write(a)
        log.append(outcome(lambda: none(indirect.grad_fn)))
        return log

    log = both(scenario)
    if requires_grad:
        assert log[0][1].startswith("A view was created in inference mode and is being modified")
        assert log[1][1].startswith("A view was created in inference mode and its base or another "
                                    "view of its base has been modified inplace in normal mode.")
    else:
        assert log == [("ok", None), ("ok", None)]


def test_nested_inference_mode_false():
    def scenario(lib):
        log = []
        with lib.inference_mode():
            inf = lib.ones(2)
            with lib.inference_mode(False):
                normal = lib.ones(2)
                log.append((lib.is_inference(normal), lib.is_grad_enabled()))
                log.append(outcome(lambda: inf.add_(1))[0])  # refused here too
                x = lib.ones(2, requires_grad=True)
                log.append((x * 2).requires_grad)
                with lib.inference_mode():
                    log.append(lib.is_inference(lib.ones(2)))
                log.append(lib.is_inference(normal * 2))
            log.append(lib.is_inference(normal * 2))
        return log

    assert both(scenario) == [(False, True), "RuntimeError", True, True, False, True]


def test_inference_mode_decorator_outputs():
    def scenario(lib):
        @lib.inference_mode()
        def func(x):
            return x * x, lib.is_inference_mode_enabled()

        @lib.inference_mode
        def bare(x):
            return x + 1

        log = []
        for requires_grad in (True, False):
            c = lib.ones(1, 2, 3, requires_grad=requires_grad)
            d, inside = func(c)
            e = bare(c)
            log.append((inside, lib.is_inference(d), d.requires_grad, lib.is_inference(e)))
        return log

    assert both(scenario) == [(True, True, False, True)] * 2


def test_is_inference_arguments():
    for lib in LIBS:
        with pytest.raises(TypeError, match=r"is_inference\(\): argument 'input' \(position 1\) "
                                            r"must be Tensor, not int"):
            lib.is_inference(1)
        with pytest.raises(TypeError, match="is_inference"):
            lib.is_inference()
        assert lib.is_inference(input=lib.ones(1)) is False


def test_is_inference_dispatches_torch_function():
    seen = []

    class Logged(minitorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    t = minitorch.ones(2).as_subclass(Logged)
    assert minitorch.is_inference(t) is False and t.is_inference() is False
    assert seen == ["is_inference", "is_inference"]
    assert minitorch.is_inference in minitorch.overrides.get_testing_overrides()


def test_parameter_and_module_in_inference_mode():
    def scenario(lib):
        with lib.inference_mode():
            p = lib.nn.Parameter(lib.ones(2))
            lin = lib.nn.Linear(2, 2)
            out = lin(lib.ones(1, 2))
        return [lib.is_inference(p), p.requires_grad, lib.is_inference(lin.weight),
                lib.is_inference(out), out.requires_grad]

    assert both(scenario) == [True, True, True, True, False]


@pytest.mark.parametrize("view", ["view", "narrow", "transpose", "getitem"])
def test_view_of_view_made_in_inference_mode(view):
    def scenario(lib):
        s = lib.ones(2, 3, requires_grad=True)
        a = s.clone()
        with lib.inference_mode():
            inner = a.view_as(a)
        make = {"view": lambda t: t.view(-1), "narrow": lambda t: t.narrow(1, 0, 2),
                "transpose": lambda t: t.transpose(0, 1), "getitem": lambda t: t[1]}[view]
        outer = make(inner)
        return [outer.requires_grad, outcome(lambda: none(outer.mul_(2)))]

    log = both(scenario)
    assert log[0] is True
    assert log[1][1].startswith("Output 0 of ")
    assert "is a view of a view which was created in inference mode and is being modified " \
           "inplace in normal mode." in log[1][1]


def test_requires_grad_on_integer_inference_tensor_names_the_dtype():
    for lib in LIBS:
        with lib.inference_mode():
            i = lib.ones(2, dtype=lib.int64)
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            i.requires_grad_()
        assert i.requires_grad_(False).requires_grad is False
