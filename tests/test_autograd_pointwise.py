"""Derivatives of the elementwise ops, checked against torch: gradients for a
random upstream gradient (broadcast and transposed inputs), double backward,
grad_fn class names, and in-place forms on non-leaf tensors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)


def sample(domain, shape):
    """Values in a sample domain of the op table's rows (MT_SAMPLE)."""
    if domain == "p":  # positive
        return RNG.uniform(0.5, 2.0, shape)
    if domain == "u":  # inside (-1, 1)
        return RNG.uniform(-0.9, 0.9, shape)
    if domain == "a":  # away from 0, for divisors
        return RNG.choice([-1.0, 1.0], shape) * RNG.uniform(0.5, 2.0, shape)
    if domain == "f":  # away from integers
        return RNG.integers(-3, 3, shape) + RNG.uniform(0.25, 0.7, shape)
    if domain == "g":  # greater than 1
        return RNG.uniform(1.2, 3.0, shape)
    assert domain == "n", domain
    return RNG.standard_normal(shape)


def F(L):
    return L.nn.functional


A, B = (3, 4), (4,)
# name: (fn(L, *tensors), [(shape, domain)...], twice differentiable)
CASES = {
    "sub": (lambda L, a, b: a - b, [(A, "n"), (B, "n")], True),
    "sub_alpha": (lambda L, a, b: L.sub(a, b, alpha=2.5), [(A, "n"), (A, "n")], True),
    "subtract_num": (lambda L, a: L.subtract(a, 1.5), [(A, "n")], True),
    "rsub_num": (lambda L, a: 2.5 - a, [(A, "n")], True),
    "rsub_tensor": (lambda L, a, b: a.__rsub__(b), [(A, "n"), (B, "n")], True),
    "div": (lambda L, a, b: a / b, [(A, "n"), (B, "a")], True),
    "div_num": (lambda L, a: a / 3.0, [(A, "n")], True),
    "rdiv_num": (lambda L, a: 2.0 / a, [(A, "a")], True),
    "true_divide": (lambda L, a, b: L.true_divide(a, b), [(A, "n"), (A, "a")], True),
    "div_floor": (lambda L, a, b: L.div(a, b, rounding_mode="floor"), [(A, "n"), (B, "a")],
                  False),
    "divide_trunc": (lambda L, a, b: L.divide(a, b, rounding_mode="trunc"),
                     [(A, "n"), (A, "a")], False),
    "remainder": (lambda L, a, b: L.remainder(a, b), [(A, "n"), (B, "a")], True),
    "mod_num": (lambda L, a: a % 0.7, [(A, "n")], True),
    "fmod": (lambda L, a, b: L.fmod(a, b), [(A, "n"), (B, "a")], True),
    "fmod_num": (lambda L, a: L.fmod(a, 0.7), [(A, "n")], True),
    "pow_tt": (lambda L, a, b: a ** b, [(A, "p"), (B, "n")], True),
    "pow_fn": (lambda L, a, b: L.pow(a, b), [(A, "p"), (A, "n")], True),
    "pow_int": (lambda L, a: a ** 3, [(A, "n")], True),
    "pow_frac": (lambda L, a: L.pow(a, 2.5), [(A, "p")], True),
    "pow_zero": (lambda L, a: a ** 0, [(A, "n")], False),
    "rpow": (lambda L, a: 2.0 ** a, [(A, "n")], True),
    "pow_number_base": (lambda L, a: L.pow(1.5, a), [(A, "n")], True),
    "rpow_tensor": (lambda L, a, b: a.__rpow__(b), [(A, "n"), (B, "p")], True),
    "maximum": (lambda L, a, b: L.maximum(a, b), [(A, "n"), (B, "n")], True),
    "minimum": (lambda L, a, b: L.minimum(a, b), [(A, "n"), (A, "n")], True),
    "atan2": (lambda L, a, b: L.atan2(a, b), [(A, "n"), (B, "a")], True),
    "arctan2": (lambda L, a, b: L.arctan2(a, b), [(A, "n"), (A, "a")], True),
    "hypot": (lambda L, a, b: L.hypot(a, b), [(A, "a"), (B, "a")], True),
    "where": (lambda L, a, b: L.where(a > 0, a, b), [(A, "n"), (B, "n")], True),
    "where_num": (lambda L, a: L.where(a > 0, a, 0.5), [(A, "n")], True),
    "where_num_first": (lambda L, b: L.where(b > 0, 0.5, b), [(A, "n")], True),
    "clamp": (lambda L, a: L.clamp(a, -0.5, 0.5), [(A, "n")], True),
    "clamp_min": (lambda L, a: a.clamp(min=0.1), [(A, "n")], True),
    "clip_max": (lambda L, a: L.clip(a, max=0.1), [(A, "n")], True),
    "clamp_tensors": (lambda L, a, lo, hi: L.clamp(a, lo, hi),
                      [(A, "n"), (B, "n"), (A, "n")], True),
    "clamp_tensor_max": (lambda L, a, hi: L.clamp(a, max=hi), [(A, "n"), (B, "n")], True),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.3), [(A, "n"), (B, "n")], True),
    "lerp_tensor": (lambda L, a, b, w: L.lerp(a, b, w), [(A, "n"), (A, "n"), (B, "u")],
                    True),
    "addcmul": (lambda L, a, b, c: L.addcmul(a, b, c, value=0.5),
                [(A, "n"), (B, "n"), (A, "n")], True),
    "addcdiv": (lambda L, a, b, c: L.addcdiv(a, b, c, value=2),
                [(A, "n"), (A, "n"), (B, "a")], True),
    "neg_dunder": (lambda L, a: -a, [(A, "n")], True),
    "abs_dunder": (lambda L, a: abs(a), [(A, "a")], True),
    "gelu": (lambda L, a: F(L).gelu(a), [(A, "n")], True),
    "gelu_tanh": (lambda L, a: F(L).gelu(a, approximate="tanh"), [(A, "n")], True),
    "silu": (lambda L, a: F(L).silu(a), [(A, "n")], True),
    "softplus": (lambda L, a: F(L).softplus(a), [(A, "n")], True),
    "softplus_beta": (lambda L, a: F(L).softplus(a, beta=2, threshold=1), [(A, "n")], True),
    "relu_nn": (lambda L, a: F(L).relu(a), [(A, "n")], True),
    "tanh_nn": (lambda L, a: F(L).tanh(a), [(A, "n")], True),
    "sigmoid_nn": (lambda L, a: F(L).sigmoid(a), [(A, "n")], True),
    "round_decimals": (lambda L, a: L.round(a, decimals=1), [(A, "n")], False),
}



