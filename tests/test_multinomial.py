"""multinomial: shapes, dtypes and errors as torch's; the draws (from our
Philox stream, so never torch's values) checked statistically and for
determinism under manual_seed and generator=."""
import numpy as np
import pytest

import minitorch as mt
from torch_errors import same_error

torch = pytest.importorskip("torch")


def chi_square(counts, probs):
    expected = np.asarray(probs) / np.sum(probs) * np.sum(counts)
    keep = expected > 0
    assert np.all(np.asarray(counts)[~keep] == 0)
    return float(np.sum((np.asarray(counts)[keep] - expected[keep]) ** 2 / expected[keep]))


# 99.9% quantiles of chi-square with 3 and 4 degrees of freedom
CHI2_3, CHI2_4 = 16.27, 18.47


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_with_replacement_follows_the_probabilities(dtype):
    mt.manual_seed(17)
    probs = [0.1, 0.0, 0.2, 0.3, 0.4]
    p = mt.tensor(probs, dtype=getattr(mt, dtype)) * 3  # unnormalised weights
    s = mt.multinomial(p, 20000, replacement=True)
    assert s.dtype == mt.int64 and s.shape == (20000,)
    counts = np.bincount(s.numpy(), minlength=5)
    assert counts[1] == 0
    assert chi_square(counts, probs) < CHI2_3


def test_without_replacement_draws_in_sequence():
    mt.manual_seed(3)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    s = mt.multinomial(mt.tensor(probs).expand(20000, 4), 2).numpy()
    assert np.all(s[:, 0] != s[:, 1])
    assert chi_square(np.bincount(s[:, 0], minlength=4), probs) < CHI2_3
    # the second draw: category j after a first draw i, with probability p_j / (1 - p_i)
    second = [sum(probs[i] * probs[j] / (1 - probs[i]) for i in range(4) if i != j)
              for j in range(4)]
    assert chi_square(np.bincount(s[:, 1], minlength=4), second) < CHI2_3


def test_without_replacement_all_categories_is_a_permutation():
    mt.manual_seed(0)
    s = mt.multinomial(mt.rand(50, 7) + 0.01, 7)
    assert s.shape == (50, 7)
    assert np.all(np.sort(s.numpy(), axis=1) == np.arange(7))


def test_rows_are_independent_distributions():
    mt.manual_seed(5)
    p = mt.tensor([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [1.0, 1.0, 1.0]])
    s = mt.multinomial(p, 4000, True).numpy()
    assert np.all(s[0] == 1)
    assert set(np.unique(s[1])) == {0, 2}
    assert chi_square(np.bincount(s[2], minlength=3), [1, 1, 1]) < 13.82  # 2 dof


def test_zero_probability_categories_come_last_without_replacement():
    ours = mt.multinomial(mt.tensor([0.0, 1.0, 0.0]), 2)
    theirs = torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 2)
    assert ours[0].item() == theirs[0].item() == 1
    assert ours.tolist() == theirs.tolist()


def test_determinism_under_manual_seed_and_generator():
    p = mt.tensor([0.2, 0.5, 0.3])
    mt.manual_seed(11)
    a = mt.multinomial(p, 50, True)
    b = p.multinomial(3)
    mt.manual_seed(11)
    assert mt.equal(a, mt.multinomial(p, 50, True))
    assert mt.equal(b, p.multinomial(3))
    g1, g2 = mt.Generator().manual_seed(4), mt.Generator().manual_seed(4)
    x = mt.multinomial(p, 30, True, generator=g1)
    assert mt.equal(x, mt.multinomial(p, 30, True, generator=g2))
    assert not mt.equal(mt.multinomial(p, 30, True, generator=g1), x)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (0, 3)])
@pytest.mark.parametrize("n,replacement", [(1, False), (2, False), (5, True)])
def test_shapes_match_torch(shape, n, replacement):
    ours = mt.multinomial(mt.ones(*shape), n, replacement)
    theirs = torch.multinomial(torch.ones(*shape), n, replacement)
    assert ours.dtype == mt.int64 and tuple(ours.shape) == tuple(theirs.shape)


def test_out_argument():
    out = mt.zeros(0, dtype=mt.int64)
    r = mt.multinomial(mt.tensor([1.0, 2.0]), 2, out=out)
    assert r is out and sorted(out.tolist()) == [0, 1]
    same_error(lambda: mt.multinomial(mt.tensor([1.0, 2.0]), 2, out=mt.zeros(2)),
                lambda: torch.multinomial(torch.tensor([1.0, 2.0]), 2, out=torch.zeros(2)))


def test_not_differentiable():
    p = mt.tensor([0.2, 0.8], requires_grad=True)
    s = mt.multinomial(p, 2)
    assert not s.requires_grad and s.grad_fn is None


CASES = [
    (lambda m: m.multinomial(m.ones(2, 2, 2), 1)),
    (lambda m: m.multinomial(m.tensor(1.0), 1)),
    (lambda m: m.multinomial(m.ones(3, dtype=m.long), 1)),
    (lambda m: m.multinomial(m.ones(3), 0)),
    (lambda m: m.multinomial(m.ones(3), -2, True)),
    (lambda m: m.multinomial(m.ones(3), 4)),
    (lambda m: m.multinomial(m.zeros(0), 1)),
    (lambda m: m.multinomial(m.zeros(2, 0), 1, True)),
    (lambda m: m.multinomial(m.tensor([-1.0, 2.0]), 1)),
    (lambda m: m.multinomial(m.tensor([float("nan"), 2.0]), 1, True)),
    (lambda m: m.multinomial(m.tensor([float("inf"), 2.0]), 1)),
    (lambda m: m.multinomial(m.zeros(3), 1)),
    (lambda m: m.multinomial(m.tensor([[0.0, 1.0], [0.0, 0.0]]), 1, True)),
    (lambda m: m.multinomial(m.ones(3), 1, generator=3)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_errors_match_torch(case):
    same_error(lambda: CASES[case](mt), lambda: CASES[case](torch), renamed=True)
