"""Finding the forward pre-hook that the legacy weight_norm or spectral_norm
installed for one parameter: both refuse a second hook on the same parameter
and remove theirs by parameter name."""
from ..modules.module import Module


def refuse_second_hook(module: Module, hook_type: type, name: str, what: str) -> None:
    """Raises if ``module`` already has a ``hook_type`` hook for ``name``."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, hook_type) and hook.name == name:
            raise RuntimeError(f"Cannot register two {what} hooks on the same parameter {name}")


def remove_hook(module: Module, hook_type: type, name: str, what: str) -> Module:
    """Runs the ``name`` hook's remove and unregisters it; raises if there is none."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