def one_tensor_input(signature):
    """Whether a signature's only tensor is its input, the rest optional."""
    params = signature[signature.index("(") + 1:-1].split(", ")
    positional = params[:params.index("*")] if "*" in params else params
    return (positional[0] == "Tensor input" and all("=" in p for p in positional[1:])
            and not any(p.startswith("Tensor") for p in positional[1:]))


# The functions of the op table's pointwise rows of one tensor, with the
# sample domain their rows give (MT_SAMPLE); None for a row without one.
UNARY_ROWS = {name: sample for _id, name, kinds, signature, _runs, tags, sample
              in mt._C._op_rows()
              if "pointwise" in tags and "f" in kinds and not name.endswith("_")
              and one_tensor_input(signature)}
UNARY = {name: dom for name, dom in UNARY_ROWS.items()
         if set(getattr(mt, name)._derivatives) - {"", "NonDifferentiable"}}
# zero derivative almost everywhere: no second derivative to compare
PIECEWISE_CONSTANT = {"sign", "sgn", "floor", "ceil", "round", "trunc", "fix", "angle"}
for _name, _dom in UNARY.items():
    CASES[_name] = ((lambda n: lambda L, a: getattr(L, n)(a))(_name), [(A, _dom)],
                    _name not in PIECEWISE_CONSTANT)


