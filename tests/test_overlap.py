"""Memory overlap of written-to tensors, against torch.

Every in-place method and every function with out= (read from the op table
through minitorch.overrides) runs on targets whose memory overlaps: an
expanded target (internal overlap), a target sharing part of an input's
memory (a shifted view, or the transpose of a square input), and a target
that is one of the inputs (full overlap, which torch allows). minitorch must
raise torch's error where torch raises it, and compute torch's values where
torch computes.
"""
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.overrides import get_overridable_functions

torch = pytest.importorskip("torch")

INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location. Please clone() the tensor before performing the "
            "operation.")
PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to "
           "tensor refer to a single memory location. Please clone() the tensor before "
           "performing the operation.")

NOT_INPLACE_DUNDERS = {"__index__", "__int__", "__invert__", "__init__", "__iter__"}
# named like in-place methods, but they change autograd state, where the
# memory lives or the shape, not elements
NOT_WRITING = {"requires_grad_", "detach_", "share_memory_", "resize_", "resize_as_",
               "as_strided_", "squeeze_", "swapaxes_", "swapdims_", "t_", "transpose_",
               "unsqueeze_"}
# torch's matrix products read an operand that is also the target after
# writing into it (addmm copies its bias into out= first); minitorch computes
# the product of the values given, which torch computes on a clone.
PRODUCTS = {"addmm", "addmm_", "addmv", "addmv_", "baddbmm", "baddbmm_", "bmm", "mm", "mv",
            "matmul"}
RANDOM = {"bernoulli", "bernoulli_", "exponential_", "multinomial", "normal_", "random_", "uniform_",
          "cauchy_", "log_normal_", "geometric_"}
INT_OPS = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "__iand__", "__ior__", "__ixor__", "__ilshift__",
           "__irshift__", "gcd", "gcd_", "lcm", "lcm_"}

