"""The realistic suite: model-sized float32 ops, forward and forward+backward, and
whole training steps of three small models, minitorch beside PyTorch (and NumPy
for forwards it has), run by `run.py --suite realistic` at each thread count.

Every case first checks that minitorch agrees with torch on the same inputs and
weights: outputs and gradients (of a fixed random output gradient) within a
relative tolerance of the largest torch value, and for training steps the loss
of each of the first CHECK_STEPS steps. Bandwidth-bound cases report GB/s of a
minimal-traffic estimate (every input read once, every output written once)
against the machine's copy bandwidth; conv and matmul report % of peak FLOPS.
NumPy's BLAS thread count is fixed at import (2), so NumPy gets no matmul here.
"""
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from bandwidth import copy_gbps
from harness import Case, Ratio, Variant
from models import TrainStep, init_params, seeded, seeded_ids
from peak import peak_gflops

GROUP = "realistic"
CHECK_STEPS = 3
F32 = 4


@dataclass
class Problem:
    fn: Callable  # fn(*args) -> one tensor
    args: tuple
    leaves: list  # tensors whose .grad the check compares (inputs first, then weights)


@dataclass
class OpSpec:
    name: str
    build: Callable  # build(lib, tiny, grad) -> Problem
    np_fwd: Optional[Callable] = None  # np_fwd() -> a callable, full size only
    bytes_fwd: float = 0.0  # minimal traffic of the full-size forward
    bytes_bwd: float = 0.0  # and of forward+backward
    flops_fwd: float = 0.0
    flops_bwd: float = 0.0
    tol: float = 1e-4
    backward: bool = True


def _t(lib, tag, shape, grad, scale=1.0):
    t = lib.tensor(seeded(tag, shape, scale))
    return t.requires_grad_() if grad else t


def _module(lib, factory, tag, grad):
    m = init_params(lib, factory(lib), tag)
    for p in m.parameters():
        p.requires_grad_(grad)
    return m


def _np_norm(kind, shape):
    def make():
        x, w, b = seeded("x", shape), seeded("w", shape[-1:]), seeded("b", shape[-1:])
        if kind == "layer":
            def f():
                m = x.mean(-1, keepdims=True)
                return (x - m) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * w + b
        else:
            def f():
                return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
        return f
    return make


def _np_unary(expr, shape):
    def make():
        x = seeded("x", shape)
        return lambda: expr(x)
    return make


def _np_softmax(log):
    def f(x):
        z = x - x.max(-1, keepdims=True)
        if log:
            return z - np.log(np.exp(z).sum(-1, keepdims=True))
        e = np.exp(z)
        return e / e.sum(-1, keepdims=True)
    return f


def _elementwise_specs():
    out = []
    shape = (4096, 1024)
    n = shape[0] * shape[1] * F32
    tiny = (6, 37)

    def norm(kind):
        def build(lib, small, grad):
            s = tiny if small else shape
            x = _t(lib, "x", s, grad)
            w = _t(lib, "w", s[-1:], grad)
            F = lib.nn.functional
            if kind == "layer":
                b = _t(lib, "b", s[-1:], grad)
                return Problem(lambda x, w, b: F.layer_norm(x, s[-1:], w, b, 1e-5), (x, w, b),
                               [x, w, b])
            return Problem(lambda x, w: F.rms_norm(x, s[-1:], w, 1e-6), (x, w), [x, w])
        return build

    out.append(OpSpec("layer_norm 4096x1024 (weight+bias)", norm("layer"),
                      _np_norm("layer", shape), 2 * n, 5 * n))
    out.append(OpSpec("rms_norm 4096x1024 (weight)", norm("rms"), _np_norm("rms", shape),
                      2 * n, 5 * n))

    def unary(call):
        def build(lib, small, grad):
            x = _t(lib, "x", tiny if small else shape, grad)
            return Problem(lambda x: call(lib.nn.functional, x), (x,), [x])
        return build

    out += [
        OpSpec("gelu 4096x1024", unary(lambda F, x: F.gelu(x)), None, 2 * n, 5 * n),
        OpSpec("gelu(tanh) 4096x1024", unary(lambda F, x: F.gelu(x, approximate="tanh")),
               _np_unary(lambda x: 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))),
                         shape), 2 * n, 5 * n),
        OpSpec("silu 4096x1024", unary(lambda F, x: F.silu(x)),
               _np_unary(lambda x: x / (1 + np.exp(-x)), shape), 2 * n, 5 * n),
        OpSpec("softmax(-1) 4096x1024", unary(lambda F, x: F.softmax(x, -1)),
               _np_unary(_np_softmax(False), shape), 2 * n, 5 * n),
        OpSpec("log_softmax(-1) 4096x1024", unary(lambda F, x: F.log_softmax(x, -1)),
               _np_unary(_np_softmax(True), shape), 2 * n, 5 * n),
    ]

    def cross_entropy(rows, classes):
        def build(lib, small, grad):
            r, c = (5, classes) if small else (rows, classes)
            x = _t(lib, "logits", (r, c), grad)
            y = lib.tensor(seeded_ids("target", (r,), c))
            return Problem(lambda x, y: lib.nn.functional.cross_entropy(x, y), (x, y), [x])
        return build

    for rows, classes in ((1024, 65), (4096, 1000)):
        m = rows * classes * F32
        out.append(OpSpec("cross_entropy (%d, %d)" % (rows, classes),
                          cross_entropy(rows, classes), None, m, 3 * m))
    return out


