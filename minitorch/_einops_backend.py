"""einops support: a backend einops finds for minitorch tensors.

einops picks a backend among the subclasses of einops._backends.
AbstractBackend whose framework_name is an imported module, so the backend
class must exist before einops looks. Importing einops at minitorch's import
would cost every user its import time, so install() defines the class when
einops._backends is (or once it gets) imported: at once if it is already,
else from a finder on sys.meta_path that runs after that module loads and
then takes itself off.
"""
import importlib.abc
import importlib.machinery
import sys

_EINOPS_BACKENDS = "einops._backends"
# einops finds backends through __subclasses__, which holds them weakly
_backend_class = None


def _define_backend():
    global _backend_class
    from einops._backends import AbstractBackend

    import minitorch

    class MinitorchBackend(AbstractBackend):
        framework_name = "minitorch"

        def __init__(self):
            self.torch = minitorch

        def is_appropriate_type(self, tensor):
            return isinstance(tensor, minitorch.Tensor)

        def from_numpy(self, x):
            variable = minitorch.from_numpy(x)
            if self.is_float_type(variable):
                variable.requires_grad = True
            return variable

        def to_numpy(self, x):
            return x.detach().resolve_conj().numpy()

        def arange(self, start, stop):
            return minitorch.arange(start, stop, dtype=minitorch.int64)

        def reduce(self, x, operation, reduced_axes):
            if operation in ("min", "max"):
                return getattr(x, "a" + operation)(dim=reduced_axes)
            if operation in ("sum", "mean"):
                return getattr(x, operation)(dim=reduced_axes)
            if operation in ("any", "all", "prod"):
                for axis in sorted(reduced_axes, reverse=True):
                    x = getattr(x, operation)(dim=axis)
                return x
            raise NotImplementedError("Unknown reduction ", operation)

        def transpose(self, x, axes):
            return x.permute(axes)

        def stack_on_zeroth_dimension(self, tensors):
            return minitorch.stack(tensors)

        def add_axes(self, x, n_axes, pos2len):
            repeats = [-1] * n_axes
            for axis_position, axis_length in pos2len.items():
                x = self.add_axis(x, axis_position)
                repeats[axis_position] = axis_length
            return x.expand(repeats)

        def tile(self, x, repeats):
            return x.repeat(repeats)

        def concat(self, tensors, axis):
            return minitorch.cat(tensors, dim=axis)

        def add_axis(self, x, new_position):
            return minitorch.unsqueeze(x, new_position)

        def is_float_type(self, x):
            return x.is_floating_point()

        def einsum(self, pattern, *x):
            return minitorch.einsum(pattern, *x)

    _backend_class = MinitorchBackend


class _AfterEinopsBackends(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads einops._backends as the path finder would, then adds ours."""

    def find_spec(self, name, path, target=None):
        if name != _EINOPS_BACKENDS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None:
            return None
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self._loader.exec_module(module)
        _define_backend()


def install():
    if _EINOPS_BACKENDS in sys.modules:
        _define_backend()
    else:
        sys.meta_path.insert(0, _AfterEinopsBackends())
