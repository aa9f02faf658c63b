"""Forward-mode AD through an in-place op on a view, against torch: the
view's new tangent reaches its base's tangent (zeros where the base had
none), and the view's tangent stays part of the base's; so the scatter
functions built on a copy into a view carry src's tangent."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.forward_ad as fwad

torch = pytest.importorskip("torch")
tfwad = torch.autograd.forward_ad


def _data(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def _tangents(lib, ad, fn, shapes, duals):
    """fn's result and its tangent, inputs made from fixed data; those
    flagged in duals carry a tangent."""
    with ad.dual_level():
        args = []
        for i, (shape, dual) in enumerate(zip(shapes, duals)):
            primal = lib.tensor(_data(shape, i))
            args.append(ad.make_dual(primal, lib.tensor(_data(shape, 10 + i))) if dual
                        else primal)
        out = fn(lib, *args)
        primal, tangent = ad.unpack_dual(out)
        return primal.numpy().copy(), None if tangent is None else tangent.numpy().copy()


def _compare(fn, shapes):
    for duals in [(True,) * len(shapes)] + [tuple(i == k for i in range(len(shapes)))
                                             for k in range(len(shapes))]:
        got = _tangents(mt, fwad, fn, shapes, duals)
        want = _tangents(torch, tfwad, fn, shapes, duals)
        np.testing.assert_allclose(got[0], want[0])
        if want[1] is None:
            assert got[1] is None or not got[1].any()
        else:
            np.testing.assert_allclose(got[1], want[1])


CASES = [
    (lambda m, x, s: m.select_scatter(x, s, 0, 1), [(3, 4), (4,)]),
    (lambda m, x, s: m.select_scatter(x, s, -1, -2), [(2, 3, 4), (2, 3)]),
    (lambda m, x, s: m.slice_scatter(x, s, 1, 1, 4, 2), [(3, 5), (3, 2)]),
    (lambda m, x, s: m.diagonal_scatter(x, s, 1), [(3, 4), (3,)]),
    (lambda m, x, s: m.diagonal_scatter(x, s, -1, 2, 0), [(4, 2, 3), (2, 2)]),
    (lambda m, x, s: m.as_strided_scatter(x, s, (2, 2), (1, 2), 1), [(4, 4), (2, 2)]),
    (lambda m, x: m.diag_embed(x, 1), [(2, 3)]),
    (lambda m, x: m.diag_embed(x, -1, 0, 2), [(2, 3)]),
]


@pytest.mark.parametrize("fn,shapes", CASES)
def test_scatter_tangents_match_torch(fn, shapes):
    _compare(fn, shapes)


def _copy_into_row(m, x, s):
    out = x.clone()
    out[1].copy_(s)
    return out


def _scale_a_column(m, x):
    out = x * 1.0
    out[:, 1].mul_(3.0)
    return out


def _view_of_view(m, x, s):
    out = x.clone()
    out.t()[1:].select(1, 0).copy_(s)
    return out


def _write_then_read_view(m, x, s):
    out = x.clone()
    row = out[0]
    row.add_(s)
    return row * 2.0


def _in_place_view_op(m, x):
    out = x.clone()
    v = out[1:]
    v.t_()
    return out


@pytest.mark.parametrize("fn,shapes", [
    (_copy_into_row, [(3, 4), (4,)]),
    (_scale_a_column, [(3, 4)]),
    (_view_of_view, [(3, 4), (3,)]),
    (_write_then_read_view, [(3, 4), (4,)]),
    (_in_place_view_op, [(3, 4)]),
])
def test_in_place_ops_on_views_reach_the_base(fn, shapes):
    _compare(fn, shapes)


def test_the_base_without_a_tangent_gets_zeros_around_the_view():
    with fwad.dual_level():
        base = mt.zeros(2, 3, dtype=mt.float64)
        s = fwad.make_dual(mt.zeros(3, dtype=mt.float64), mt.ones(3, dtype=mt.float64))
        base[1].copy_(s)
        tangent = fwad.unpack_dual(base).tangent
        assert tangent.tolist() == [[0.0] * 3, [1.0] * 3]
        assert fwad.unpack_dual(base[1]).tangent.tolist() == [1.0] * 3
