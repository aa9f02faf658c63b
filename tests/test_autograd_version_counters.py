"""Version counters as torch's autograd reads them: autograd.graph.increment_version,
autograd._unsafe_preserve_version_counter and _C._autograd._unsafe_set_version_counter,
and a saved input cut from its graph by detach_(), compared with torch."""
import pytest

from side_by_side import errmsg, same

torch_errors_differ_after = "modified by an inplace operation"


def error_head(fn):
    """The error's type and text up to the part the two libraries word alike
    (the tensor's description after it differs)."""
    e = errmsg(fn)
    if e and torch_errors_differ_after in e[1]:
        return e[0], e[1].split(torch_errors_differ_after)[0] + torch_errors_differ_after
    return e

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("as_list", [False, True])
def test_increment_version(dtype, as_list):
    def scenario(L):
        a = L.zeros(5, dtype=getattr(L, dtype))
        b = a[1:]
        before = a._version
        L.autograd.graph.increment_version([a, b] if as_list else a)
        return a._version - before, b._version - before
    same(torch, scenario)


def test_increment_version_trips_saved_tensors():
    def scenario(L):
        a = L.ones(3, requires_grad=True).clone()
        out = (a * a).sum()
        L.autograd.graph.increment_version(a)
        return error_head(out.backward)
    assert same(torch, scenario) is not None


def test_increment_version_of_inference_tensors():
    def scenario(L):
        with L.inference_mode():
            a = L.rand(5, requires_grad=True)
            L.autograd.graph.increment_version(a)
        L.autograd.graph.increment_version(a)
        return errmsg(lambda: a._version)
    same(torch, scenario)


@pytest.mark.parametrize("several", [False, True])
def test_unsafe_preserve_version_counter(several):
    def scenario(L):
        x = L.ones(2, requires_grad=True).clone()
        y = L.ones(3, requires_grad=True).clone()
        x.add_(1)
        saved = (x * y[:2]).sum()
        versions = []
        with L.autograd._unsafe_preserve_version_counter((x, y) if several else x):
            x.mul_(2)
            y.mul_(3)
            versions.append((x._version, y._version))
        versions.append((x._version, y._version))
        return versions, error_head(saved.backward)
    same(torch, scenario)


def test_unsafe_set_version_counter():
    def scenario(L):
        set_ = L._C._autograd._unsafe_set_version_counter
        x = L.ones(2).clone()
        x.add_(1)
        x.add_(1)
        v = x[:1]
        set_((x,), (7,))
        seen = [x._version, v._version]
        errors = [errmsg(lambda: set_((x,), (-1,))), errmsg(lambda: set_((x,), (1, 2)))]
        with L.inference_mode():
            inf = L.ones(2)
        errors.append(errmsg(lambda: set_((inf,), (1,))))
        return seen, errors
    same(torch, scenario)


def test_set_version_of_a_data_alias_keeps_the_tensors_own():
    def scenario(L):
        x = L.ones(3, requires_grad=True).clone()
        out = (x * x).sum()
        d = x.data
        d.mul_(2)
        L._C._autograd._unsafe_set_version_counter((d,), (0,))
        return d._version, x._version, error_head(out.backward)
    same(torch, scenario)