# Arguments that a signature alone does not say: name -> (positional, keyword).
# "T" is a float tensor of the target's shape (3, 3); ("T", shape) another
# shape; ("I", values) an int64 tensor; ("B", values) a bool tensor.
T = "T"
SQ = (3, 3)
EXPLICIT = {
    "index_add_": ([0, ("I", [2, 0, 1]), T], {}),
    "index_add": ([T, 0, ("I", [2, 0, 1]), T], {}),
    "index_copy_": ([0, ("I", [2, 0, 1]), T], {}),
    "index_fill_": ([1, ("I", [2, 0]), 0.5], {}),
    "scatter_": ([0, ("I", [[2, 0, 1], [1, 2, 0], [0, 1, 2]]), T], {}),
    "scatter_add_": ([0, ("I", [[2, 0, 1], [1, 2, 0], [0, 1, 2]]), T], {}),
    "scatter": ([T, 0, ("I", [[2, 0, 1], [1, 2, 0], [0, 1, 2]]), T], {}),
    "scatter_add": ([T, 0, ("I", [[2, 0, 1], [1, 2, 0], [0, 1, 2]]), T], {}),
    "masked_fill_": ([("B", [[True, False, True]] * 3), 0.5], {}),
    "fill_diagonal_": ([0.5], {}),
    "fill_": ([0.5], {}),
    "copy_": ([T], {}),
    "random_": ([0, 5], {}),
    "bernoulli_": ([0.5], {}),
    "uniform_": ([0.0, 1.0], {}),
    "normal_": ([0.0, 1.0], {}),
    "exponential_": ([1.0], {}),
    "multinomial": ([T, 2], {}),
    "round": ([T], {}),
    "round_": ([], {}),
    "logcumsumexp": ([T, 0], {}),
    "clamp": ([T, T, T], {}),
    "clip": ([T, T, T], {}),
    "clamp_": ([T, T], {}),
    "clip_": ([T, T], {}),
    "nan_to_num": ([T], {}),
    "nan_to_num_": ([], {}),
    "div": ([T, T], {}),
    "divide": ([T, T], {}),
    "div_": ([T], {}),
    "dot": ([("T", (3,)), ("T", (3,))], {}),
    "vdot": ([("T", (3,)), ("T", (3,))], {}),
    "ger": ([("T", (3,)), ("T", (3,))], {}),
    "outer": ([("T", (3,)), ("T", (3,))], {}),
    "mv": ([T, ("T", (3,))], {}),
    "addmv": ([("T", (3,)), T, ("T", (3,))], {}),
    "addmv_": ([T, ("T", (3,))], {"_self": (3,)}),
    "bmm": ([("T", (2, 3, 3)), ("T", (2, 3, 3))], {}),
    "baddbmm": ([("T", (2, 3, 3)), ("T", (2, 3, 3)), ("T", (2, 3, 3))], {}),
    "baddbmm_": ([("T", (2, 3, 3)), ("T", (2, 3, 3))], {"_self": (2, 3, 3)}),
    "max": ([T, T], {}),
    "min": ([T, T], {}),
    "scatter_reduce_": ([0, ("I", [[2, 0, 1], [1, 2, 0], [0, 1, 2]]), T, "sum"], {}),
    **{f"{op}_": ([T], {}) for op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and",
                                        "logical_or", "logical_xor")},
    "tril_": ([0], {}),
    "triu_": ([1], {}),
    "cumsum_": ([0], {}),
    "cumprod_": ([1], {}),
    "logit_": ([], {}),
    "index_reduce_": ([0, ("I", [2, 0, 1]), T, "prod"], {}),
    "put_": ([("I", [2, 0, 1]), ("T", (3,))], {}),
    "masked_scatter_": ([("B", [[True, False, True]] * 3), T], {}),
    "polygamma": ([1, T], {}),
    "polygamma_": ([1], {}),
    "float_power_": ([2.0], {}),
    "ldexp_": ([T], {}),
    "mvlgamma_": ([1], {}),
    "addr_": ([("T", (3,)), ("T", (3,))], {}),
    "addbmm_": ([("T", (2, 3, 3)), ("T", (2, 3, 3))], {}),
    "renorm_": ([2.0, 0, 1.0], {}),
    "cauchy_": ([], {}),
    "log_normal_": ([], {}),
    "geometric_": ([0.5], {}),
    "cumsum": ([T, 0], {}),
    "cumprod": ([T, 1], {}),
    "softmax": ([T, 0], {}),
    "log_softmax": ([T, 1], {}),
    "logsumexp": ([T, 1], {}),
    "gather": ([T, 0, ("I", [[2, 0, 1], [1, 2, 0], [0, 1, 2]])], {}),
    "index_select": ([T, 0, ("I", [2, 0, 1])], {}),
    "searchsorted": ([("T", (3,)), T], {}),
    "bucketize": ([T, ("T", (3,))], {}),
    "masked_select": ([T, ("B", [[True, False, True]] * 3)], {}),
    "take": ([T, ("I", [2, 0, 1])], {}),
    "where": ([("B", [[True, False, True]] * 3), T, T], {}),
    "empty": ([SQ], {}),
    "zeros": ([SQ], {}),
    "ones": ([SQ], {}),
    "special_logsumexp": ([T, 1], {}),
    "special_polygamma": ([1, T], {}),
}


# a tuple of index tensors: the cases here build tensor arguments only
TENSOR_TUPLES = {"index_put_"}
# nn.functional's out= forms: torch has them under torch._C._nn only
NN_OUT = {"avg_pool2d", "gelu", "linear", "softplus"}
# out= of another dtype than every input: no target can share an input's memory
OTHER_DTYPE_OUT = {"all", "any", "argmax", "argmin"}


def _beyond_the_cases(sigs):
    """Rows the cases here cannot build: a list of tensors as the input (cat)
    or out= as a (values, indices) tuple (sort); tests/test_out_by_copy.py
    writes their out= over one of their inputs."""
    return bool(sigs) and all(s and s[0][1] == "Tensor[]" or
                              any(p[0] == "out" and p[1] == "Tensor[]?" for p in s)
                              for s in sigs)


