"""One ModuleInfo of torch's module_db against its minitorch.nn counterpart:
each sample's module built in both libraries from the same constructor
arguments, torch's parameters and buffers copied in by name, then forward
outputs, buffers after forward, and the gradients of the outputs (times a
fixed cotangent) with respect to inputs and parameters compared; and its
error inputs raising torch's exception type and message."""
import contextlib
import re
import warnings

import torch

import minitorch as mt

from .convert import Unsupported, assert_same, mt_dtype, to_mt

# torch's thread pool spins on tiny tensors when cores are shared: one
# thread makes its forward and backward here ten times faster
torch.set_num_threads(1)

# float32 runs through other summation orders and kernels than torch's
TOLERANCES = {torch.float32: (1e-4, 5e-5), torch.float64: (1e-7, 1e-8)}
# samples per check, spread over the ModuleInfo's list, to keep the sweep short
MAX_SAMPLES = 64


def counterpart(module_cls):
    return getattr(mt.nn, module_cls.__name__, None)


def spread(items, n):
    """At most n of items, evenly spaced, first and last included."""
    if len(items) <= n:
        return list(items)
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


@contextlib.contextmanager
def recording_constructors():
    """While active, every torch.nn module built remembers its constructor
    arguments, so a module passed as a constructor argument (the layer of a
    TransformerEncoder) can be rebuilt in minitorch."""
    classes = {c for c in vars(torch.nn).values()
               if isinstance(c, type) and issubclass(c, torch.nn.Module)}
    saved = []

    def recorder(cls, init):
        def __init__(self, *args, **kwargs):
            if type(self) is cls:
                object.__setattr__(self, "_conformance_ctor", (cls, args, kwargs))
            init(self, *args, **kwargs)
        return __init__

    for cls in classes:
        saved.append((cls, cls.__dict__.get("__init__")))
        cls.__init__ = recorder(cls, cls.__init__)
    try:
        yield
    finally:
        for cls, init in saved:
            if init is None:
                del cls.__init__
            else:
                cls.__init__ = init


class Converter:
    """to_mt with memory: one torch tensor becomes one minitorch tensor however
    often a sample names it (self-attention passes the same tensor as query,
    key and value), torch modules are rebuilt from their recorded constructor
    arguments and torch functions become minitorch's of the same name."""

    def __init__(self):
        self.tensors = {}

    def __call__(self, obj):
        if isinstance(obj, torch.Tensor):
            if id(obj) not in self.tensors:
                self.tensors[id(obj)] = (obj, to_mt(obj))
            return self.tensors[id(obj)][1]
        if isinstance(obj, torch.nn.Module):
            return self.module(obj)
        if isinstance(obj, torch.nn.Parameter):
            if id(obj) not in self.tensors:
                self.tensors[id(obj)] = (obj, mt.nn.Parameter(to_mt(obj.detach())))
            return self.tensors[id(obj)][1]
        if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
            return type(obj)(self(v) for v in obj)
        if isinstance(obj, dict):
            return {k: self(v) for k, v in obj.items()}
        if callable(obj) and not isinstance(obj, type) and _is_torch_function(obj):
            return _mt_function(obj)
        return to_mt(obj)

    def module(self, m):
        ctor = m.__dict__.get("_conformance_ctor")
        if ctor is None:
            raise Unsupported(f"a {type(m).__name__} argument built outside the sample function")
        cls, args, kwargs = ctor
        mcls = counterpart(cls)
        assert mcls is not None, f"minitorch.nn.{cls.__name__} does not exist"
        return mcls(*self(args), **self(kwargs))

    def grad_inputs(self):
        """(torch, minitorch) pairs of the floating inputs requiring grad."""
        return [(t, m) for t, m in self.tensors.values()
                if t.requires_grad and t.is_floating_point()]


def _is_torch_function(f):
    return any(getattr(ns, getattr(f, "__name__", ""), None) is f
               for ns in (torch.nn.functional, torch))


