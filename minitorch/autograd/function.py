"""Custom differentiable operations: ``minitorch.autograd.Function``.

A Function's backward is a node kind of the C graph (csrc/python/py_function.c):
``apply`` runs ``forward`` with grad mode off and hands the outputs to
``_C._function_record``, which builds the node; the engine later calls back
into ``backward`` (or ``vjp``) through that node.
"""
import functools
import inspect
import warnings
from typing import Any, Tuple

from .. import _C
from .forward_ad import _set_fwd_grad_enabled
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable",
           "InplaceFunction", "NestedIOFunction"]


def _tensor_type():
    from .._tensor import Tensor
    return Tensor


class FunctionCtx:
    """The ``ctx`` a Function's forward/setup_context and backward receive."""

    def save_for_backward(self, *tensors):
        """Saves given tensors for a future call to :func:`~Function.backward`.

        Call it at most once, from forward or setup_context, with tensors (inputs,
        outputs or intermediates) or None; read them back with ``saved_tensors``."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Saves given tensors for a future call to :func:`~Function.jvp`, which
        reads them back with ``saved_tensors``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _tensor_type()):
                raise AssertionError("save_for_forward expects all arguments to be tensors; "
                                     f"but got {type(t)}.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Marks given tensors as modified in an in-place operation; they must be
        returned as outputs."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        warnings.warn("mark_shared_storage is deprecated. Tensors with shared storages are "
                      "automatically tracked. Note that calls to `set_()` are not tracked")

    def mark_non_differentiable(self, *args):
        """Marks outputs as non-differentiable: they will not require gradients and
        their gradient in backward is always zeros (or None without materialization)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool):
        """Sets whether to materialize grad tensors. Default is ``True``; with
        ``False`` the gradient of an unused output arrives in backward as None."""
        self.materialize_grads = value


class BackwardCFunction(_C._FunctionBase, FunctionCtx):
    """The class of ``ctx``: one subclass per Function, named ``<Function>Backward``."""

    to_save = None
    dirty_tensors = ()
    non_differentiable = ()
    materialize_grads = True
    # False: the grads of outputs marked non-differentiable stay None even
    # when grads are materialized
    _materialize_non_diff_grads = True
    needs_input_grad: Tuple[bool, ...] = ()

    def apply(self, *args):
        """Calls the Function's backward (or vjp) with this ctx."""
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        user_fn = vjp_fn if vjp_fn is not Function.vjp else backward_fn
        return user_fn(self, *args)


class FunctionMeta(type):
    """Gives every Function class its ctx class and its C node kind."""

    def __init__(cls, name, bases, attrs):
        # the ctx class is also the class of the Function's grad_fn nodes
        node_name = attrs.get("_node_name")
        cls._backward_cls = type(node_name or name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__,
                                  "clear_saved_tensors_on_access":
                                      getattr(cls, "clear_saved_tensors_on_access", False)})
        # _node_name: the name torch gives the node of one of its own
        # Functions (minitorch.autograd._functions), if not <name>Backward
        cls._node_kind = _C._function_kind(name, node_name)
        super().__init__(name, bases, attrs)


def _is_setup_context_defined(fn) -> bool:
    return fn is not Function.setup_context


def _bind_default_args(func, *args, **kwargs):
    code = getattr(func, "__code__", None)
    if (not kwargs and code is not None and code.co_argcount == 0
            and code.co_kwonlyargcount == 0 and code.co_flags & inspect.CO_VARARGS):
        return args  # forward(*args), as custom ops define it: binding changes nothing
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


