"""Kernels: elementwise, reductions and matmul, from one element (overhead) to 10^7 (bandwidth)."""
import numpy as np

from data import array
from harness import THREADS, trio
from peak import peak_gflops

GROUP = "kernels"
BIG = 10 ** 7
BIG_2D = (2000, 5000)  # 10^7 elements, read through .t() for the strided cases


def _binary(op_stmt, shape, transpose=False):
    def setup(lib):
        x, y = array(lib, shape), array(lib, shape)
        if transpose:
            x, y = (x.T, y.T) if lib is np else (x.t(), y.t())
        return op_stmt, {"x": x, "y": y}
    return setup


def _exp(shape, transpose=False):
    def setup(lib):
        x = array(lib, shape)
        if transpose:
            x = x.T if lib is np else x.t()
        return "lib.exp(x)", {"lib": lib, "x": x}
    return setup


def _gflops(n):
    def extra(medians):
        lines = ["GFLOPS %s" % "  ".join("%s %.1f" % (k, 2 * n ** 3 / v)
                                         for k, v in medians.items())]
        peak = peak_gflops(THREADS)
        if peak and "minitorch" in medians:
            lines.append("minitorch at %.0f%% of the measured multiply-add peak, %.0f GFLOPS on"
                         " %d threads" % (100 * 2 * n ** 3 / medians["minitorch"] / peak, peak,
                                          THREADS))
        return lines
    return extra


def cases():
    out = [trio(GROUP, "add 1-element float32", _binary("x + y", (1,)), _binary("x + y", (1,)),
                target=0.35, target_np=1.0)]
    for label, transpose, target in (("contiguous 10^7", False, 1.0),
                                     ("transposed 2000x5000 .t()", True, 1.2)):
        shape = BIG_2D if transpose else (BIG,)
        out += [
            trio(GROUP, "add float32 %s" % label, _binary("x + y", shape, transpose),
                 _binary("x + y", shape, transpose), target=target),
            trio(GROUP, "mul float32 %s" % label, _binary("x * y", shape, transpose),
                 _binary("x * y", shape, transpose), target=target),
            trio(GROUP, "exp float32 %s" % label, _exp(shape, transpose), _exp(shape, transpose),
                 target=target),
        ]

    def sum_setup(shape, stmt):
        return lambda lib: (stmt, {"x": array(lib, shape)})

    out += [
        trio(GROUP, "sum all float32 10^7", sum_setup((BIG,), "x.sum()"),
             sum_setup((BIG,), "x.sum()"), target=1.0),
        trio(GROUP, "sum(-1) float32 4096x4096", sum_setup((4096, 4096), "x.sum(-1)"),
             sum_setup((4096, 4096), "x.sum(-1)"), target=1.0),
    ]
    for n, target in ((1024, 1.1), (64, 0.5)):
        out.append(trio(GROUP, "mm float32 %dx%d" % (n, n), _binary("x.mm(y)", (n, n)),
                        _binary("x @ y", (n, n)), target=target, extra=_gflops(n),
                        notes=["NumPy: x @ y (its BLAS, 2 threads)"]))
    return out