def _mt_function(f):
    for ns, mns in ((torch.nn.functional, mt.nn.functional), (torch, mt)):
        if getattr(ns, f.__name__, None) is f:
            found = getattr(mns, f.__name__, None)
            assert found is not None, f"{mns.__name__}.{f.__name__} does not exist"
            return found
    raise Unsupported(f"function {f!r}")


def tensors_in(obj):
    if isinstance(obj, (torch.Tensor, mt.Tensor)):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from tensors_in(v)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from tensors_in(v)


def is_random(module):
    """Modules whose training-mode output torch draws at random: values
    cannot agree, shapes and dtypes must."""
    for m in module.modules():
        if not m.training:
            continue
        if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0:
            return True
        if isinstance(m, torch.nn.RNNBase) and m.dropout > 0:
            return True
        if isinstance(m, torch.nn.RReLU):
            return True
    return False


def samples(info, dtype, training):
    torch.manual_seed(0)
    with recording_constructors():
        return spread(info.module_inputs_func(info, device="cpu", dtype=dtype,
                                              requires_grad=True, training=training),
                      MAX_SAMPLES)


def check_module(info, dtype, training):
    """Every chosen sample of info on dtype in the given mode agrees; raises
    AssertionError naming the sample and the first difference."""
    ran = 0
    with warnings.catch_warnings():
        # both libraries' advice (nested tensors, fast paths) is not under test
        warnings.simplefilter("ignore")
        chosen = samples(info, dtype, training)
    for n, sample in enumerate(chosen):
        where = f"sample {n} ({sample.desc or 'default'})"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ran += _check_sample(info, sample, dtype, training)
        except Unsupported:
            raise
        except Exception as e:
            raise AssertionError(f"{where}: {type(e).__name__}: {e}") from e
    if not ran:
        raise Unsupported("torch runs none of the samples on the CPU")


def _torch_run(info, sample, dtype, training):
    """torch's module and its forward output for the sample, or None when
    torch itself refuses the sample on the CPU."""
    ctor = sample.constructor_input
    fwd = sample.forward_input
    try:
        torch.manual_seed(0)
        m = info.module_cls(*ctor.args, **ctor.kwargs).to(dtype).train(training)
        if info.is_lazy:
            with torch.no_grad():
                m(*fwd.args, **fwd.kwargs)
        state = {k: v.clone() for k, v in m.state_dict().items()}
        out = m(*fwd.args, **fwd.kwargs)
    except Exception:  # noqa: BLE001 - whatever torch refuses is no sample for us
        return None
    return m, state, out


def _check_sample(info, sample, dtype, training):
    rtol, atol = TOLERANCES[dtype]
    conv = Converter()
    # converted before torch runs: forward may update buffers in place
    mt_ctor = (conv(sample.constructor_input.args), conv(sample.constructor_input.kwargs))
    mt_fwd = (conv(sample.forward_input.args), conv(sample.forward_input.kwargs))
    ran = _torch_run(info, sample, dtype, training)
    if ran is None:
        return 0
    tm, state, out_t = ran

    mm = counterpart(info.module_cls)(*mt_ctor[0], **mt_ctor[1]).to(mt_dtype(dtype))
    mm.train(training)
    if info.is_lazy:
        with mt.no_grad():
            mm(*mt_fwd[0], **mt_fwd[1])
    mm.load_state_dict({k: to_mt(v) for k, v in state.items()})
    out_m = mm(*mt_fwd[0], **mt_fwd[1])

    random = is_random(tm)
    if random:
        assert_same([(tuple(t.shape), t.dtype) for t in tensors_in(out_m)],
                    [(tuple(t.shape), t.dtype) for t in tensors_in(out_t)], 0, 0, "output")
    else:
        assert_same(out_m, out_t, rtol, atol, "output")

    want_state, got_state = tm.state_dict(), mm.state_dict()
    assert sorted(got_state) == sorted(want_state), \
        f"state_dict keys {sorted(got_state)} != {sorted(want_state)}"
    for k, v in want_state.items():
        assert_same(got_state[k], v, rtol, atol, f"state_dict[{k!r}] after forward")

    if not random:
        _check_gradients(conv, tm, mm, out_t, out_m, rtol, atol)
    return 1


