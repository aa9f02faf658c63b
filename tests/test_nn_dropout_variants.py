"""The channel-wise and alpha dropouts of nn.functional and their modules:
the masks' structure and scaling, eval and p edge cases, in-place, warnings
and errors as torch's."""
import math
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

ALPHA = 1.7580993408473766


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("name,shape,batched", [
    ("dropout1d", (4, 6, 20), True), ("dropout1d", (6, 20), False),
    ("dropout2d", (4, 6, 5, 4), True), ("dropout2d", (4, 6, 20), True),
    ("dropout3d", (3, 6, 2, 3, 4), True), ("dropout3d", (6, 2, 3, 4), False)])
def test_channel_dropout_zeroes_whole_channels(name, shape, batched):
    x = minitorch.ones(shape, dtype=minitorch.float64, requires_grad=True)
    y = _quiet(getattr(MF, name), x, 0.4)
    values = y.detach().numpy()
    lead = 2 if batched else 1
    per_channel = values.reshape(int(np.prod(shape[:lead])), -1)
    for row in per_channel:
        assert len(set(row.tolist())) == 1
        assert row[0] in (0.0, 1 / 0.6) or math.isclose(row[0], 1 / 0.6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), values)


@pytest.mark.parametrize("feature", [False, True])
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_alpha_dropout_values(feature, p):
    fn = MF.feature_alpha_dropout if feature else MF.alpha_dropout
    x = minitorch.tensor(np.random.default_rng(0).standard_normal((8, 5, 6)))
    y = fn(x, p, training=True).numpy()
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    kept = a * x.numpy() + ALPHA * a * p
    dropped = np.full(y.shape, -ALPHA * a + ALPHA * a * p)
    is_kept = np.isclose(y, kept)
    assert np.all(is_kept | np.isclose(y, dropped))
    if feature:
        assert np.all(is_kept == is_kept[:, :, :1])
    # the fraction dropped follows p
    assert abs((~is_kept).mean() - p) < 0.25


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout", "dropout1d",
                                  "dropout2d", "dropout3d"])
def test_eval_p0_p1_and_inplace(name):
    fn = getattr(MF, name)
    x = minitorch.ones(2, 3, 4, 5)
    if name == "dropout1d":
        x = minitorch.ones(2, 3, 4)
    assert fn(x, 0.5, training=False) is x
    assert fn(x, 0.0, training=True) is x
    zero = _quiet(fn, x, 1.0, training=True)
    assert zero.abs().sum().item() == 0 and zero is not x
    y = _quiet(fn, x, 0.5, training=True, inplace=True)
    assert y is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but "
                                         "got 1.5"):
        fn(x, 1.5)


def test_warnings_and_errors_match_torch():
    for name, shape in [("dropout2d", (3, 4)), ("dropout2d", (2, 3, 4)), ("dropout3d", (3, 4))]:
        seen = []
        for ns, F in ((minitorch, MF), (torch, TF)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                getattr(F, name)(ns.ones(shape))
            seen.append([str(w.message) for w in caught])
            assert all(w.filename == __file__ for w in caught)
        assert seen[0] == seen[1] and seen[0]
    assert_same_error(lambda ns, F: F.dropout1d(ns.ones(2, 3, 4, 5)), (minitorch, MF),
                      (torch, TF))
    assert_same_error(lambda ns, F: F.feature_alpha_dropout(ns.ones(3), 0.5, True),
                      (minitorch, MF), (torch, TF))


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                  "AlphaDropout", "FeatureAlphaDropout"])
def test_modules(name):
    m, t = getattr(mnn, name)(0.3, inplace=True), getattr(torch.nn, name)(0.3, inplace=True)
    assert repr(m) == repr(t)
    x = minitorch.ones(2, 3, 4) if name != "Dropout3d" else minitorch.ones(2, 3, 4, 5)
    assert m.eval()(x) is x
    with pytest.raises(ValueError, match="dropout probability"):
        getattr(mnn, name)(-0.1)