def test_every_differentiable_unary_row_has_a_sample_domain():
    assert sorted(name for name, dom in UNARY.items() if dom is None) == []


def make_inputs(specs, transpose_first):
    arrays = [sample(dom, shape) for shape, dom in specs]
    if transpose_first:
        arrays[0] = np.ascontiguousarray(arrays[0].T)
    return arrays


def leaves(L, arrays):
    return [L.tensor(a, dtype=L.float64, requires_grad=True) for a in arrays]


def apply(L, fn, ts, transpose_first):
    args = list(ts)
    if transpose_first:
        args[0] = args[0].t()
    return fn(L, *args)


def np_of(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)  # also torch's ZeroTensor
    return np.asarray(t.detach().numpy())


def check_close(got, want, what, none_is_zero=False):
    """none_is_zero: a second derivative that is identically zero may come
    back as None here where torch returns zeros (our masks do not keep the
    input in the graph)."""
    if want is None or (none_is_zero and got is None):
        other = got if want is None else want
        assert other is None or np.all(np_of(other) == 0), what
        return
    assert got is not None, what
    np.testing.assert_allclose(np_of(got), np_of(want), rtol=1e-9, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("transpose_first", [False, True], ids=["plain", "transposed"])
@pytest.mark.parametrize("name", list(CASES))
def test_grad_matches_torch(name, transpose_first):
    fn, specs, twice = CASES[name]
    if transpose_first and len(specs[0][0]) != 2:
        pytest.skip("needs a 2-d first input")
    arrays = make_inputs(specs, transpose_first)
    xs_m, xs_t = leaves(mt, arrays), leaves(torch, arrays)
    out_m = apply(mt, fn, xs_m, transpose_first)
    out_t = apply(torch, fn, xs_t, transpose_first)
    check_close(out_m, out_t, "forward")
    assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__

    gout = RNG.standard_normal(tuple(out_t.shape))
    g_m = mt.tensor(gout, dtype=mt.float64, requires_grad=True)
    g_t = torch.tensor(gout, dtype=torch.float64, requires_grad=True)
    d_m = mt.autograd.grad(out_m, xs_m, g_m, create_graph=twice, allow_unused=True)
    d_t = torch.autograd.grad(out_t, xs_t, g_t, create_graph=twice, allow_unused=True)
    for k, (a, b) in enumerate(zip(d_m, d_t)):
        check_close(a, b, f"grad of input {k}")
    if not twice:
        return

    # double backward: differentiate <grads, v> w.r.t. the inputs and the upstream grad
    vs = [RNG.standard_normal(a.shape) for a in arrays]
    def objective(L, ds):
        terms = [(d * L.tensor(v, dtype=L.float64)).sum() for d, v in zip(ds, vs) if d is not None]
        return sum(terms[1:], terms[0])
    s_m, s_t = objective(mt, d_m), objective(torch, d_t)
    dd_m = mt.autograd.grad(s_m, xs_m + [g_m], allow_unused=True)
    dd_t = torch.autograd.grad(s_t, xs_t + [g_t], allow_unused=True)
    for k, (a, b) in enumerate(zip(dd_m, dd_t)):
        check_close(a, b, f"second derivative {k}", none_is_zero=True)


def test_pow_at_zero_matches_torch():
    base = np.array([0.0, 0.0, 0.0, 2.0])
    expo = np.array([0.0, 2.0, -1.0, 0.5])
    grads = {}
    for L in (mt, torch):
        b = L.tensor(base, dtype=L.float64, requires_grad=True)
        e = L.tensor(expo, dtype=L.float64, requires_grad=True)
        (b ** e).sum().backward()
        z = L.tensor(expo, dtype=L.float64, requires_grad=True)
        (0.0 ** z).sum().backward()
        grads[L] = [np_of(b.grad), np_of(e.grad), np_of(z.grad)]
    for a, b in zip(grads[mt], grads[torch]):
        np.testing.assert_array_equal(a, b)


def test_maximum_minimum_split_ties():
    a = np.array([1.0, 2.0, 3.0, 2.0])
    b = np.array([1.0, 3.0, 2.0, 2.0])
    for op in ("maximum", "minimum"):
        res = {}
        for L in (mt, torch):
            x = L.tensor(a, dtype=L.float64, requires_grad=True)
            y = L.tensor(b, dtype=L.float64, requires_grad=True)
            getattr(L, op)(x, y).sum().backward()
            res[L] = (np_of(x.grad), np_of(y.grad))
        for u, v in zip(res[mt], res[torch]):
            np.testing.assert_array_equal(u, v)


def test_clamp_crossed_bounds():
    x = np.array([1.0, 2.0, 3.0, -1.0])
    lo = np.array([0.0, 2.5, 2.0, 0.5])
    hi = np.array([1.0, 2.0, 4.0, 0.0])
    res = {}
    for L in (mt, torch):
        ts = leaves(L, [x, lo, hi])
        L.clamp(*ts).sum().backward()
        res[L] = [np_of(t.grad) for t in ts]
    for u, v in zip(res[mt], res[torch]):
        np.testing.assert_array_equal(u, v)


def test_nan_to_num_blocks_nonfinite():
    x = np.array([1.0, np.inf, -np.inf, np.nan, -2.0])
    res = {}
    for L in (mt, torch):
        t = L.tensor(x, dtype=L.float64, requires_grad=True)
        L.nan_to_num(t).sum().backward()
        res[L] = np_of(t.grad)
    np.testing.assert_array_equal(res[mt], res[torch])


INPLACE = {
    "sub_": lambda L, z, y: z.sub_(y, alpha=2),
    "isub": lambda L, z, y: z.__isub__(y),
    "div_": lambda L, z, y: z.div_(y),
    "div_floor_": lambda L, z, y: z.div_(y, rounding_mode="floor"),
    "itruediv": lambda L, z, y: z.__itruediv__(y),
    "true_divide_": lambda L, z, y: z.true_divide_(y),
    "remainder_": lambda L, z, y: z.remainder_(y),
    "imod": lambda L, z, y: z.__imod__(1.5),
    "fmod_": lambda L, z, y: z.fmod_(y),
    "pow_": lambda L, z, y: z.abs().pow_(y),
    "pow_num": lambda L, z, y: z.pow_(2),
    "ipow": lambda L, z, y: z.abs().__ipow__(y),
    "atan2_": lambda L, z, y: z.atan2_(y),
    "hypot_": lambda L, z, y: z.hypot_(y),
    "clamp_": lambda L, z, y: z.clamp_(-0.3, 0.4),
    "clip_": lambda L, z, y: z.clip_(min=y),
    "lerp_": lambda L, z, y: z.lerp_(y, 0.25),
    "addcmul_": lambda L, z, y: z.addcmul_(y, y, value=3),
    "addcdiv_": lambda L, z, y: z.addcdiv_(z * 2, y, value=0.5),
    "round_": lambda L, z, y: z.round_(decimals=1),
    "nan_to_num_": lambda L, z, y: z.nan_to_num_(),
    "relu_nn_inplace": lambda L, z, y: F(L).relu(z, inplace=True),
    "silu_nn_inplace": lambda L, z, y: F(L).silu(z, inplace=True),
}
INPLACE_DOMAIN = {}
# torch: "the derivative for 'inplace version of asinh' is not implemented"
NO_INPLACE_DERIVATIVE_IN_TORCH = {"asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"}
for _name in UNARY:
    if hasattr(mt.Tensor, _name + "_") and _name not in NO_INPLACE_DERIVATIVE_IN_TORCH:
        INPLACE[_name + "_"] = (lambda n: lambda L, z, y: getattr(z, n + "_")())(_name)
        INPLACE_DOMAIN[_name + "_"] = UNARY[_name]


# torch names the in-place form's node ConjPhysicalBackward1; ours keeps the
# operator's name
INPLACE_NAME_GAPS = {"conj_physical_"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason="the in-place form's grad_fn is named as the operator's"))
    if n in INPLACE_NAME_GAPS else n for n in INPLACE])
