"""Small torch behaviours real programs met: split with many sections,
assert_close on tensors requiring grad, Module's non-leaf parameter message."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("n", [33, 40, 100])
def test_split_with_many_sections(n):
    sizes = [1 + k % 3 for k in range(n)]
    xm = mt.arange(float(sum(sizes)), requires_grad=True)
    xt = torch.arange(float(sum(sizes)), requires_grad=True)
    pm, pt = mt.split(xm, sizes), torch.split(xt, sizes)
    assert [p.tolist() for p in pm] == [p.tolist() for p in pt]
    assert [p.tolist() for p in xm.split_with_sizes(sizes)] == [p.tolist() for p in pt]
    sum(p.sum() * k for k, p in enumerate(pm)).backward()
    sum(p.sum() * k for k, p in enumerate(pt)).backward()
    assert xm.grad.tolist() == xt.grad.tolist()
    with pytest.raises(RuntimeError) as em:
        mt.split(xm, sizes[:-1])
    with pytest.raises(RuntimeError) as et:
        torch.split(xt, sizes[:-1])
    assert str(em.value) == str(et.value)


def test_long_size_lists_fail_as_torch_rank_limits_do():
    with pytest.raises(RuntimeError, match="at most 16 dimensions"):
        mt.zeros([1] * 40)


def test_assert_close_accepts_tensors_requiring_grad():
    a = mt.ones(3, requires_grad=True)
    mt.testing.assert_close(a, mt.ones(3))
    mt.testing.assert_close(a * 2, mt.full((3,), 2.0))
    with pytest.raises(AssertionError):
        mt.testing.assert_close(a, mt.zeros(3))
    torch.testing.assert_close(torch.ones(3, requires_grad=True), torch.ones(3))


def test_non_leaf_parameter_message_names_the_parameter():
    m = mt.nn.Linear(2, 2)
    q = mt.nn.Parameter(mt.ones(2)) * 2
    q.__class__ = mt.nn.Parameter  # a Parameter with a grad_fn, as torch can meet one
    assert q.grad_fn is not None
    with pytest.raises(ValueError) as e:
        m.register_parameter("w", q)
    assert str(e.value) == (
        "Cannot assign non-leaf Tensor to parameter 'w'. Model parameters must be created "
        "explicitly. To express 'w' as a function of another Tensor, compute the value in "
        "the forward() method.")