def _rows():
    """(name, is_method, nparams) for every row that writes into self or out=."""
    rows = {}
    for ns, fns in get_overridable_functions().items():
        for f in fns:
            name = getattr(f, "__name__", "")
            sigs = getattr(f, "_signatures", None)
            if name in NOT_WRITING | TENSOR_TUPLES | NN_OUT | OTHER_DTYPE_OUT or \
                    _beyond_the_cases(sigs):
                continue
            if ns is mt.Tensor and (name.endswith("_") and not name.startswith("__")
                                    or name.startswith("__i") and name.endswith("__")
                                    and name not in NOT_INPLACE_DUNDERS):
                rows[(name, True)] = sigs
            elif ns is not mt.Tensor and sigs and any(p[0] == "out" for s in sigs for p in s):
                rows[(name, False)] = sigs
    return rows


ROWS = _rows()


def _generic(name, sigs, method):
    """Arguments from the first signature all of whose required parameters
    are tensors or numbers."""
    for sig in sigs or ():
        params = [p for p in sig if p[0] != "out"][1 if method else 0:]
        args = []
        for pname, ptype, kwonly, default in params:
            if ptype in ("Tensor", "object"):
                args.append(T)
            elif ptype == "Scalar" and default is None:
                args.append(0.5)
            elif default is None:
                break
        else:
            return args, {}
    return None


def _spec(name, method, sigs):
    if name in EXPLICIT:
        return EXPLICIT[name]
    return _generic(name, sigs, method)


def test_every_writing_row_has_arguments():
    missing = [n for (n, m), s in ROWS.items() if _spec(n, m, s) is None]
    assert not missing, f"add EXPLICIT arguments for {missing}"
    assert len(ROWS) > 150


def _function(lib, name):
    """lib's function of that name: torch.special's under its own namespace."""
    if name.startswith("special_"):
        return getattr(lib.special, name[len("special_"):])
    return getattr(lib, name)


class Case:
    """One call, built the same way for both libraries from numpy data."""

    def __init__(self, name, method, seed):
        self.name, self.method = name, method
        pos, kw = _spec(name, method, ROWS[(name, method)])
        self.kw = {k: v for k, v in kw.items() if not k.startswith("_")}
        self.self_shape = kw.get("_self", SQ)
        rng = np.random.default_rng(seed)
        ints = name in INT_OPS
        self.ints = ints

        def data(shape):
            if ints:
                return rng.integers(1, 4, shape).astype(np.int64)
            return rng.uniform(0.2, 0.8, shape)

        self.data = []
        for p in pos:
            if p == T:
                self.data.append(("t", data(SQ)))
            elif isinstance(p, tuple) and p[0] == "T":
                self.data.append(("t", data(p[1])))
            elif isinstance(p, tuple):
                self.data.append((p[0], np.array(p[1])))
            else:
                self.data.append(("n", p))
        self.self_data = data(self.self_shape)

    def target_shape(self):
        return self.self_shape if self.method else self.out_shape

    def tensor_positions(self):
        return [k for k, (kind, v) in enumerate(self.data) if kind == "t"]

    def same_shape(self, k):
        return self.data[k][1].shape == self.target_shape()

    def run(self, lib, scenario, k=None):
        """('raise', message) or ('ok', [arrays]); scenario picks the target."""
        dt = lib.int64 if self.ints else lib.float64
        out_dt = getattr(lib, getattr(self, "out_dtype", "float64"))

        def mk(kind, v):
            if kind == "t":
                return lib.tensor(v, dtype=dt)
            if kind == "I":
                return lib.tensor(v, dtype=lib.int64)
            if kind == "B":
                return lib.tensor(v, dtype=lib.bool)
            return v

        args = [mk(kind, v) for kind, v in self.data]
        target = None
        if self.method or scenario != "plain":
            shape = self.target_shape()
            if self.method:
                base = lib.tensor(self.self_data, dtype=dt)
            else:
                data = np.random.default_rng(1).uniform(0.2, 0.8, shape)
                base = lib.tensor(data * 4 if self.ints else data).to(out_dt)
            if scenario == "expanded":
                target = base[:1].expand(shape)
            elif scenario == "shifted":
                # the target starts one element into the input's memory
                n_in, n_t = args[k].numel(), base.numel()
                flat = lib.tensor(np.arange(max(n_in, n_t) + 1) % 3 + 1, dtype=dt)
                flat = flat if self.ints else flat / 4
                target = flat[1:1 + n_t].view(shape)
                args[k] = flat[:n_in].view(args[k].shape)
            elif scenario == "same":
                target = base
                args[k] = target
            elif scenario == "same_values":
                target = base
                args[k] = target.clone()
            elif scenario == "transposed":
                target = base
                args[k] = target.t()
            else:
                target = base
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if self.method:
                    ret = getattr(target, self.name)(*args, **self.kw)
                elif target is not None:
                    ret = _function(lib, self.name)(*args, out=target, **self.kw)
                else:
                    ret = _function(lib, self.name)(*args, **self.kw)
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            return "raise", str(e)
        got = [ret] if target is None else [target, ret]
        return "ok", [np.array(x.tolist()) for x in got]


