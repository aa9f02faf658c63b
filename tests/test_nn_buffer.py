"""nn.Buffer against torch: assigning one registers a buffer (persistent or
not), isinstance follows the flag, and assignment to an existing buffer
goes through register_buffer (and so through the registration hooks)."""
import pytest


torch = pytest.importorskip("torch")
from side_by_side import errmsg, same as _same  # noqa: E402


def same(scenario, *args):
    return _same(torch, scenario, *args)


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_buffer_is_a_marked_detached_tensor(requires_grad, dtype):
    def run(L):
        data = L.arange(3).to(getattr(L, dtype))
        if requires_grad and data.is_floating_point():
            data = (data * 1).requires_grad_()
        b = L.nn.Buffer(data)
        nb = L.nn.Buffer(data, persistent=False)
        return (type(b) is type(data), isinstance(b, L.nn.Buffer),
                isinstance(data, L.nn.Buffer), b.persistent, nb.persistent,
                b.requires_grad, b.grad_fn is None, b.tolist(),
                tuple(L.nn.Buffer().shape), isinstance(L.ones(1), L.nn.Buffer))
    same(run)


def test_assigning_buffers_registers_them():
    def run(L):
        m = L.nn.Module()
        m.a = L.nn.Buffer(L.ones(2))
        m.b = L.nn.Buffer(L.zeros(1), persistent=False)
        m.plain = L.ones(3)
        m.b = L.ones(1)  # an existing buffer keeps its persistence
        out = [sorted(n for n, _ in m.named_buffers()), sorted(m.state_dict()),
               m.b.tolist()]
        out.append(errmsg(lambda: setattr(m, "a", 3)))
        out.append(errmsg(lambda: setattr(m, "plain", L.nn.Buffer(L.ones(1)))))
        m.a = None
        out.append((m.a, sorted(m.state_dict())))
        return out
    same(run)


def test_assignment_runs_buffer_registration_hooks():
    def run(L):
        seen = []
        h = L.nn.modules.module.register_module_buffer_registration_hook(
            lambda mod, name, b: seen.append((name, None if b is None else b.tolist())))
        try:
            m = L.nn.BatchNorm1d(2)
            seen.clear()
            m.running_mean = L.ones(2)
            m.extra = L.nn.Buffer(L.zeros(1))
        finally:
            h.remove()
        return seen
    same(run)


def test_register_buffer_override_without_persistent():
    def run(L):
        class Old(L.nn.Module):
            def register_buffer(self, name, tensor):
                L.nn.Module.register_buffer(self, name, tensor)

        m = Old()
        m.keep = L.nn.Buffer(L.ones(1))
        return sorted(m.state_dict()), errmsg(
            lambda: setattr(m, "drop", L.nn.Buffer(L.ones(1), persistent=False)))
    same(run)
