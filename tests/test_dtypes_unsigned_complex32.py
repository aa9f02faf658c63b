"""torch's barebones dtypes (uint16, uint32, uint64, complex32 alias chalf)
against torch: their attributes, promotion, creation, casts both ways,
printing, Python and NumPy values, the ops that take them and the refusal of
the others, and hash_tensor, whose result is uint64."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

NEW = ("uint16", "uint32", "uint64", "complex32")
OLD = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64", "complex64", "complex128")
ALL = OLD + NEW


@pytest.fixture(autouse=True)
def _quiet():
    # torch warns that complex32 is experimental, and that casting a complex
    # value to a real one drops its imaginary part
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the oracle's error is what we compare
        return type(e).__name__, str(e)
    return None


def bits(t):
    """A tensor of either library as the NumPy array of its elements' bits
    (complex32 and bfloat16, which NumPy lacks, as integers of their size)."""
    lib = torch if isinstance(t, torch.Tensor) else mt
    as_int = {lib.complex32: lib.int32, lib.bfloat16: lib.int16}
    t = t.contiguous()
    return (t.view(as_int[t.dtype]) if t.dtype in as_int else t).numpy()


def to_mt(t):
    """A torch tensor as minitorch's, through its bits."""
    name = str(t.dtype).split(".")[1]
    as_int = {torch.complex32: torch.int32, torch.bfloat16: torch.int16}
    t = t.contiguous()
    if t.dtype in as_int:
        return mt.tensor(t.view(as_int[t.dtype]).numpy()).view(getattr(mt, name))
    return mt.tensor(t.numpy())


@pytest.mark.parametrize("name", NEW)
def test_dtype_attributes(name):
    d, td = getattr(mt, name), getattr(torch, name)
    assert repr(d) == f"minitorch.{name}"
    assert (d.is_signed, d.is_complex, d.is_floating_point, d.itemsize) == \
        (td.is_signed, td.is_complex, td.is_floating_point, td.itemsize)
    assert mt.empty(2, dtype=d).element_size() == td.itemsize
    assert repr(d.to_real()).split(".")[1] == str(td.to_real()).split(".")[1]
    if name == "complex32":
        assert mt.chalf is d and mt.float16.to_complex() is d
        assert repr(mt.finfo(d)) == repr(torch.finfo(td))
        with pytest.raises(TypeError, match="requires an integer input type"):
            mt.iinfo(d)
    else:
        i, ti = mt.iinfo(d), torch.iinfo(td)
        assert (i.min, i.max, i.bits) == (ti.min, ti.max, ti.bits)
        assert repr(i) == repr(ti)