class Function(FunctionCtx, metaclass=FunctionMeta):
    r"""Base class to create custom autograd.Function.

    Subclass it, implement ``forward`` and ``backward`` (or ``vjp``) as static
    methods, and call ``Function.apply``::

        >>> class Exp(Function):
        >>>     @staticmethod
        >>>     def forward(ctx, i):
        >>>         result = i.exp()
        >>>         ctx.save_for_backward(result)
        >>>         return result
        >>>
        >>>     @staticmethod
        >>>     def backward(ctx, grad_output):
        >>>         result, = ctx.saved_tensors
        >>>         return grad_output * result
        >>>
        >>> output = Exp.apply(input)

    ``forward`` runs with grad mode off; ``apply`` records one graph node
    whose backward calls ``backward(ctx, *grad_outputs)``, which returns one
    gradient per forward input (None where there is none). On ``ctx``:
    ``save_for_backward`` keeps tensors for backward (``ctx.saved_tensors``,
    checked against in-place changes), ``mark_dirty`` declares inputs forward
    changed in place, ``mark_non_differentiable`` outputs with no gradient,
    ``needs_input_grad`` says which inputs want one. Define ``jvp`` for
    forward-mode AD, and ``vmap`` (or ``generate_vmap_rule = True``) for
    ``func.vmap``. Backward is itself differentiable when it is written with
    differentiable operations, so double backward works.
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        """Raises RuntimeError: call ``Function.apply`` instead of an instance (legacy Functions
        are not supported).
        """
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Defines the forward of the custom autograd Function: either
        ``forward(ctx, *args, **kwargs)``, or ``forward(*args, **kwargs)`` together
        with ``setup_context(ctx, inputs, output)``."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> Any:
        """Fills ctx when forward does not take it: ``inputs`` are forward's
        positional arguments, ``output`` what it returned."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Gradient formula: one gradient per output in, one per forward input
        out (None for inputs that need none or are not tensors)."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward-mode formula: one tangent per forward input in, one tangent per
        output out. Needed for ``autograd.forward_ad`` and ``func.jvp``.
        """
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    # torch.func.vmap support: a Function either generates its batching rule
    # or overrides vmap
    generate_vmap_rule = False
    # True: the node frees what save_for_backward kept when backward reads it
    # (saved_tensors may then be read once)
    clear_saved_tensors_on_access = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """Batching rule for ``func.vmap``: returns ``(outputs, out_dims)`` for inputs
        batched along ``in_dims``. Override it, or set ``generate_vmap_rule = True``
        to run forward per batch with the other transforms.
        """
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward and records the call in the graph when an input requires grad."""
        Tensor = _tensor_type()
        setup_ctx = _is_setup_context_defined(cls.setup_context)
        if setup_ctx:
            args = _bind_default_args(cls.forward, *args, **kwargs)
            kwargs = {}
        ctx = cls._backward_cls()
        grad_on = _C.is_grad_enabled()
        needs = tuple(grad_on and isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx.needs_input_grad = needs
        input_tangents = [_C._fw_grad(a) if isinstance(a, Tensor) else None for a in args]
        with no_grad(), _set_fwd_grad_enabled(False):
            if setup_ctx:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        tangents = None
        if any(t is not None for t in input_tangents):
            tangents = _run_jvp(cls, ctx, args, input_tangents, len(outputs))
        raw_outputs = outputs
        to_save = ctx.to_save
        outputs = _C._function_record(
            ctx, cls._node_kind, args, outputs, () if to_save is None else tuple(to_save),
            tuple(ctx.non_differentiable), tuple(ctx.dirty_tensors),
            bool(ctx.materialize_grads), any(needs))
        if tangents is not None:
            _set_output_tangents(args, ctx, raw_outputs, outputs, input_tangents, tangents)
        # The node keeps what it needs; references from ctx to outputs would be cycles.
        for attr in ("to_save", "non_differentiable", "dirty_tensors", "saved_for_forward",
                     "_tangent_versions"):
            ctx.__dict__.pop(attr, None)
        return outputs if is_tuple else outputs[0]


def _differentiable(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _run_jvp(cls, ctx, args, input_tangents, nout):
    """Calls the Function's jvp with one tangent per forward argument (None for
    non-tensors and tensors of integral dtype); returns one tangent per output."""
    Tensor = _tensor_type()
    tangents = [_C._functions["zeros_like"](a)
                if t is None and isinstance(a, Tensor) and ctx.materialize_grads
                and _differentiable(a) else t
                for a, t in zip(args, input_tangents)]
    # the dirty-output checks compare against the tangents' versions before jvp
    ctx._tangent_versions = [None if t is None else t._version for t in input_tangents]
    # jvp reads back what forward gave save_for_forward through saved_tensors
    to_save = ctx.to_save
    ctx.to_save = getattr(ctx, "saved_for_forward", None)
    try:
        with _set_fwd_grad_enabled(False):
            out = cls.jvp(ctx, *tangents)
    finally:
        ctx.to_save = to_save
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != nout:
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {nout} but got {len(out)})")
    for i, t in enumerate(out):
        if t is not None and not isinstance(t, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(t).__name__}) for grad "
                               f"output {i}.")
    return out


