import numpy as np
import pytest

from autograd_check import check

torch = pytest.importorskip("torch")
R = np.random.default_rng(1).standard_normal


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)),
                                   ((2, 3, 4), (4, 5)), ((2, 3, 4), (4,)), ((4,), (2, 4, 5)),
                                   ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (2, 4, 5))])
def test_matmul(sa, sb):
    check(torch, lambda m, a, b: m.matmul(a, b), R(sa), R(sb), double=True)
    check(torch, lambda m, a, b: a @ b, R(sa), R(sb))


def test_matmul_2d_name_and_rmatmul():
    check(torch, lambda m, a, b: a @ b, R((3, 4)), R((4, 5)), name="MmBackward0", transpose=(0,))
    check(torch, lambda m, a, b: a.__rmatmul__(b), R((4, 5)), R((3, 4)), double=True)


@pytest.mark.parametrize("op,shapes,name", [
    ("bmm", [(2, 3, 4), (2, 4, 5)], "BmmBackward0"),
    ("mv", [(3, 4), (4,)], "MvBackward0"),
    ("dot", [(4,), (4,)], "DotBackward0"),
    ("vdot", [(4,), (4,)], "VdotBackward0"),
    ("outer", [(3,), (4,)], "MulBackward0"),
    ("ger", [(3,), (4,)], "MulBackward0"),
])
def test_products(op, shapes, name):
    check(torch, lambda m, a, b: getattr(m, op)(a, b), *[R(s) for s in shapes], name=name,
          double=True)


@pytest.mark.parametrize("op,shapes,name", [
    ("addmm", [(3, 5), (3, 4), (4, 5)], "AddmmBackward0"),
    ("addmm", [(5,), (3, 4), (4, 5)], "AddmmBackward0"),
    ("addmv", [(3,), (3, 4), (4,)], "AddmvBackward0"),
    ("baddbmm", [(2, 3, 5), (2, 3, 4), (2, 4, 5)], "BaddbmmBackward0"),
])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0)])
def test_add_products(op, shapes, name, beta, alpha):
    check(torch, lambda m, *a: getattr(m, op)(*a, beta=beta, alpha=alpha),
          *[R(s) for s in shapes], name=name, double=True)
    check(torch, lambda m, i, *a: getattr(i * 1, op + "_")(*a, beta=beta, alpha=alpha),
          R(shapes[0] if len(shapes[0]) == len(shapes[1]) else shapes[0]),
          *[R(s) for s in shapes[1:]], name=name) if len(shapes[0]) == len(shapes[1]) or op == "addmv" else None


def test_mm_noncontiguous():
    check(torch, lambda m, a, b: m.mm(a, b), R((4, 3)).T.copy(), R((4, 5)), transpose=(0, 1),
          double=True)