@pytest.mark.parametrize("a", ALL)
def test_promote_types_and_can_cast(a):
    for b in ALL:
        want = raised(lambda: torch.promote_types(getattr(torch, a), getattr(torch, b)))
        got = raised(lambda: mt.promote_types(getattr(mt, a), getattr(mt, b)))
        assert got == want, (a, b)
        if want is None:
            assert repr(mt.promote_types(getattr(mt, a), getattr(mt, b))).split(".")[1] == \
                str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1]
        assert mt.can_cast(getattr(mt, a), getattr(mt, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("other", [1, 2.5, 1j, True, "int32", "float16", "uint8", "float64",
                                   "complex64", "uint16"])
def test_result_type(name, other):
    def run(lib):
        x = lib.ones(2, dtype=getattr(lib, name))
        o = lib.ones(3, dtype=getattr(lib, other))[0] if isinstance(other, str) else other
        return lib.result_type(x, o)
    want = raised(lambda: run(torch))
    assert raised(lambda: run(mt)) == want
    if want is None:
        assert str(run(mt)).split(".")[1] == str(run(torch)).split(".")[1]


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("value", [0, 7, -1, -65535, -65536, 70000, 2**32, 2**63 - 1, 1.5, -1.5,
                                   1e20, 1e40, float("nan"), 1e6, 2 + 3j, True])
def test_full_values_and_overflow(name, value):
    want = raised(lambda: torch.full((2,), value, dtype=getattr(torch, name)))
    assert raised(lambda: mt.full((2,), value, dtype=getattr(mt, name))) == want
    if want is None:
        np.testing.assert_array_equal(bits(mt.full((2,), value, dtype=getattr(mt, name))),
                                      bits(torch.full((2,), value, dtype=getattr(torch, name))))


@pytest.mark.parametrize("name", NEW)
def test_factories(name):
    d, td = getattr(mt, name), getattr(torch, name)
    for f in ("zeros", "ones"):
        assert bits(getattr(mt, f)(2, 3, dtype=d)).tolist() == \
            bits(getattr(torch, f)(2, 3, dtype=td)).tolist()
    x = mt.empty(4, dtype=d)
    assert x.dtype is d and x.shape == (4,)
    assert mt.zeros_like(x).dtype is d and mt.ones_like(x).tolist() == \
        torch.ones(4, dtype=td).tolist()
    assert mt.full_like(x, 3).tolist() == torch.full((4,), 3, dtype=td).tolist()
    assert x.new_zeros(2).dtype is d and x.new_ones(2).tolist() == torch.ones(2, dtype=td).tolist()
    assert x.new_full((2,), 5).tolist() == torch.full((2,), 5, dtype=td).tolist()
    assert x.fill_(2).tolist() == torch.full((4,), 2, dtype=td).tolist()
    assert x.zero_().tolist() == torch.zeros(4, dtype=td).tolist()
    assert mt.tensor([1, 2], dtype=d).tolist() == torch.tensor([1, 2], dtype=td).tolist()


def _samples(gen):
    """Values of every dtype, torch's, with the edges of the casts: NaN,
    infinities, values out of each integer range, negatives."""
    special = torch.tensor([0.0, -0.0, 1.5, -1.5, -1.0, 70000.5, 4294967295.5, 4294967296.0,
                            -2.0**31 - 5, 5e9, -1e10, 1.8e19, 2e19, 2.0**63, -1e19, 1e30,
                            float("nan"), float("inf"), -float("inf"), 65504.0, 1e6],
                           dtype=torch.float64)
    rand = torch.randn(64, generator=gen, dtype=torch.float64) * 1e5
    floats = torch.cat([special, rand])
    ints = torch.cat([torch.tensor([0, 1, -1, 2**31 - 1, -2**31, 2**40, -2**40, 2**63 - 1,
                                    -2**63, 65535, 65536, -65536]),
                      torch.randint(-2**62, 2**62, (64,), generator=gen)])
    out = {}
    for name in ALL:
        d = getattr(torch, name)
        if d.is_floating_point or d.is_complex:
            v = floats.to(d)
            if d.is_complex:
                v = torch.complex(floats, floats.flip(0)).to(d)
        elif d == torch.bool:
            v = ints != 0
        else:
            v = ints.to(d)
        out[name] = v
    return out


@pytest.mark.parametrize("dst", ALL)
def test_casts_both_ways(dst):
    samples = _samples(torch.Generator().manual_seed(0))
    for src, v in samples.items():
        if src not in NEW and dst not in NEW:
            continue
        if dst == "uint32" and (v.is_floating_point() or v.is_complex()):
            # torch turns NaN and the infinities into 0 or 2**31 by where the
            # element falls (its vector loop or the scalar tail), not by value
            keep = torch.view_as_real(v.cfloat())[:, 0] if v.is_complex() else v
            v = v[keep.isfinite()]
        want = v.to(getattr(torch, dst))
        got = to_mt(v).to(getattr(mt, dst))
        assert got.dtype is getattr(mt, dst)
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"{src} -> {dst}")


@pytest.mark.parametrize("name", NEW)
def test_printing_items_and_lists(name):
    v = {"complex32": torch.tensor([1.5 + 2j, -3.25 - 0.5j, 0j, 1e4 + 1j]),
         "uint64": torch.tensor([0, 1, 2**63 + 5, 2**64 - 1], dtype=torch.uint64)}.get(
        name, torch.tensor([0, 1, 255, 65535]))
    t = v.to(getattr(torch, name))
    x = to_mt(t)
    for a, b in ((x, t), (x[1], t[1]), (x[:0], t[:0]), (x.reshape(2, 2), t.reshape(2, 2))):
        assert repr(a) == repr(b).replace("torch.", "minitorch.")
    assert x.tolist() == t.tolist()
    assert x[3].item() == t[3].item() and type(x[3].item()) is type(t[3].item())
    assert bool(x[1]) == bool(t[1])
    if name != "complex32":
        assert float(x[3]) == float(t[3])
        assert raised(lambda: int(x[3])) == raised(lambda: int(t[3]))
        if raised(lambda: int(t[2])) is None:
            assert int(x[2]) == int(t[2])


@pytest.mark.parametrize("name", NEW)
def test_numpy_both_ways(name):
    t = torch.tensor([3, 1, 4, 1]).to(getattr(torch, name))
    x = to_mt(t)
    if name == "complex32":
        assert raised(x.numpy) == raised(t.numpy) == ("TypeError",
                                                      "Got unsupported ScalarType ComplexHalf")
        return
    a = x.numpy()
    assert a.dtype == t.numpy().dtype and a.tolist() == t.tolist()
    b = np.array([0, 5, np.iinfo(name).max], dtype=name)
    assert mt.from_numpy(b).dtype is getattr(mt, name)
    assert mt.from_numpy(b).tolist() == torch.from_numpy(b).tolist()
    assert mt.tensor(b).tolist() == b.tolist() and mt.as_tensor(b).dtype is getattr(mt, name)


@pytest.mark.parametrize("name", NEW)
def test_views_copies_and_indexing(name):
    gen = torch.Generator().manual_seed(1)
    t = torch.randint(0, 60000, (3, 4), generator=gen).to(getattr(torch, name))
    x = to_mt(t)
    cases = [lambda m: m.t().contiguous(), lambda m: m[1:, ::2].clone(), lambda m: m.reshape(4, 3),
             lambda m: m.unsqueeze(0).expand(2, 3, 4).contiguous(), lambda m: m.flatten(),
             lambda m: m.permute(1, 0)[2], lambda m: m.view(m.dtype), lambda m: m.select(1, 2),
             lambda m: m[[0, 2]], lambda m: m[m.new_ones(3, 4, dtype=lib(m).bool)],
             lambda m: lib(m).cat([m, m], 1), lambda m: lib(m).stack([m, m]),
             lambda m: m.narrow(0, 1, 2), lambda m: m.chunk(2, 1)[1], lambda m: m.view(
                 {2: lib(m).int16, 4: lib(m).int32, 8: lib(m).int64}[m.element_size()])]
    if name == "complex32":
        cases += [lambda m: m.real, lambda m: m.imag, lambda m: lib(m).view_as_real(m),
                  lambda m: m.conj().resolve_conj()]
    for i, case in enumerate(cases):
        np.testing.assert_array_equal(bits(case(x)), bits(case(t)), err_msg=str(i))
    y, u = x.clone(), t.clone()
    y[1, 2] = 7
    u[1, 2] = 7
    y[0] = x[2]
    u[0] = t[2]
    y.copy_(y.t().t())
    np.testing.assert_array_equal(bits(y), bits(u))


def lib(m):
    return torch if isinstance(m, torch.Tensor) else mt


def test_cat_refuses_torchs_promotions():
    for a, b in (("uint32", "int32"), ("uint16", "uint32"), ("uint64", "bool")):
        want = raised(lambda: torch.cat([torch.ones(1, dtype=getattr(torch, a)),
                                         torch.ones(1, dtype=getattr(torch, b))]))
        assert want is not None
        assert raised(lambda: mt.cat([mt.ones(1, dtype=getattr(mt, a)),
                                      mt.ones(1, dtype=getattr(mt, b))])) == want
    got = mt.cat([mt.ones(1, dtype=mt.uint32), mt.ones(1, dtype=mt.float16)])
    assert got.dtype is mt.float16


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("op", [lambda m: m.neg(), lambda m: m.abs(), lambda m: m < m,
                                lambda m: m.max(), lambda m: m.flip(0), lambda m: m.cumsum(0),
                                lambda m: m.exp(), lambda m: m.tril()])
def test_ops_torch_refuses_are_refused(name, op):
    t = torch.ones(2, 2, dtype=getattr(torch, name))
    want = raised(lambda: op(t))
    if want is None:
        pytest.skip("torch computes this op on the dtype")
    got = raised(lambda: op(mt.ones(2, 2, dtype=getattr(mt, name))))
    assert got is not None and got[0] == want[0]
    assert got[1].endswith(f"not implemented for '{want[1].rsplit(chr(39), 2)[1]}'") or \
        got[1] == want[1]


HASH_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64")


@pytest.mark.parametrize("name", HASH_DTYPES)
def test_hash_tensor_values(name):
    gen = torch.Generator().manual_seed(2)
    d = getattr(torch, name)
    for shape in ((), (5,), (3, 4), (2, 3, 1, 4)):
        v = torch.randn(shape, generator=gen, dtype=torch.float64) * 100
        t = v.to(d) if d.is_floating_point else (v > 0) if d == torch.bool else v.to(torch.int64).to(d)
        if t.ndim > 1:
            t = t.transpose(0, -1)  # strided input
        x = to_mt(t)
        dims = [None, 0, -1, (), (0,)] + ([(0, -1)] if t.ndim > 1 else []) + \
            ([(1, t.ndim - 1)] if t.ndim > 2 else [])
        if t.ndim == 0:
            dims = [None, 0, -1, ()]
        for dim in dims:
            for keepdim in (False, True):
                want = torch.hash_tensor(t, dim=dim, keepdim=keepdim)
                got = mt.hash_tensor(x, dim=dim, keepdim=keepdim)
                assert got.dtype is mt.uint64 and got.shape == want.shape
                assert got.tolist() == want.tolist(), (shape, dim, keepdim)
        assert x.hash_tensor().tolist() == t.hash_tensor().tolist()


def test_hash_tensor_out_and_errors():
    t, x = torch.tensor([1.5, -2.0, 3.25]), mt.tensor([1.5, -2.0, 3.25])
    out = mt.empty(0, dtype=mt.uint64)
    mt.hash_tensor(x, out=out)
    assert out.tolist() == torch.hash_tensor(t).tolist()
    cases = [
        lambda lib, a: lib.hash_tensor(a, mode=1), lambda lib, a: lib.hash_tensor(a, mode=-1),
        lambda lib, a: lib.hash_tensor(a, dim=3), lambda lib, a: lib.hash_tensor(a, dim=(0, 0)),
        lambda lib, a: lib.hash_tensor(a.to(lib.complex64)),
        lambda lib, a: lib.hash_tensor(a.to(lib.complex32)),
        lambda lib, a: lib.hash_tensor(a.to(lib.uint32)),
        lambda lib, a: lib.hash_tensor(a.to(lib.uint64)),
        lambda lib, a: lib.hash_tensor(a, out=lib.empty(0)),
        lambda lib, a: lib.hash_tensor(a[:0]), lambda lib, a: lib.hash_tensor(a[:0], dim=[]),
        lambda lib, a: lib.hash_tensor(lib.ones(0, 2), dim=0),
        lambda lib, a: lib.hash_tensor(lib.ones(0, 2), dim=(0, 1)),
        lambda lib, a: lib.hash_tensor(lib.ones(2, 0), dim=0),
    ]
    for i, case in enumerate(cases):
        want = raised(lambda: case(torch, t))
        got = raised(lambda: case(mt, x))
        assert got == want, i
    assert mt.hash_tensor(mt.ones(2, 0), dim=0).shape == (0,)
    r = mt.hash_tensor(x.requires_grad_())
    assert not r.requires_grad and r.grad_fn is None


def test_chalf():
    t = torch.tensor([[1.5, -2.0], [1e5, 3.0e-8]])
    x = to_mt(t)
    for lib, a in ((mt, x), (torch, t)):
        assert a.chalf().dtype is lib.complex32 and a.to(lib.chalf).dtype is lib.complex32
    np.testing.assert_array_equal(bits(x.chalf()), bits(t.chalf()))
    c = torch.tensor([1 + 2j, 3.5 - 1e6j, float("nan") + 1j])
    np.testing.assert_array_equal(bits(to_mt(c).chalf()), bits(c.chalf()))
    np.testing.assert_array_equal(bits(x.chalf().cfloat()), bits(t.chalf().cfloat()))
    # the gradient goes back through the cast
    y = mt.tensor([1.5, -2.0], requires_grad=True)
    y.chalf().real.float().sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name", NEW)
def test_save_load_both_ways(name, tmp_path):
    t = torch.tensor([[0, 1, 2], [3, 40000, 5]]).to(getattr(torch, name))
    if name == "complex32":
        t = t * torch.tensor(1.5 - 2j).to(torch.complex32)
    if name == "uint64":
        t = torch.cat([torch.tensor([2**64 - 1], dtype=torch.uint64), t.flatten()[1:]]).view(2, 3)
    x = to_mt(t)
    torch.save({"a": t, "b": t.t()}, tmp_path / "torch.pt")
    got = mt.load(tmp_path / "torch.pt")
    np.testing.assert_array_equal(bits(got["a"]), bits(t))
    np.testing.assert_array_equal(bits(got["b"]), bits(t.t()))
    mt.save({"a": x, "b": x.t()}, tmp_path / "mt.pt")
    back = torch.load(tmp_path / "mt.pt")
    assert back["a"].dtype == t.dtype
    np.testing.assert_array_equal(bits(back["a"]), bits(t))
    np.testing.assert_array_equal(bits(back["b"]), bits(t.t()))
    assert mt.load(tmp_path / "mt.pt")["b"].stride() == x.t().stride()
