"""Every public name has a real docstring (not missing, not only its
signature), and the op table's generated docstrings have torch's layout:
signatures, the row's description, Args and Keyword args from the glossary."""
import importlib
import inspect
import re
import types

import pytest

import minitorch
import minitorch.nn.functional as F

NAMESPACES = ["minitorch", "minitorch.nn", "minitorch.nn.functional", "minitorch.nn.init",
              "minitorch.nn.utils", "minitorch.nn.utils.rnn", "minitorch.nn.utils.parametrize",
              "minitorch.nn.utils.parametrizations", "minitorch.nn.utils.weight_norm",
              "minitorch.nn.utils.spectral_norm",
              "minitorch.optim", "minitorch.optim.lr_scheduler",
              "minitorch.autograd", "minitorch.autograd.functional",
              "minitorch.autograd.forward_ad", "minitorch.autograd.graph", "minitorch.linalg",
              "minitorch.fft",
              "minitorch.autograd.profiler", "minitorch.autograd.profiler_util",
              "minitorch.profiler", "minitorch.profiler.itt",
              "minitorch.special", "minitorch.signal.windows", "minitorch.masked",
              "minitorch.func", "minitorch.utils", "minitorch.utils.data",
              "minitorch.utils.checkpoint", "minitorch.utils.cpp_extension",
              "minitorch.utils._pytree", "minitorch.utils.benchmark",
              "minitorch.library", "minitorch.overrides", "minitorch.testing",
              "minitorch.distributions", "minitorch.distributions.constraints",
              "minitorch.cuda", "minitorch.backends", "minitorch.jit",
              "minitorch.multiprocessing", "minitorch.distributed", "minitorch.nn.parallel",
              "minitorch.serialization", "minitorch.utils.safetensors", "minitorch.onnx",
              "minitorch.utils.data.distributed"]

SIGNATURE_LINE = re.compile(r"^[\w.:]+\(.*\)( -> .*)?$")


def _public(ns):
    names = getattr(ns, "__all__", None) or [n for n in dir(ns) if not n.startswith("_")]
    for name in names:
        obj = getattr(ns, name, None)
        if obj is None or isinstance(obj, types.ModuleType):
            continue
        if not (callable(obj) or isinstance(obj, type)):
            continue
        module = getattr(obj, "__module__", None) or type(obj).__module__
        if module.startswith("minitorch"):
            yield name, obj


def _members(cls):
    """The public methods and properties a class defines itself, as getdoc sees
    them (a method without its own docstring inherits its base's)."""
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(value, property):
            yield name, value
        elif callable(value) or isinstance(value, (classmethod, staticmethod)):
            yield name, getattr(cls, name)


def _objects():
    seen = set()
    for mod in NAMESPACES:
        ns = importlib.import_module(mod)
        for name, obj in _public(ns):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield f"{mod}.{name}", obj
            if isinstance(obj, type):
                for member, value in _members(obj):
                    yield f"{mod}.{name}.{member}", value
    for name in dir(minitorch.Tensor):
        if not name.startswith("_"):
            yield f"minitorch.Tensor.{name}", getattr(minitorch.Tensor, name)


def _defect(doc):
    if not doc or not doc.strip():
        return "has no docstring"
    lines = [line.strip() for line in doc.strip().splitlines() if line.strip()]
    if all(SIGNATURE_LINE.match(line) for line in lines):
        return "documents only its signature"
    return None


def test_every_public_name_has_a_docstring():
    objects = list(_objects())
    assert len(objects) > 1200  # the walk reaches the namespaces it names
    defects = [f"{label} {why}" for label, obj in objects
               if (why := _defect(inspect.getdoc(obj)))]
    assert defects == []


def test_the_walk_finds_a_missing_docstring():
    def undocumented():
        return None

    def signature_only():
        pass
    signature_only.__doc__ = "signature_only(Tensor input) -> Tensor"
    assert _defect(inspect.getdoc(undocumented)) == "has no docstring"
    assert _defect(signature_only.__doc__) == "documents only its signature"
    assert _defect(minitorch.add.__doc__) is None


