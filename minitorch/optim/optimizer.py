"""The Optimizer base class: parameter groups, per-parameter state and their
state_dict, as torch.optim.Optimizer."""
from collections import defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Dict, Iterable, List, Optional

from .. import _C
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, set_grad_enabled


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return "minitorch." + type(obj).__name__
    module = type(obj).__module__
    qualname = type(obj).__qualname__
    return qualname if module in ("builtins", "__builtin__", None) else f"{module}.{qualname}"


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`minitorch.Tensor` s or
            :class:`dict` s. Specifies what Tensors should be optimized.
        defaults: (dict): a dict containing default values of optimization
            options (used when a parameter group doesn't specify them).
    """

    def __init__(self, params: Iterable, defaults: Dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + _typename(params)
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: List[Dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> Dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def state_dict(self) -> Dict[str, Any]:
        r"""Returns the state of the optimizer as a :class:`dict`.

        It contains two entries: ``state``, a dict holding the current
        optimization state keyed by parameter index, and ``param_groups``, a
        list of the parameter groups with their parameters replaced by those
        indices."""
        param_mappings: Dict[int, int] = {}
        start_index = 0

        def pack_group(group: Dict[str, Any]) -> Dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {id(p): i for i, p in enumerate(group["params"], start_index)
                 if id(p) not in param_mappings}
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        r"""Loads the optimizer state.

        Args:
            state_dict (dict): optimizer state. Should be an object returned
                from a call to :meth:`state_dict`.
        """
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group "
                "that doesn't match the size of optimizer's group"
            )
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            # Tensors are copied; floating state follows the parameter's
            # dtype, except the step counter, which keeps its own.
            if isinstance(value, Tensor):
                if key != "step" and param.is_floating_point():
                    return value.to(dtype=param.dtype, copy=True)
                return value.clone()
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group: Dict[str, Any], new_group: Dict[str, Any]) -> Dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

    def zero_grad(self, set_to_none: bool = True) -> None:
        r"""Resets the gradients of all optimized :class:`minitorch.Tensor` s.

        Args:
            set_to_none (bool): instead of setting to zero, set the grads to None.
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.zero_()

    def step(self, closure: Optional[Callable[[], float]] = None) -> Optional[float]:
        r"""Performs a single optimization step (parameter update).

        Args:
            closure (Callable): A closure that reevaluates the model and
                returns the loss. Optional for most optimizers.
        """
        raise NotImplementedError

    def add_param_group(self, param_group: Dict[str, Any]) -> None:
        r"""Add a param group to the :class:`Optimizer` s `param_groups`.

        Args:
            param_group (dict): Specifies what Tensors should be optimized along
                with group specific optimization options.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, "
                    "but one of the params is " + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            import warnings

            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set: set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current} to the optimizer"
                )
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _refuse_complex(self, group: Dict[str, Any]) -> None:
        """Raises torch's error, before any update, when a parameter of group
        with a gradient is complex (for the optimizers torch defines only for
        real parameters)."""
        for p, _ in self._params_with_grad(group):
            if p.is_complex():
                raise RuntimeError(f"{type(self).__name__} does not support complex parameters")

    def _params_with_grad(self, group: Dict[str, Any]):
        """(param, grad) for the parameters of group that have a gradient."""
        for p in group["params"]:
            grad = p.grad
            if grad is not None:
                yield p, grad


_zeros_like = _C._functions["zeros_like"]
_scalar_tensor = _C._functions["tensor"]


class _GroupOptimizer(Optimizer):
    """An optimizer whose step hands each parameter group to its
    _update_group(group), run outside autograd as torch's optimizers run
    theirs, or inside it for an optimizer made with differentiable=True. Most
    updates are fused C calls, with their tensor-op form in optim.differentiable
    for differentiable=True; the newer optimizers' are tensor ops either way."""

    def step(self, closure: Optional[Callable[[], float]] = None) -> Optional[float]:
        """Performs a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _stepped_state(self, p, buffers, scalars=()):
        """p's state with its step counter advanced; made on p's first step as torch
        orders it: the float step tensor, the (name, value) scalar tensors, then a
        zeroed buffer like p for each name in buffers."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_tensor(0.0)
            for name, value in scalars:
                state[name] = _scalar_tensor(value)
            for name in buffers:
                state[name] = _zeros_like(p)
        state["step"] += 1
        return state


def _check_tensor_lr(lr) -> None:
    """torch's ValueError for a tensor lr of other than one element, checked
    before any comparison with it."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def _check_nonnegative(*checks) -> None:
    """torch's ValueError for the first (what, value) whose value is negative or NaN."""
    for what, value in checks:
        if not 0.0 <= value:
            raise ValueError(f"Invalid {what}: {value}")


def _check_betas(betas) -> None:
    """torch's ValueError for a beta outside [0, 1)."""
    for i, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _check_fused(fused, foreach, differentiable) -> None:
    """torch's RuntimeErrors for fused=True with differentiable or foreach (both
    checked after the parameter groups, as torch's are)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_flags(name: str, capturable: bool, differentiable: bool) -> None:
    # Updates run on the CPU, where no graph is captured.
    if capturable:
        raise RuntimeError(f"{name}: capturable=True is not supported by minitorch (CPU only)")