def _index_specs():
    out = []

    def embedding(lib, small, grad):
        v, d, ids = (50, 8, (3, 5)) if small else (10000, 256, (64, 128))
        emb = _module(lib, lambda L: L.nn.Embedding(v, d), "emb", grad)
        idx = lib.tensor(seeded_ids("ids", ids, v))
        return Problem(lambda i: emb(i), (idx,), [emb.weight])

    rows = 64 * 128 * 256 * F32
    out.append(OpSpec("nn.Embedding(10000,256) on 64x128 ids", embedding,
                      lambda: (lambda w, i: (lambda: w[i]))(seeded("emb", (10000, 256)),
                                                           seeded_ids("ids", (64, 128), 10000)),
                      2 * rows, 4 * rows + 10000 * 256 * F32))

    def index_select(lib, small, grad):
        n, k = (20, 7) if small else (1000, 1000)
        x = _t(lib, "src", (n, n), grad)
        i = lib.tensor(seeded_ids("rows", (k,), n))
        return Problem(lambda x, i: x.index_select(0, i), (x, i), [x])

    m = 1000 * 1000 * F32
    out.append(OpSpec("index_select 1000 rows of 1000x1000", index_select,
                      lambda: (lambda x, i: (lambda: np.take(x, i, 0)))(
                          seeded("src", (1000, 1000)), seeded_ids("rows", (1000,), 1000)),
                      2 * m, 5 * m))

    def gather(lib, small, grad):
        n = 9 if small else 1000
        x = _t(lib, "src", (n, n), grad)
        i = lib.tensor(seeded_ids("cols", (n, n), n))
        return Problem(lambda x, i: x.gather(1, i), (x, i), [x])

    out.append(OpSpec("gather dim 1, 1000x1000", gather,
                      lambda: (lambda x, i: (lambda: np.take_along_axis(x, i, 1)))(
                          seeded("src", (1000, 1000)), seeded_ids("cols", (1000, 1000), 1000)),
                      4 * m, 9 * m))

    def scatter_add(lib, small, grad):
        n = 9 if small else 1000
        base = _t(lib, "base", (n, n), grad)
        src = _t(lib, "src", (n, n), grad)
        i = lib.tensor(seeded_ids("cols", (n, n), n))
        return Problem(lambda b, i, s: b.scatter_add(1, i, s), (base, i, src), [base, src])

    out.append(OpSpec("scatter_add dim 1, 1000x1000", scatter_add, None, 5 * m, 10 * m))

    def index_add(lib, small, grad):
        n, k = (20, 7) if small else (1000, 1000)
        base = _t(lib, "base", (n, n), grad)
        src = _t(lib, "src", (k, n), grad)
        i = lib.tensor(seeded_ids("rows", (k,), n))
        return Problem(lambda b, i, s: b.index_add(0, i, s), (base, i, src), [base, src])

    out.append(OpSpec("index_add 1000 rows into 1000x1000", index_add,
                      lambda: (lambda b, i, s: (lambda: np.add.at(b.copy(), i, s)))(
                          seeded("base", (1000, 1000)), seeded_ids("rows", (1000,), 1000),
                          seeded("src", (1000, 1000))),
                      4 * m, 8 * m))
    return out


