"""torch.amp / torch.cuda.amp against a CPU-only torch: autocast's state,
the dtypes ops give under CPU autocast, values and gradients through it,
warnings for CUDA and unsupported dtypes, and GradScaler (a working CPU
scaler, a disabled CUDA one)."""
import pickle
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def name(dtype):
    return str(dtype).split(".")[-1]


def caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [(x.category.__name__, str(x.message).replace("minitorch.", "torch."))
                 for x in w]


def pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return mt.tensor(a), torch.tensor(a)


OPS = {
    "mm": lambda L, x, w: L.mm(x, w.t()),
    "matmul": lambda L, x, w: L.matmul(x, w.t()),
    "operator": lambda L, x, w: x @ w.t(),
    "linear": lambda L, x, w: L.nn.functional.linear(x, w),
    "bmm": lambda L, x, w: L.bmm(x[None], w.t()[None]),
    "addmm": lambda L, x, w: L.addmm(L.zeros(x.shape[0], w.shape[0]), x, w.t()),
    "conv2d": lambda L, x, w: L.nn.functional.conv2d(x.reshape(1, 1, 4, 6), w.reshape(1, 1, 6, 4)[:, :, :2, :2]),
    "add": lambda L, x, w: x + w,
    "sum": lambda L, x, w: x.sum(),
    "softmax": lambda L, x, w: L.softmax(x, 0),
    "mse_bf16": lambda L, x, w: L.nn.functional.mse_loss(x.bfloat16(), w.bfloat16()),
    "ce_bf16": lambda L, x, w: L.nn.functional.cross_entropy(x.bfloat16(), L.tensor([0, 1, 2, 3])),
    "exp_bf16": lambda L, x, w: L.exp(x.bfloat16()),
    "cat_mixed": lambda L, x, w: L.cat([x, w.bfloat16()]),
    "stack_mixed": lambda L, x, w: L.stack([x.bfloat16(), w]),
    "mm_double": lambda L, x, w: L.mm(x.double(), w.double().t()),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_cpu_autocast_dtypes_and_values(op, dtype):
    xm, xt = pair((4, 6))
    wm, wt = pair((4, 6), seed=1)
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        try:
            rt = OPS[op](torch, xt, wt)
        except RuntimeError as e:  # torch refuses some mixes under autocast
            with mt.autocast("cpu", dtype=getattr(mt, dtype)):
                with pytest.raises(RuntimeError, match=str(e)):
                    OPS[op](mt, xm, wm)
            return
    with mt.autocast("cpu", dtype=getattr(mt, dtype)):
        rm = OPS[op](mt, xm, wm)
    assert name(rm.dtype) == name(rt.dtype)
    np.testing.assert_allclose(np.asarray(rm.float().tolist()), rt.float().numpy(),
                               rtol=2e-2, atol=2e-2)


def test_gradients_reach_float32_parameters():
    xm, xt = pair((5, 3))
    wm, wt = pair((4, 3), seed=2)
    lm, lt = mt.nn.Linear(3, 4), torch.nn.Linear(3, 4)
    with mt.no_grad():
        lm.weight.copy_(wm)
        lm.bias.zero_()
    with torch.no_grad():
        lt.weight.copy_(wt)
        lt.bias.zero_()
    with mt.autocast("cpu"):
        om = lm(xm)
        lossm = om.float().pow(2).sum()
    with torch.autocast("cpu"):
        ot = lt(xt)
        losst = ot.float().pow(2).sum()
    assert name(om.dtype) == name(ot.dtype) == "bfloat16"
    lossm.backward()
    losst.backward()
    assert name(lm.weight.grad.dtype) == name(lt.weight.grad.dtype) == "float32"
    np.testing.assert_allclose(np.asarray(lm.weight.grad.tolist()), lt.weight.grad.numpy(),
                               rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(np.asarray(lm.bias.grad.tolist()), lt.bias.grad.numpy(),
                               rtol=3e-2, atol=3e-2)


def test_state_functions_and_nesting():
    def probe(L):
        seen = [L.is_autocast_enabled(), L.is_autocast_enabled("cpu"), name(L.get_autocast_dtype("cpu")),
                name(L.get_autocast_dtype("cuda"))]
        x = L.ones(2, 2)
        with L.autocast("cpu"):
            seen += [L.is_autocast_enabled(), L.is_autocast_enabled("cpu"), name((x @ x).dtype)]
            with L.autocast("cpu", enabled=False):
                seen += [L.is_autocast_enabled("cpu"), name((x @ x).dtype)]
            seen += [L.is_autocast_enabled("cpu"), name((x @ x).dtype)]
            with L.autocast("cpu", dtype=L.float16):
                seen += [name(L.get_autocast_dtype("cpu")), name((x @ x).dtype)]
            seen.append(name(L.get_autocast_dtype("cpu")))
        seen += [L.is_autocast_enabled("cpu"), name((x @ x).dtype)]

        @L.autocast("cpu")
        def f(a):
            return a @ a
        seen += [name(f(x).dtype), L.is_autocast_enabled("cpu")]
        return seen
    assert probe(mt) == probe(torch)


def test_unsupported_dtype_warns_and_disables():
    def run(L):
        def body():
            with L.autocast("cpu", dtype=L.float64):
                return L.is_autocast_enabled("cpu")
        return caught(body)
    assert run(mt) == run(torch)


def test_cuda_autocast_warns_and_disables():
    def run(L):
        def body():
            x = L.ones(2, 2)
            with L.autocast("cuda"):
                a = (L.is_autocast_enabled(), L.is_autocast_enabled("cuda"), name((x @ x).dtype))
            with L.cuda.amp.autocast():
                b = (L.is_autocast_enabled(), name((x @ x).dtype))
            with L.autocast("cuda", enabled=False):
                c = L.is_autocast_enabled()
            return a, b, c
        return caught(body)
    assert run(mt) == run(torch)


@pytest.mark.parametrize("call", [lambda L: L.autocast(3), lambda L: L.autocast("foo"),
                                  lambda L: L.autocast("meta"), lambda L: L.autocast("cpu")(3),
                                  lambda L: L.autocast()])
def test_autocast_errors(call):
    def outcome(L):
        try:
            call(L)
        except Exception as e:  # noqa: BLE001 - kind and words compared
            return type(e).__name__, str(e).replace("minitorch", "torch")
        return None
    assert outcome(mt) == outcome(torch)


def test_cuda_grad_scaler_is_disabled_with_torch_warnings():
    def run(L):
        def body():
            s = L.cuda.amp.GradScaler()
            s2 = L.amp.GradScaler()
            x = L.ones(2, requires_grad=True)
            opt = L.optim.SGD([x], lr=0.1)
            y = s.scale((x * 3).sum())
            y.backward()
            s.unscale_(opt)
            s.step(opt)
            s.update()
            return (s.is_enabled(), s2.is_enabled(), s.get_scale(), s.state_dict(),
                    y.item(), x.tolist())
        return caught(body)
    assert run(mt) == run(torch)


def _train(L, steps, inject):
    g = np.random.default_rng(5)
    w0 = g.standard_normal((3, 2)).astype(np.float32)
    data = g.standard_normal((steps, 4, 3)).astype(np.float32)
    w = L.tensor(w0, requires_grad=True)
    opt = L.optim.SGD([w], lr=0.01)
    scaler = L.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    record = []
    for k in range(steps):
        opt.zero_grad()
        loss = (L.tensor(data[k]) @ w).pow(2).mean()
        if k in inject:
            loss = loss * float("inf")
        scaled = scaler.scale(loss)
        scaled.backward()
        if k % 2:
            scaler.unscale_(opt)
            record.append(np.asarray(w.grad.tolist()).round(5).astype(str).tolist())
        scaler.step(opt)
        scaler.update()
        record.append((scaler.get_scale(), scaler._get_growth_tracker()))
    record.append(np.asarray(w.detach().tolist()).round(5).astype(str).tolist())
    record.append(scaler.state_dict())
    return record


@pytest.mark.parametrize("inject", [(), (1,), (0, 3, 4)])
def test_cpu_grad_scaler_matches_torch(inject):
    assert _train(mt, 7, inject) == _train(torch, 7, inject)


def test_grad_scaler_protocol_errors_and_state():
    def run(L):
        out = []
        s = L.amp.GradScaler("cpu")
        w = L.ones(2, requires_grad=True)
        opt = L.optim.SGD([w], lr=0.1)
        for call in [lambda: s.unscale_(opt), lambda: s.step(opt), lambda: s.update()]:
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.scale(w.sum()).backward()
        s.unscale_(opt)
        for call in [lambda: s.unscale_(opt), lambda: s.step(opt, closure=lambda: 0)]:
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.step(opt)
        for call in [lambda: s.step(opt), lambda: s.unscale_(opt)]:
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.update(new_scale=8.0)
        out.append(s.state_dict())
        s2 = L.amp.GradScaler("cpu", enabled=True)
        s2.load_state_dict(s.state_dict())
        out.append(s2.get_scale())
        s3 = pickle.loads(pickle.dumps(s))
        out.append(s3.state_dict())
        for bad in [dict(growth_factor=1.0), dict(backoff_factor=1.0)]:
            try:
                L.amp.GradScaler("cpu", **bad)
            except AssertionError as e:
                out.append(str(e))
        try:
            L.amp.GradScaler("cpu").load_state_dict({})
        except RuntimeError as e:
            out.append(str(e))
        out.append(L.amp.GradScaler("cpu", enabled=False).scale(5))
        return out
    assert run(mt) == run(torch)


def test_torch_names():
    assert mt.autocast is mt.amp.autocast
    assert issubclass(mt.cuda.amp.autocast, mt.amp.autocast)
    assert issubclass(mt.cuda.amp.GradScaler, mt.amp.GradScaler)
    from minitorch.cuda.amp import GradScaler, autocast  # noqa: F401  (scripts import so)