def _scenarios(case):
    shape = case.target_shape()
    if len(shape) and shape[0] > 1:
        yield "expanded", None
    for k in case.tensor_positions():
        yield "shifted", k
        if case.same_shape(k):
            yield "same", k
            if len(shape) == 2 and shape[0] == shape[1]:
                yield "transposed", k


# Python composites that write through x[key] = v or copy_, whose checks are
# those (a warning for an expanded target, none for a source sharing the
# target's memory) where torch's kernels refuse; and the in-place forms of
# composites_inplace.py: copy_ refuses an expanded self that torch's tril_
# and triu_ write, and lets through an other sharing part of self's memory,
# which torch's comparisons and logical binaries refuse.
COMPOSITE_GAPS = {"index_copy_", "index_reduce_", "masked_scatter_", "put_", "scatter_reduce_",
                  "addr_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "logical_and_",
                  "logical_or_", "logical_xor_", "tril_", "triu_"}
# rows whose checks differ from torch's for another reason, and which
KNOWN_GAPS = {
    # torch's conj_physical_ of a real tensor returns before its overlap check
    "conj_physical_": "the runner checks overlap before the impl sees a real input",
    # torch.special.logsumexp's out= is written after the reduction, not checked
    "special_logsumexp": "out= overlapping the input is refused where torch writes it",
}


def _params():
    out = []
    for name, method in sorted(ROWS):
        marks = [pytest.mark.xfail(strict=True, reason="composite checks as the op it writes with")
                 ] if name in COMPOSITE_GAPS else []
        if name in KNOWN_GAPS:
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[name])]
        out.append(pytest.param(name, method, id=f"{'Tensor.' if method else ''}{name}",
                                marks=marks))
    return out


@pytest.mark.parametrize("name,method", _params())
def test_overlap_matches_torch(name, method):
    case = Case(name, method, seed=len(name))
    if not method:
        kind, vals = case.run(torch, "plain")
        assert kind == "ok", vals
        case.out_shape = vals[0].shape
        case.out_dtype = {"b": "bool", "i": "int64"}.get(vals[0].dtype.kind, "float64")
        kind, vals = case.run(torch, "fresh")
        if kind != "ok":
            pytest.skip(f"torch has no out= here: {vals}")
    checked = 0
    for scenario, k in _scenarios(case):
        want = case.run(torch, scenario, k)
        if scenario == "same" and name in PRODUCTS and want[0] == "ok":
            want = case.run(torch, "same_values", k)
        got = case.run(mt, scenario, k)
        where = f"{name} {scenario} {k}"
        if want[0] == "raise":
            if want[1] in (INTERNAL, PARTIAL):
                assert got == want, where
                checked += 1
            else:
                assert got[0] == "raise", f"{where}: torch raised {want[1]!r}, got {got}"
            continue
        assert got[0] == "ok", f"{where}: torch computed, minitorch raised {got[1]!r}"
        checked += 1
        # only a full overlap has one right answer; torch's values for the
        # overlaps it lets through depend on its kernels' order
        if name in RANDOM or name == "empty" or scenario != "same":
            continue
        for g, w in zip(got[1], want[1]):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9, err_msg=where)
    assert checked