def _layer_specs():
    out = []

    def rnn(kind):
        def build(lib, small, grad):
            seq, batch, din, hid = (4, 2, 5, 6) if small else (32, 16, 64, 128)
            cls = lib.nn.LSTM if kind == "LSTM" else lib.nn.GRU
            m = _module(lib, lambda L: cls(din, hid), kind, grad)
            x = _t(lib, "seq", (seq, batch, din), grad)
            return Problem(lambda x: m(x)[0], (x,), [x] + list(m.parameters()))
        return build

    gates = {"LSTM": 4, "GRU": 3}
    for kind in ("LSTM", "GRU"):
        flops = 2 * 32 * 16 * gates[kind] * 128 * (64 + 128)
        out.append(OpSpec("nn.%s(64,128) seq 32 batch 16" % kind, rnn(kind),
                          flops_fwd=flops, flops_bwd=3 * flops, tol=1e-3))

    def conv(lib, small, grad):
        n, c, hw = (2, 3, 6) if small else (8, 64, 32)
        m = _module(lib, lambda L: L.nn.Conv2d(c, c, 3, padding=1), "conv", grad)
        x = _t(lib, "img", (n, c, hw, hw), grad)
        return Problem(lambda x: m(x), (x,), [x, m.weight, m.bias])

    flops = 2 * 8 * 64 * 32 * 32 * 64 * 9
    out.append(OpSpec("nn.Conv2d(64,64,3,pad=1) on 8x64x32x32", conv, flops_fwd=flops,
                      flops_bwd=3 * flops, tol=1e-3))

    def norm2d(kind):
        def build(lib, small, grad):
            n, c, hw = (2, 4, 3) if small else (8, 64, 32)
            x = _t(lib, "img", (n, c, hw, hw), grad)
            if kind == "group":
                w, b = _t(lib, "w", (c,), grad), _t(lib, "b", (c,), grad)
                return Problem(lambda x, w, b: lib.nn.functional.group_norm(x, 2 if small else 8,
                                                                            w, b),
                               (x, w, b), [x, w, b])
            m = _module(lib, lambda L: L.nn.BatchNorm2d(c), "bn", grad)
            return Problem(lambda x: m(x), (x,), [x, m.weight, m.bias])
        return build

    e = 8 * 64 * 32 * 32 * F32
    out.append(OpSpec("group_norm(8 groups) 8x64x32x32", norm2d("group"), None, 2 * e, 5 * e))
    out.append(OpSpec("BatchNorm2d(64) train 8x64x32x32", norm2d("batch"), None, 2 * e, 5 * e))

    def matmul(m, k, n, label):
        def build(lib, small, grad):
            a = _t(lib, "a", (5, 7) if small else (m, k), grad)
            b = _t(lib, "b", (7, 3) if small else (k, n), grad)
            return Problem(lambda a, b: a.matmul(b), (a, b), [a, b])
        return OpSpec("matmul %s" % label, build, flops_fwd=2 * m * k * n,
                      flops_bwd=6 * m * k * n, tol=1e-3)

    out.append(matmul(2048, 2048, 2048, "2048x2048 @ 2048x2048"))
    for k, n, what in ((128, 384, "qkv"), (128, 128, "proj"), (128, 512, "fc"),
                       (512, 128, "out"), (128, 65, "head")):
        out.append(matmul(1024, k, n, "GPT %s 1024x%d @ %dx%d" % (what, k, k, n)))
    return out


def _max_rel_err(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-6))


def _np(t):
    return t.detach().numpy()


def _run_problem(lib, spec, tiny):
    p = spec.build(lib, tiny, spec.backward)
    out = p.fn(*p.args)
    got = [_np(out)]
    if spec.backward:
        g = lib.tensor(seeded("gout", tuple(out.shape))) if out.dim() else None
        out.backward(g)
        got += [_np(t.grad) if t.grad is not None else None for t in p.leaves]
    return got


def check_op(spec, tiny=False):
    """(ok, detail): minitorch's output and gradients against torch's (computed once
    for the forward and the fwd+bwd case of a spec)."""
    memo = {}

    def check(libs):
        if "result" not in memo:
            memo["result"] = compare(libs)
        return memo["result"]

    def compare(libs):
        mine = _run_problem(libs["minitorch"], spec, tiny)
        ref = _run_problem(libs["torch"], spec, tiny)
        worst = 0.0
        for i, (a, b) in enumerate(zip(mine, ref)):
            if (a is None) != (b is None):
                return False, "gradient %d: None in one library only" % i
            if a is not None:
                worst = max(worst, _max_rel_err(a, b))
        return worst <= spec.tol, "max rel err %.1e, tol %.0e" % (worst, spec.tol)
    return check


