"""The dtypes torch.special and the real-only pointwise ops refuse, against
torch. Complex input: the aliases (special.expit, special.exp2,
special.logsumexp, ...) compute complex values where their operators do, and
every refusal is torch's NotImplementedError naming torch's kernel
("erf_vml_cpu", "i1_cpu", "logit_cpu"; polygamma's for n >= 2, where torch
names its own). float16/bfloat16, integer and bool input: computed where
torch computes (i1, entr, the aliases), refused in torch's words where its
kernel has no entry (the Bessel family, erfcx, ndtri, zeta, the
polynomials; special.round of integers)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

# extra arguments after the input, by function
_ARGS = {"polygamma": "n_first", "multigammaln": (2,), "logsumexp": (0,), "softmax": (0,),
         "log_softmax": (0,), "round": ()}
_BINARY = {"xlogy", "xlog1py", "zeta", "gammainc", "gammaincc", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
           "legendre_polynomial_p"}
SPECIAL = sorted(n for n in dir(torch.special) if not n.startswith("_")
                 and callable(getattr(torch.special, n)) and hasattr(mt.special, n))


def _call(fn, lib, name, x):
    if _ARGS.get(name) == "n_first":
        # torch names digamma's and trigamma's kernels for n = 0 and 1
        return fn(2, x)
    if name in _BINARY:
        return fn(x, x)
    return fn(x, *_ARGS.get(name, ()))


def _outcome(lib, fn_of, name, dtype):
    values = [0.5 + 0.25j, -1.5 + 2j] if "complex" in dtype else [0.5, 2.0, 1.0, 0.0]
    x = lib.tensor(values).to(getattr(lib, dtype))
    try:
        r = _call(fn_of(lib), lib, name, x)
    except (RuntimeError, NotImplementedError) as e:
        return type(e).__name__, str(e)
    return "ok", str(r.dtype).split(".")[-1], np.array(r.tolist())


def _same(m, t):
    assert m[:2] == t[:2]
    if t[0] == "ok":
        np.testing.assert_allclose(m[2], t[2], rtol=1e-2 if "16" in t[1] else 1e-5, atol=1e-6,
                                   equal_nan=True)


def test_the_sweep_covers_torch_special():
    assert len(SPECIAL) >= 50


@pytest.mark.parametrize("name", SPECIAL)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_special_functions_on_complex_input_match_torch(name, dtype):
    def fn_of(lib):
        return getattr(lib.special, name)
    _same(_outcome(mt, fn_of, name, dtype), _outcome(torch, fn_of, name, dtype))


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "digamma", "lgamma", "i0", "xlogy",
                                  "igamma", "igammac", "round", "logit", "mvlgamma", "polygamma",
                                  "sigmoid", "exp2", "expm1", "log1p", "sinc", "logsumexp",
                                  "softmax", "log_softmax"])
def test_top_level_functions_on_complex_input_match_torch(name):
    args = {"mvlgamma": (2,), "logsumexp": (0,), "softmax": (0,), "log_softmax": (0,)}
    _ARGS_TOP = dict(_ARGS, **args)

    def fn_of(lib):
        fn = getattr(lib, name)
        if name == "polygamma":
            return fn
        if name in ("xlogy", "igamma", "igammac"):
            return lambda x, *a: fn(x, x)
        return lambda x, *a: fn(x, *_ARGS_TOP.get(name, ()))
    _same(_outcome(mt, fn_of, name, "complex64"), _outcome(torch, fn_of, name, "complex64"))


@pytest.mark.parametrize("name", ["erf_", "lgamma_", "digamma_", "logit_", "round_", "i0_"])
def test_in_place_forms_refuse_complex_as_torch(name):
    def fn_of(lib):
        return lambda x, *a: getattr(x.clone(), name)()
    _same(_outcome(mt, fn_of, name, "complex64"), _outcome(torch, fn_of, name, "complex64"))


@pytest.mark.parametrize("name", SPECIAL)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "uint8", "bool"])
def test_special_functions_on_half_and_integer_input_match_torch(name, dtype):
    def fn_of(lib):
        return getattr(lib.special, name)
    _same(_outcome(mt, fn_of, name, dtype), _outcome(torch, fn_of, name, dtype))
