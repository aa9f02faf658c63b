"""Version counters as torch's autograd reads them: autograd.graph.increment_version,
autograd._unsafe_preserve_version_counter and _C._autograd._unsafe_set_version_counter,
a saved input cut from its graph by detach_(), and which tensors share a counter
(views, .data, x.data = y, unsafe_split's pieces, a resized out=), compared with torch."""
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


def test_assigning_data_keeps_the_tensors_counter_shared_with_its_views():
    def scenario(L):
        x = L.randn(1, 2)
        x.add_(1).add_(1)
        xz = x[:]
        xz.add_(1)
        seen = [x._version, xz._version]
        x.data = L.randn(2, 3)
        seen.append(x._version)
        x.add_(1)
        seen += [x._version, xz._version]
        xz.add_(1)
        seen += [x._version, xz._version]
        return seen
    same(torch, scenario)


def test_assigned_data_keeps_its_own_counter():
    def scenario(L):
        y = L.zeros(3)
        y.add_(1)
        x = L.ones(2)
        x.data = y
        x.add_(1).add_(1)
        return x._version, y._version, y.tolist()
    same(torch, scenario)


def test_each_data_alias_counts_apart():
    def scenario(L):
        a = L.ones(4)
        d1, d2 = a.data, a.data
        d1.add_(1)
        d1[1:].add_(1)
        d2.mul_(2)
        a.add_(1)
        return a._version, d1._version, d2._version, d1[1:]._version
    same(torch, scenario)


@pytest.mark.parametrize("op", ["unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"])
def test_unsafe_split_pieces_count_apart(op):
    def scenario(L):
        x = L.zeros(6)
        x.add_(1)
        arg = [2, 4] if op == "unsafe_split_with_sizes" else 2
        pieces = getattr(x, op)(arg)
        pieces[0].add_(1)
        pieces[0].add_(1)
        pieces[1][:1].add_(1)
        return [p._version for p in pieces], x._version, x.tolist()
    same(torch, scenario)


def test_a_saved_tensor_written_after_its_data_was_assigned_is_caught():
    def scenario(L):
        w = L.ones(3, requires_grad=True)
        x = L.ones(3)
        x.data = L.full((3,), 2.0)
        out = (w * x).sum()
        x.mul_(3)
        return error_head(out.backward)
    same(torch, scenario)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_a_resized_out_tensor_keeps_its_counter():
    def scenario(L):
        out = L.zeros(2)
        view = out[:1]
        L.add(L.ones(5), 1, out=out)
        return out._version, view._version, out.tolist()
    same(torch, scenario)