def check_train(kind, tiny=False, tol=1e-3):
    """(ok, detail): the losses of the first CHECK_STEPS steps from identical weights."""
    def check(libs):
        a = TrainStep(libs["minitorch"], kind, tiny)
        b = TrainStep(libs["torch"], kind, tiny)
        la = [a() for _ in range(CHECK_STEPS)]
        lb = [b() for _ in range(CHECK_STEPS)]
        err = max(abs(x - y) / max(abs(y), 1e-6) for x, y in zip(la, lb))
        return err <= tol, "losses %s vs %s, rel err %.1e" % (
            " ".join("%.4f" % x for x in la), " ".join("%.4f" % y for y in lb), err)
    return check


def _fwd_setup(spec):
    def setup(lib):
        p = spec.build(lib, False, False)

        def run():
            with lib.no_grad():
                p.fn(*p.args)
        return run
    return setup


def _bwd_setup(spec):
    def setup(lib):
        p = spec.build(lib, False, True)
        shape = tuple(p.fn(*p.args).shape)
        g = lib.tensor(seeded("gout", shape)) if shape else None
        leaves = list(p.leaves)

        def run():
            p.fn(*p.args).backward(g)
            for t in leaves:
                t.grad = None
        return run
    return setup


def _throughput(threads, nbytes, flops):
    """extra(medians): GB/s against copy bandwidth, or GFLOPS against peak."""
    def extra(medians):
        lines = []
        if nbytes:
            bw = copy_gbps(threads)
            lines.append("GB/s (minimal traffic %.0f MB) %s; copy bandwidth %.1f GB/s"
                         % (nbytes / 1e6, "  ".join("%s %.1f (%.0f%%)" % (
                             k, nbytes / v, 100 * nbytes / v / bw) for k, v in medians.items()),
                            bw))
        if flops:
            peak = peak_gflops(threads)
            lines.append("GFLOPS %s%s" % ("  ".join(
                "%s %.1f%s" % (k, flops / v, " (%.0f%%)" % (100 * flops / v / peak) if peak
                               else "") for k, v in medians.items()),
                "; peak %.0f" % peak if peak else ""))
        return lines
    return extra


def op_cases(spec, threads):
    out = []
    check = check_op(spec)
    fwd = [Variant("minitorch", "minitorch", _fwd_setup(spec))]
    ratios = [Ratio("minitorch/torch", "minitorch", "torch")]
    if spec.np_fwd is not None:
        fwd.append(Variant("numpy", "numpy", lambda np_, make=spec.np_fwd: make()))
        ratios.append(Ratio("minitorch/numpy", "minitorch", "numpy"))
    fwd.append(Variant("torch", "torch", _fwd_setup(spec)))
    out.append(Case(GROUP, "%s forward, %dT" % (spec.name, threads), fwd, ratios,
                    extra=_throughput(threads, spec.bytes_fwd, spec.flops_fwd), check=check))
    if spec.backward:
        out.append(Case(GROUP, "%s fwd+bwd, %dT" % (spec.name, threads),
                        [Variant("minitorch", "minitorch", _bwd_setup(spec)),
                         Variant("torch", "torch", _bwd_setup(spec))],
                        [Ratio("minitorch/torch", "minitorch", "torch")],
                        extra=_throughput(threads, spec.bytes_bwd, spec.flops_bwd), check=check))
    return out


TRAIN = (("gpt", "char GPT 2 layers 4 heads width 128 block 64 batch 16, AdamW"),
         ("lenet", "LeNet-5 64x1x28x28, SGD momentum"),
         ("lstm", "LSTM LM emb 65->64, LSTM(64,128), batch 16 seq 32, Adam + clip_grad_norm_"))


def op_specs():
    return _elementwise_specs() + _index_specs() + _layer_specs()


def cases(threads):
    out = []
    for spec in op_specs():
        out += op_cases(spec, threads)
    for kind, label in TRAIN:
        setup = (lambda k: lambda lib: TrainStep(lib, k))(kind)
        out.append(Case(GROUP, "train step: %s, %dT" % (label, threads),
                        [Variant("minitorch", "minitorch", setup),
                         Variant("torch", "torch", setup)],
                        [Ratio("minitorch/torch", "minitorch", "torch")],
                        check=check_train(kind), count_faults=True))
    return out
