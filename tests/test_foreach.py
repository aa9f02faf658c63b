"""torch._foreach_*: each op over lists of tensors, functional (a tuple back)
and in place (the list back, its tensors written), with numbers, lists of
numbers, a tensor and lists of tensors as the other operands, and torch's
list-length refusals, against torch."""
import pytest

import minitorch
from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")

NAMES = sorted(n for n in dir(minitorch) if n.startswith("_foreach_"))
SHAPES = [(2,), (3, 2), ()]


def lists(L, positive=False):
    g = torch.Generator().manual_seed(0)
    data = [torch.rand(s, generator=g, dtype=torch.float64) + (0.5 if positive else -0.3)
            for s in SHAPES]
    return [L.tensor(d.tolist(), dtype=L.float64) for d in data]


def test_every_foreach_name_is_torchs():
    assert NAMES and all(hasattr(torch, n) for n in NAMES)
    assert len(NAMES) >= 60


def other_forms(L, op):
    if op in minitorch._foreach.UNARY:
        return [()]
    if op in ("addcmul", "addcdiv"):
        return [(lists(L), lists(L, True)), (lists(L), lists(L, True), 0.5),
                (lists(L), lists(L, True), [0.5, 2.0, -1.0])]
    if op == "lerp":
        return [(lists(L), 0.25), (lists(L), lists(L, True))]
    forms = [(1.5,), ([2.0, 0.5, 3.0],), (lists(L, True),)]
    return forms + [(L.tensor(2.0),)] if op in ("add", "sub", "mul", "div") else forms


@pytest.mark.parametrize("name", [n for n in NAMES if n[len("_foreach_"):].rstrip("_") in
                                  minitorch._foreach.UNARY + minitorch._foreach.BINARY +
                                  minitorch._foreach.TERNARY])
def test_values_functional_and_in_place(name):
    op = name[len("_foreach_"):].rstrip("_")
    inplace = name.endswith("_")

    def scenario(L):
        seen = []
        for k in range(len(other_forms(L, op))):
            self = lists(L, positive=op in ("log", "log10", "log2", "sqrt", "rsqrt", "pow",
                                             "lgamma"))
            args = other_forms(L, op)[k]
            r = getattr(L, name)(self, *args)
            seen.append((type(r).__name__, val(r), r is self if inplace else None,
                         val(self) if inplace else None))
        return seen
    same(torch, scenario)


def test_add_and_sub_take_alpha_with_tensors_only():
    def scenario(L):
        x = lists(L)
        return (val(L._foreach_add(x, lists(L), alpha=2)), val(L._foreach_add(x, L.tensor(1.5),
                                                                              alpha=3)),
                errmsg(lambda: L._foreach_add(x, 1.0, alpha=2))[0])
    same(torch, scenario)


def test_reductions_and_list_helpers():
    def scenario(L):
        x = lists(L)
        dst = [L.zeros(s, dtype=L.float64) for s in SHAPES]
        copied = L._foreach_copy_(dst, x)
        zeroed = L._foreach_zero_([t.clone() for t in x])
        return (val(L._foreach_norm(x)), val(L._foreach_norm(x, 1)), val(L._foreach_max(x)),
                val(L._foreach_pow(2.0, x)), val(L._foreach_clone(x)), copied is dst, val(dst),
                val(zeroed))
    same(torch, scenario)


@pytest.mark.parametrize("call", [
    lambda L, x: L._foreach_add([], 1.0),
    lambda L, x: L._foreach_mul(x, x[:2]),
    lambda L, x: L._foreach_mul_(x, [1.0, 2.0]),
    lambda L, x: L._foreach_addcmul(x, x, x[:1]),
    lambda L, x: L._foreach_exp_([]),
])
def test_list_lengths_are_checked(call):
    same(torch, lambda L: errmsg(lambda: call(L, lists(L))))


def test_autograd_flows_through_the_functional_forms():
    def scenario(L):
        x = [t.requires_grad_() for t in lists(L, True)]
        sum(r.sum() for r in L._foreach_mul(L._foreach_sqrt(x), 3.0)).backward()
        return [val(t.grad) for t in x]
    same(torch, scenario)
