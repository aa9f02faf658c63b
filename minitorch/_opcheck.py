"""minitorch.library.opcheck: torch.library.opcheck's checks of a custom op
(minitorch.library.custom_op, or a C op of MT->register_op) on sample
arguments, with torch's test names, result dict and wording:

- test_schema: the op changes no tensor argument its schema does not declare
  mutated (mutates_args), and returns no tensor sharing memory with an input;
- test_autograd_registration: with inputs that require grad, the op's
  floating outputs are connected to autograd;
- test_faketensor: the fake implementation (register_fake) gives outputs of
  the real ones' shapes and dtypes (minitorch has no FakeTensor: the fake
  runs on copies of the real arguments);
- test_aot_dispatch_dynamic (and _static): what torch.compile's AOT dispatch
  needs here, a fake implementation and a backward that runs; minitorch has
  no tracing, so the backward is run on the real op.

Every test runs on its own copy of the arguments.
"""
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

__all__ = ["opcheck", "OpCheckError", "MetadataMismatchError", "DEFAULT_TEST_UTILS"]

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor",
                      "test_aot_dispatch_dynamic")
ALL_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor",
                  "test_aot_dispatch_static", "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """A check of opcheck failed (its cause is the check's own exception)."""


class MetadataMismatchError(RuntimeError):
    """The fake implementation's outputs differ from the real ones."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Op:
    """What the checks need of an op: how to call it, its name and schema,
    the arguments it may mutate, and its fake implementation."""

    def __init__(self, op):
        from . import _C
        from .library import _OPS, CustomOpDef
        function = op._op if isinstance(op, CustomOpDef) else op
        qualname = getattr(function, "__name__", None)
        if not isinstance(qualname, str) or _C._custom_ops.get(qualname) is not function:
            raise ValueError(f"opcheck(op, ...): op must be a custom op (a CustomOpDef of "
                             f"minitorch.library.custom_op, or minitorch.ops.<namespace>.<name>), "
                             f"got {type(op)}")
        self.function = function
        self.qualname = qualname
        self.opdef = op if isinstance(op, CustomOpDef) else _OPS.get(qualname)
        self.schema = function.__doc__ or ""
        self.params = _param_names(self.schema)
        # mutates_args="unknown" declares every argument mutable; a C op none
        mutated = self.opdef._mutated if self.opdef is not None else ()
        self.mutable = tuple(self.params) if mutated is None else mutated
        namespace, name = qualname.split("::")
        self.overload_name = f"{namespace}.{name}.default"
        self.short_name = name

    def __call__(self, args, kwargs):
        return self.function(*args, **kwargs)

    def fake(self) -> Callable:
        fake = self.opdef._fake_fn if self.opdef is not None else None
        if fake is None:
            what = repr(self.opdef) if self.opdef is not None else self.qualname
            raise RuntimeError(
                f"There was no fake impl registered for {what}. This is necessary for "
                f"torch.compile/export/fx tracing to work. Please use "
                f"`{self.short_name}.register_fake` to add an fake impl.")
        return fake


def _param_names(schema: str):
    inner = schema[schema.index("(") + 1:schema.index(")")] if "(" in schema else ""
    return [p.split("=")[0].split()[-1] for p in inner.split(", ") if p and p != "*"]


# ------------------------------------------------------------ arguments

def _tensor_type():
    from . import Tensor
    return Tensor


def _copy(value):
    """A deep copy of the arguments: each tensor cloned, with its requires_grad."""
    Tensor = _tensor_type()
    if isinstance(value, Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def _named_tensors(op: _Op, args, kwargs):
    """(parameter name, tensor) of every tensor argument, lists included."""
    Tensor = _tensor_type()
    named = list(zip(op.params, args)) + list(kwargs.items())
    out = []
    for name, value in named:
        items = value if isinstance(value, (list, tuple)) else (value,)
        out += [(name, t) for t in items if isinstance(t, Tensor)]
    return out


def _outputs(result):
    Tensor = _tensor_type()
    items = result if isinstance(result, (list, tuple)) else (result,)
    return [t for t in items if isinstance(t, Tensor)]


def _same_values(a, b) -> bool:
    import minitorch as mt
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return mt.equal(a.isnan(), b.isnan()) and mt.equal(a.nan_to_num(0.0), b.nan_to_num(0.0))
    return mt.equal(a, b)


def _memory(t) -> Tuple[int, int]:
    """The bytes [start, end) the elements of t lie in."""
    start = end = t.data_ptr()
    for size, stride in zip(t.shape, t.stride()):
        reach = (size - 1) * stride * t.element_size()
        if reach < 0:
            start += reach
        else:
            end += reach
    return start, end + t.element_size()


def _shares_memory(a, b) -> bool:
    if a.numel() == 0 or b.numel() == 0:
        return False
    (a0, a1), (b0, b1) = _memory(a), _memory(b)
    return a0 < b1 and b0 < a1


# ------------------------------------------------------------ the checks

def _test_schema(op: _Op, args, kwargs):
    args, kwargs = _copy(args), _copy(kwargs)
    inputs = _named_tensors(op, args, kwargs)
    before = [(name, t, t._version, t.detach().clone()) for name, t in inputs]
    result = op(args, kwargs)
    for name, t, version, copy in before:
        if name in op.mutable:
            continue
        if t._version != version or not _same_values(t.detach(), copy):
            raise RuntimeError(f"Argument {name} is not defined as mutable but was mutated")
    for out in _outputs(result):
        for name, t in inputs:
            if out is t or _shares_memory(out, t):
                raise RuntimeError(f"Argument {name} is not defined to alias output but was "
                                   "aliasing")


def _requires_grad(inputs) -> bool:
    import minitorch as mt
    return mt.is_grad_enabled() and any(t.requires_grad for _, t in inputs)


def _test_autograd_registration(op: _Op, args, kwargs):
    args, kwargs = _copy(args), _copy(kwargs)
    if not _requires_grad(_named_tensors(op, args, kwargs)):
        return
    outputs = [t for t in _outputs(op(args, kwargs))
               if t.is_floating_point() or t.is_complex()]
    if outputs and not any(t.requires_grad for t in outputs):
        raise AssertionError(
            f"{op.qualname}: at least one input requires grad but no output of this operator "
            f"does: the operator has no autograd kernel. Use register_autograd to add one, or, "
            f"if the operator is not differentiable, pass inputs that do not require grad.")


def _test_faketensor(op: _Op, args, kwargs):
    import minitorch as mt
    fake_fn = op.fake()
    real = op(_copy(args), _copy(kwargs))
    fake_args, fake_kwargs = _copy(args), _copy(kwargs)
    with mt.no_grad():
        fake = fake_fn(*fake_args, **fake_kwargs)
    several = isinstance(real, (list, tuple))
    reals = list(real) if several else [real]
    fakes = list(fake) if isinstance(fake, (list, tuple)) else [fake]
    prefix = (f"When comparing the output of {op.overload_name} on FakeTensor and concrete "
              f"Tensors, found mismatched")
    if len(reals) != len(fakes):
        raise MetadataMismatchError(f"{prefix} number of outputs: {len(reals)} and "
                                    f"{len(fakes)} are not equal!")
    Tensor = _tensor_type()
    for i, (r, f) in enumerate(zip(reals, fakes)):
        where = f" for output[{i}]" if several else ""
        if isinstance(r, Tensor) != isinstance(f, Tensor):
            raise MetadataMismatchError(f"{prefix} outputs{where}: {type(r).__name__} and "
                                        f"{type(f).__name__} are not equal!")
        if not isinstance(r, Tensor):
            continue
        if r.shape != f.shape:
            raise MetadataMismatchError(f"{prefix} tensor metadata{where}: Shapes {r.shape} and "
                                        f"{f.shape} are not equal!")
        if r.dtype != f.dtype:
            raise MetadataMismatchError(f"{prefix} tensor metadata{where}: Dtypes {r.dtype} and "
                                        f"{f.dtype} are not equal!")


def _test_aot_dispatch(op: _Op, args, kwargs):
    import minitorch as mt
    args, kwargs = _copy(args), _copy(kwargs)
    leaves = [t for _, t in _named_tensors(op, args, kwargs) if t.requires_grad]
    result = op(args, kwargs)
    outputs = [t for t in _outputs(result) if t.requires_grad]
    # torch's check runs the backward before it traces with the fake
    if leaves and outputs and mt.is_grad_enabled():
        mt.autograd.grad(outputs, leaves, [mt.ones_like(t) for t in outputs], allow_unused=True)
    op.fake()


_TESTS: Dict[str, Callable] = {
    "test_schema": _test_schema,
    "test_autograd_registration": _test_autograd_registration,
    "test_faketensor": _test_faketensor,
    "test_aot_dispatch_static": _test_aot_dispatch,
    "test_aot_dispatch_dynamic": _test_aot_dispatch,
}


def opcheck(op, args: Sequence[Any], kwargs: Optional[Dict[str, Any]] = None, *,
            test_utils: Union[str, Sequence[str]] = DEFAULT_TEST_UTILS,
            raise_exception: bool = True, atol: Optional[float] = None,
            rtol: Optional[float] = None) -> Dict[str, Any]:
    """Checks a custom op on sample arguments, as torch.library.opcheck: a dict
    of each test's name to "SUCCESS" or, with raise_exception=False, the
    exception it failed with; with raise_exception=True the first failure
    raises OpCheckError. atol and rtol are accepted for torch's signature
    (minitorch compares no traced results)."""
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not set(test_utils) <= set(ALL_TEST_UTILS):
        raise ValueError(f"opcheck(op, ..., test_utils={tuple(test_utils)}), expected test_utils "
                         f"to be subset of {ALL_TEST_UTILS} but it was not")
    checked = _Op(op)
    kwargs = {} if kwargs is None else kwargs
    args = tuple(args)
    results: Dict[str, Any] = {}
    for name in test_utils:
        try:
            _TESTS[name](checked, args, kwargs)
        except Exception as e:  # every failure is the check's result
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {e} (scroll up for "
                                   f"stack trace)") from e
            results[name] = e
            continue
        results[name] = "SUCCESS"
    return results