def test_inplace_on_nonleaf(name):
    op = INPLACE[name]
    x_np = sample(INPLACE_DOMAIN.get(name, "a"), (3, 4))
    y_np = sample("a", (4,))
    res = {}
    for L in (mt, torch):
        x = L.tensor(x_np, dtype=L.float64, requires_grad=True)
        y = L.tensor(y_np, dtype=L.float64, requires_grad=True)
        z = x * 1
        r = op(L, z, y)
        name_of = type(r.grad_fn).__name__
        (r * L.tensor(np.arange(12.0).reshape(3, 4), dtype=L.float64)).sum().backward()
        res[L] = (np_of(r), name_of, np_of(x.grad), None if y.grad is None else np_of(y.grad))
    np.testing.assert_allclose(res[mt][0], res[torch][0], rtol=1e-12)
    assert res[mt][1] == res[torch][1]
    np.testing.assert_allclose(res[mt][2], res[torch][2], rtol=1e-9, atol=1e-12)
    if res[torch][3] is None:
        assert res[mt][3] is None or not res[mt][3].any()
    else:
        np.testing.assert_allclose(res[mt][3], res[torch][3], rtol=1e-9, atol=1e-12)


def test_inplace_on_leaf_refused():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.exp_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        mt.nn.functional.relu(x, inplace=True)


