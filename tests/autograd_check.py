"""Shared helper: run f on minitorch and torch copies of float64 inputs and
compare outputs, grads for a random upstream gradient, and grad_fn names."""
import numpy as np

import minitorch as mt


def check(torch, f, *arrays, name=None, double=False, transpose=()):
    rng = np.random.default_rng(0)
    mins, tins = [], []
    for k, a in enumerate(arrays):
        if k in transpose:  # non-contiguous input
            a = np.ascontiguousarray(a.T).T
            m = mt.tensor(np.ascontiguousarray(a.T)).t() if a.ndim == 2 else mt.tensor(a)
        else:
            m = mt.tensor(a)
        mins.append(m.requires_grad_())
        tins.append(torch.tensor(a).requires_grad_())
    mo, to = f(mt, *mins), f(torch, *tins)
    mos = mo if isinstance(mo, (tuple, list)) else [mo]
    tos = to if isinstance(to, (tuple, list)) else [to]
    if name is not None:
        assert type(mos[-1].grad_fn).__name__ == name == type(tos[-1].grad_fn).__name__
    gs = [rng.standard_normal(tuple(t.shape)) for t in tos]
    for m, t in zip(mos, tos):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-12)
    mu = [mt.tensor(g).requires_grad_(double) for g in gs]
    tu = [torch.tensor(g).requires_grad_(double) for g in gs]
    mg = mt.autograd.grad(list(mos), mins, mu, create_graph=double, allow_unused=True)
    tg = torch.autograd.grad(tos, tins, tu, create_graph=double, allow_unused=True)
    for a, b in zip(mg, tg):
        if b is None:
            assert a is None or not a.numpy().any()
            continue
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    if double:
        ws = [rng.standard_normal(tuple(t.shape)) for t in tg if t is not None]
        msum = sum((a * mt.tensor(w)).sum() for a, w in zip([a for a in mg if a is not None], ws))
        tsum = sum((a * torch.tensor(w)).sum() for a, w in zip([a for a in tg if a is not None], ws))
        m2 = mt.autograd.grad(msum, mins + mu, allow_unused=True)
        t2 = torch.autograd.grad(tsum, tins + tu, allow_unused=True)
        for a, b in zip(m2, t2):
            if b is None:
                assert a is None or not a.numpy().any()
                continue
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