def _op_functions():
    builtin, method = type(minitorch.add), type(minitorch.Tensor.add)
    for ns, label in ((minitorch, "minitorch"), (minitorch.Tensor, "Tensor"), (F, "F")):
        for name in dir(ns):
            obj = getattr(ns, name)
            if type(obj) in (builtin, method):
                yield f"{label}.{name}", obj


def test_every_op_table_function_has_a_description_and_glossary_wording():
    functions = list(_op_functions())
    assert len(functions) > 600
    for label, f in functions:
        head, sep, rest = f.__doc__.partition("\n\n")
        assert sep, label
        description = rest.split("\n\n")[0]
        assert "\n" not in description and description.endswith("."), label
        assert "see the description" not in rest, label  # a parameter missing from the glossary


def test_generated_function_docstring():
    assert minitorch.add.__doc__ == (
        "add(input, other, *, alpha=1, out=None)\n"
        "\n"
        "Adds other, scaled by alpha, to input.\n"
        "\n"
        "Args:\n"
        "    input (Tensor or Number): the input tensor.\n"
        "    other (Tensor or Number): the second operand.\n"
        "\n"
        "Keyword args:\n"
        "    alpha (Number): the multiplier of the other operand (or of the product). "
        "Default: ``1``.\n"
        "    out (Tensor, optional): the tensor to write the result into.")


def test_generated_method_docstring_leaves_out_self():
    assert minitorch.Tensor.transpose.__doc__ == (
        "transpose(dim0, dim1)\n"
        "\n"
        "Returns a view of input with dimensions dim0 and dim1 swapped.\n"
        "\n"
        "Args:\n"
        "    dim0 (int): the first dimension to swap.\n"
        "    dim1 (int): the second dimension to swap (diagonal: the first dimension of its 2-d "
        "sub-tensors).")


def test_overloads_show_every_signature_and_each_parameter_once():
    doc = minitorch.max.__doc__
    # in the order torch's parser tries them: a tensor other before an int dim;
    # as torch's, a line shows what its row returns where it is no Tensor
    assert doc.startswith("max(input, *, out=None)\nmax(input, other, *, out=None)\n"
                          "max(input, dim, keepdim=False, *, out=None) -> (Tensor values, "
                          "Tensor indices)\n\nReturns the maximum")
    args = doc.split("Args:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in args] == ["input", "other", "dim", "keepdim"]


def test_a_row_stating_its_result_shows_it_as_torch_does():
    torch = pytest.importorskip("torch")
    for name in ("numel", "is_floating_point", "equal"):
        ours, theirs = (getattr(lib, name).__doc__.strip().split("\n")[0] for lib in (minitorch, torch))
        assert ours.split(" -> ")[1] == theirs.split(" -> ")[1]
    assert minitorch.Tensor.dim.__doc__.startswith("dim() -> int\n")


def test_string_defaults_are_quoted_and_optional_types_marked():
    doc = F.gelu.__doc__
    assert doc.startswith("gelu(input, approximate='none', *, out=None)\n")
    assert "    approximate (str): 'none' for the exact formula" in doc
    assert "Default: ``'none'``." in doc
    assert "    dtype (minitorch.dtype, optional): " in minitorch.sum.__doc__


def test_operator_forms_describe_themselves_through_their_operator():
    assert minitorch.Tensor.add_.__doc__.split("\n\n")[1] == "In-place version of add()."
    assert minitorch.Tensor.__radd__.__doc__.startswith(
        "__radd__(other)\n\nImplements the reflected operator __radd__ as add(other, self).")
    assert "as sub_(self, other), in place" in minitorch.Tensor.__isub__.__doc__
    assert minitorch.exp_.__doc__.split("\n\n")[1] == "In-place version of exp()."


def test_the_same_row_documents_function_and_method_alike():
    def description(f):
        return f.__doc__.split("\n\n")[1]
    for name in ("add", "sum", "matmul", "clamp", "sort"):
        assert description(getattr(minitorch, name)) == description(
            getattr(minitorch.Tensor, name)), name


def test_c_level_functions_carry_their_text_signature():
    assert str(inspect.signature(minitorch.Tensor.backward)) == (
        "(self, /, gradient=None, retain_graph=None, create_graph=False, inputs=None)")
    assert "create_graph (bool)" in minitorch.Tensor.backward.__doc__
    assert str(inspect.signature(minitorch.promote_types)) == "(type1, type2, /)"