def test_saved_result_modified_in_place_is_caught():
    for L in (mt, torch):
        x = L.tensor([0.5, -1.0], dtype=L.float64, requires_grad=True)
        y = x.exp()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_float32_grads_keep_dtype():
    x = mt.tensor([0.5, 1.5], dtype=mt.float32, requires_grad=True)
    y = mt.tensor([2.0, 3.0], dtype=mt.float64, requires_grad=True)
    (x ** y).sum().backward()
    assert x.grad.dtype == mt.float32 and y.grad.dtype == mt.float64
    xt = torch.tensor([0.5, 1.5], dtype=torch.float32, requires_grad=True)
    yt = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (xt ** yt).sum().backward()
    np.testing.assert_allclose(np_of(x.grad), np_of(xt.grad), rtol=1e-6)
    np.testing.assert_allclose(np_of(y.grad), np_of(yt.grad), rtol=1e-6)


def test_nondifferentiable_results_have_no_history():
    x = mt.tensor([0.5, -1.0], requires_grad=True)
    for r in (x > 0, x == x, mt.isnan(x), mt.isfinite(x), mt.logical_not(x), mt.isclose(x, x)):
        assert r.grad_fn is None and not r.requires_grad


def test_floor_divide_has_no_derivative():
    x = mt.tensor([0.5, -1.0], requires_grad=True)
    y = mt.floor_divide(x, 0.3)
    assert type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="the derivative for 'floor_divide' is not implemented"):
        y.sum().backward()


def test_grad_of_a_non_leaf_runs_nothing_above_it():
    """autograd.grad with respect to an intermediate captures the gradient
    arriving there: the intermediate's own grad_fn and everything above it
    neither run nor free their saved tensors, as in torch."""
    x = mt.tensor([0.5, -1.0, 2.0], dtype=mt.float64, requires_grad=True)
    fired = []
    x.register_hook(lambda g: fired.append(g))
    r = (x * 2).exp()
    for _ in range(3):  # no retain_graph: the graph above r stays intact
        (g,) = mt.autograd.grad(r.sin(), r, mt.ones(3, dtype=mt.float64))
        np.testing.assert_allclose(g.numpy(), np.cos(np.exp(2 * x.detach().numpy())), rtol=1e-6)
    assert fired == []
    r.sum().backward()  # and it still backpropagates
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * x.detach().numpy()), rtol=1e-6)