def _check_gradients(conv, tm, mm, out_t, out_m, rtol, atol):
    pairs = [(t, m) for t, m in zip(tensors_in(out_t), tensors_in(out_m))
             if t.requires_grad and t.is_floating_point()]
    if not pairs:
        return
    for i, (_, m) in enumerate(pairs):
        assert m.requires_grad, f"output tensor {i} does not require grad"
    wrt = [(f"input {i}", t, m) for i, (t, m) in enumerate(conv.grad_inputs())]
    mparams = dict(mm.named_parameters())
    wrt += [(f"{name}.grad", p, mparams.get(name))
            for name, p in tm.named_parameters() if p.requires_grad]
    missing = [name for name, _, m in wrt if m is None]
    assert not missing, f"minitorch's module has no parameters {missing}"
    if not wrt:
        return
    g = torch.Generator().manual_seed(1)
    cots = [torch.randn(t.shape, generator=g, dtype=t.dtype) for t, _ in pairs]
    want = torch.autograd.grad([t for t, _ in pairs], [t for _, t, _ in wrt], cots,
                               allow_unused=True)
    got = mt.autograd.grad([m for _, m in pairs], [m for _, _, m in wrt],
                           [to_mt(c) for c in cots], allow_unused=True)
    for (name, _, _), gm, gt in zip(wrt, got, want):
        if gt is None:
            assert gm is None, f"{name}: minitorch gives a gradient where torch's is None"
        else:
            assert gm is not None, f"{name}: minitorch gives None"
            assert_same(gm, gt, rtol, atol, name)


def check_module_errors(info):
    """Each of info's error inputs makes minitorch raise torch's exception
    type, with a message matching torch's, where torch raises (on
    construction or on forward)."""
    from torch.testing._internal.common_modules import ModuleErrorEnum

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        with recording_constructors():
            errors = info.module_error_inputs_func(info, device="cpu", dtype=torch.float32,
                                                   requires_grad=False, training=True)
    for n, err in enumerate(errors):
        sample = err.module_error_input
        conv = Converter()
        args = conv(sample.constructor_input.args)
        kwargs = conv(sample.constructor_input.kwargs)
        where = f"error input {n} ({sample.desc or 'default'})"

        def construct():
            return counterpart(info.module_cls)(*args, **kwargs)

        if err.error_on == ModuleErrorEnum.CONSTRUCTION_ERROR:
            expect_raises(construct, err, where)
            continue
        module = construct()
        fargs, fkwargs = conv(sample.forward_input.args), conv(sample.forward_input.kwargs)
        expect_raises(lambda: module(*fargs, **fkwargs), err, where)


def expect_raises(fn, err, where):
    """fn raises err.error_type with a message matching err.error_regex (an
    ErrorModuleInput's or ErrorOptimizerInput's), or, for a Warning type,
    warns so."""
    if issubclass(err.error_type, Warning):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
        assert any(issubclass(w.category, err.error_type)
                   and re.search(err.error_regex, str(w.message)) for w in caught), \
            f"{where}: warns {[str(w.message)[:100] for w in caught]}, torch warns " \
            f"{err.error_type.__name__} matching {err.error_regex!r}"
        return
    want = f"{err.error_type.__name__} matching {err.error_regex!r}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except err.error_type as e:
        assert re.search(err.error_regex, str(e)), \
            f"{where}: {type(e).__name__}: {str(e)[:200]!r}, torch raises {want}"
    except Exception as e:
        raise AssertionError(f"{where}: {type(e).__name__}: {str(e)[:200]}, "
                             f"torch raises {want}") from e
    else:
        raise AssertionError(f"{where}: raises nothing, torch raises {want}")