def _outcome(lib, f):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            r = f(lib)
            got = ("ok", r.tolist())
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            got = (type(e).__name__, str(e))
    return got + (len([w for w in seen if "expanded" in str(w.message)]),)


def _arange(L):
    return L.arange(6.0)


def _expanded(L):
    return L.zeros(1, 3).expand(2, 3)


def _put(x, key, value):
    x[key] = value
    return x


BY_HAND = {
    # the examples
    "expand_add_": lambda L: _expanded(L).add_(1),
    "out_shifted": lambda L: L.add(_arange(L)[:5], 1, out=_arange(L)[1:]),
    "out_shifted_same_base": lambda L: (lambda x: L.add(x[:5], 1, out=x[1:]))(_arange(L)),
    "fill_expanded": lambda L: _expanded(L).fill_(2.0),
    "zero_expanded": lambda L: _expanded(L).zero_(),
    "copy_expanded": lambda L: _expanded(L).copy_(L.ones(2, 3)),
    "copy_shifted": lambda L: (lambda x: x[1:].copy_(x[:5]))(_arange(L)),
    "add_transposed": lambda L: (lambda x: x.add_(x.t()))(L.ones(3, 3)),
    "add_itself": lambda L: (lambda x: x.add_(x))(_arange(L)),
    # x[key] = value: a basic key copies, an advanced key puts
    "set_basic_shifted": lambda L: (lambda x: _put(x, slice(1, None), x[:5]))(_arange(L)),
    "set_basic_disjoint": lambda L: (lambda x: _put(x, slice(None, 3), x[3:]))(_arange(L)),
    "set_basic_whole": lambda L: (lambda x: _put(x, Ellipsis, x))(_arange(L)),
    "set_basic_transposed": lambda L: (lambda x: _put(x, slice(None), x.t()))(
        L.arange(4.0).view(2, 2)),
    "set_expanded_column": lambda L: _put(_expanded(L), (slice(None), 0), L.tensor([1.0, 2])),
    "set_expanded_column_number": lambda L: _put(_expanded(L), (slice(None), 0), 1.0),
    "set_expanded_row": lambda L: _put(_expanded(L), 0, 5.0),
    "set_index_shifted": lambda L: (lambda x: _put(x, L.tensor([0, 1]), x[1:3]))(_arange(L)),
    "set_index_disjoint_view": lambda L: (lambda x: _put(x.view(2, 3), (slice(1, None),
                                                                         L.tensor([0, 1])),
                                                         x[:2]))(_arange(L)),
    "set_index_expanded": lambda L: _put(_expanded(L), L.tensor([0]), L.tensor([1.0, 2, 3])),
    "set_index_number": lambda L: _put(_arange(L), L.tensor([0, 1]), 5.0),
    "set_mask_shifted": lambda L: (lambda x: _put(x, x > 2, x[:3]))(_arange(L)),
    "set_index_from_self": lambda L: (lambda x: _put(x, x[:2], 5))(L.arange(6)),
    # detach_ on a view
    "detach_slice": lambda L: L.zeros(3)[:2].detach_(),
    "detach_view_of_grad": lambda L: L.zeros(3, requires_grad=True)[:2].detach_(),
    "detach_expanded": lambda L: _expanded(L).detach_(),
    "detach_not_a_view": lambda L: (L.zeros(3, requires_grad=True) * 2).detach_(),
    "detach_detached": lambda L: L.zeros(3).detach().detach_(),
}


@pytest.mark.parametrize("case", sorted(BY_HAND))
def test_examples_match_torch(case):
    f = BY_HAND[case]
    assert _outcome(mt, f) == _outcome(torch, f)


def test_product_into_its_own_operand_uses_the_operand_values():
    # torch lets this through and returns what its kernel overwrote; an out=
    # sharing an input's memory once made the result a view of itself
    x = mt.arange(9.0).view(3, 3).clone()
    want = x.t().clone() @ mt.ones(3, 3)
    got = mt.mm(x.t(), mt.ones(3, 3), out=x)
    assert got is x and x.tolist() == want.tolist()
    assert not x._is_view() and x.requires_grad is False