def _index_of(seq, x):
    return next((i for i, a in enumerate(seq) if a is x), None)


def _root(t):
    return t._base if t._is_view() else t


def _set_output_tangents(args, ctx, raw_outputs, outputs, input_tangents, tangents):
    """Gives each output the tangent jvp returned for it, with torch's checks: an
    input changed in place must have its tangent changed in place too, and an
    output that is a view of an input (or the input itself) needs a tangent that
    is the same view of the input's tangent."""
    Tensor = _tensor_type()
    versions = ctx.__dict__.pop("_tangent_versions")
    roots = [_root(a) if isinstance(a, Tensor) else None for a in args]
    for i, (raw, out, t) in enumerate(zip(raw_outputs, outputs, tangents)):
        if not (isinstance(raw, Tensor) and _differentiable(raw)
                and _index_of(ctx.non_differentiable, raw) is None):
            if t is not None:
                raise RuntimeError(
                    f"Function's jvp returned a gradient at position {i}, but  the corresponding "
                    "forward output is not a differentiable Tensor.You should return None at "
                    "that position instead.")
            continue
        if _index_of(ctx.dirty_tensors, raw) is not None:
            k = _index_of(args, raw)
            if k is None:
                raise RuntimeError("Only input Tensors should be given to ctx.mark_dirty(). If a "
                                   "Tensor is not an input, there is no need to pass it to "
                                   "mark_dirty().")
            if input_tangents[k] is not None:
                if t is None or t._version == versions[k]:
                    raise RuntimeError(
                        "An inplace custom Function is not modifying the forward mode gradients "
                        "inplace. If the forward is modifying an input inplace, then the jvp "
                        "function must modify the corresponding gradient inplace.")
                if t is not input_tangents[k]:
                    raise RuntimeError(
                        "An inplace custom Function is not returning the forward mode gradients "
                        "as-is. If the forward is modifying an input inplace, then the jvp "
                        "function must modify the gradient inplace and return it as-is.")
                continue
        elif out._is_view() and t is not None:
            k = _index_of(roots, out._base)
            given = None if k is None else input_tangents[k]
            if given is not None:
                if not t._is_view():
                    raise RuntimeError("A custom Function's forward is returning a view (or an "
                                       "input as-is) but the jvp is not returning a view.")
                if given._is_view() and given._base is not t._base:
                    raise RuntimeError("A custom Function is returning a view but the jvp is not "
                                       "returning a view of the same base as the given grad "
                                       "input.")
                if not given._is_view() and given is not t._base:
                    raise RuntimeError("A custom Function is returning a view but the jvp is not "
                                       "returning a view of the given grad input.")
        _C._set_fw_grad(out, t)


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (kept for torch compatibility)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Legacy interface; not supported."""


def once_differentiable(fn):
    """Marks a backward as not differentiable: it runs with grad mode off, and
    differentiating its result raises an error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        Tensor = _tensor_type()
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs

        def fake_requires_grad(v):
            if v is not None:
                v = v.detach()
                v.requires_grad = True
            return v

        err_fn = _C._functions.DelayedError(
            b"trying to differentiate twice a function that was marked with "
            b"@once_differentiable", len(outs))
        outs = err_fn(*(fake_requires_grad(v) for v in outs))
        return outs if single or isinstance(outs, tuple) else (outs,)

    return wrapper
