"""torch.normal's tensor forms: normal(Tensor mean, Tensor std),
normal(Tensor mean, float std=1) and normal(float mean, Tensor std), as the
tutorials call them (issue #17's corpus)."""
import pytest

import minitorch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mean_shape,std_shape", [((3, 1), (4,)), ((5,), (5,)), ((), (2, 3)),
                                                  ((0, 2), (2,)), ((1,), ())])
def test_shapes_and_dtypes_follow_torch(mean_shape, std_shape, dtype):
    ours = minitorch.normal(minitorch.zeros(mean_shape, dtype=getattr(minitorch, dtype)),
                            minitorch.ones(std_shape, dtype=getattr(minitorch, dtype)))
    theirs = torch.normal(torch.zeros(mean_shape, dtype=getattr(torch, dtype)),
                          torch.ones(std_shape, dtype=getattr(torch, dtype)))
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(minitorch.normal(minitorch.zeros(mean_shape)).shape) == \
        tuple(torch.normal(torch.zeros(mean_shape)).shape)
    assert tuple(minitorch.normal(1.5, minitorch.ones(std_shape)).shape) == \
        tuple(torch.normal(1.5, torch.ones(std_shape)).shape)


def test_draws_have_the_given_means_and_stds():
    minitorch.manual_seed(0)
    mean = minitorch.tensor([-2.0, 0.0, 5.0]).repeat(40000, 1)
    std = minitorch.tensor([0.5, 1.0, 3.0])
    x = minitorch.normal(mean, std)
    assert minitorch.allclose(x.mean(0), minitorch.tensor([-2.0, 0.0, 5.0]), atol=0.05)
    assert minitorch.allclose(x.std(0), std, rtol=0.03)
    y = minitorch.normal(minitorch.full((40000,), 3.0), 2.0)
    assert abs(y.mean().item() - 3.0) < 0.05 and abs(y.std().item() - 2.0) < 0.05
    z = minitorch.normal(-1.0, minitorch.full((40000,), 0.25))
    assert abs(z.mean().item() + 1.0) < 0.01 and abs(z.std().item() - 0.25) < 0.01
    assert minitorch.equal(minitorch.normal(minitorch.ones(4), 0.0), minitorch.ones(4))


def test_generator_makes_draws_repeatable():
    g = minitorch.Generator().manual_seed(7)
    a = minitorch.normal(minitorch.zeros(6), minitorch.ones(6), generator=g)
    g.manual_seed(7)
    b = minitorch.normal(minitorch.zeros(6), minitorch.ones(6), generator=g)
    assert minitorch.equal(a, b)


def test_gradient_is_zero_as_torch():
    ours_m = minitorch.zeros(3, 1, requires_grad=True)
    ours_s = minitorch.ones(4, requires_grad=True)
    theirs_m = torch.zeros(3, 1, requires_grad=True)
    theirs_s = torch.ones(4, requires_grad=True)
    out, ref = minitorch.normal(ours_m, ours_s), torch.normal(theirs_m, theirs_s)
    assert out.requires_grad and type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
    out.sum().backward()
    ref.sum().backward()
    assert ours_m.grad.tolist() == theirs_m.grad.tolist()
    assert ours_s.grad.tolist() == theirs_s.grad.tolist()
    assert type(minitorch.normal(ours_m, 1.0).grad_fn).__name__ == \
        type(torch.normal(theirs_m, 1.0).grad_fn).__name__


@pytest.mark.parametrize("call", [
    lambda t: t.normal(t.zeros(2), -1.0),
    lambda t: t.normal(t.zeros(2), -t.ones(2)),
    lambda t: t.normal(t.zeros(2, dtype=t.long)),
    lambda t: t.normal(t.zeros(2), t.ones(3)),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(minitorch)
    assert str(ours.value) == str(theirs.value)
