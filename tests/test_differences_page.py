"""docs/differences.md cannot go stale: every bullet of the page carries
probes (`<!-- present: name -->`, `<!-- absent: name -->`, `<!-- fact: name
-->`) and this test resolves each against the package, so a feature added
or removed without the page changing fails here."""
import importlib
import os
import re

import pytest

import minitorch as mt

PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs",
                    "differences.md")
PROBE = re.compile(r"<!--\s*(present|absent|fact):\s*([\w.]+)\s*-->")


def _text():
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def _probes():
    return PROBE.findall(_text())


def _resolve(dotted):
    """The object a dotted name names, importing submodules on the way, or
    None when it does not exist."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        if not hasattr(obj, part):
            try:
                obj = importlib.import_module(".".join(parts[:i + 1]))
                continue
            except ImportError:
                return None
        obj = getattr(obj, part)
    return obj


# ------------------------------------------------------------- the facts

def cpu_only():
    assert mt.zeros(1).device == mt.device("cpu")
    with pytest.raises(Exception):
        mt.zeros(1, device="cuda")
    assert not mt.cuda.is_available()


def sixteen_dtypes():
    computing = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                 "float32", "float64", "complex64", "complex128"}
    barebones = {"uint16", "uint32", "uint64", "complex32"}
    dtypes = {n for n in dir(mt) if isinstance(getattr(mt, n), mt.dtype)}
    assert dtypes >= computing | barebones
    assert len({getattr(mt, n) for n in dtypes}) == 16
    for name in barebones:
        x = mt.ones(2, dtype=getattr(mt, name))
        assert x.clone().dtype == x.dtype
        with pytest.raises(NotImplementedError, match="not implemented for"):
            x.neg()


def compile_returns_its_input():
    import warnings

    def f(x):
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mt.compile(f) is f
        assert mt.jit.script(f) is f


def linalg_names():
    public = {n for n in dir(mt.linalg) if not n.startswith("_") and callable(
        getattr(mt.linalg, n)) and n != "Tensor"}
    assert {"solve", "svd", "eig", "eigvals", "eigh", "qr", "lstsq", "matrix_exp",
            "lu_factor"} <= public
    # complex matrices too
    A = mt.tensor([[2.0, 1j], [-1j, 3.0]], dtype=mt.complex128)
    assert mt.linalg.eigvalsh(A).dtype == mt.float64 and mt.linalg.eig(A)[0].dtype == A.dtype


def dataloader_workers():
    from minitorch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(mt.arange(8.0)), batch_size=2, num_workers=2)
    assert [b[0].tolist() for b in loader] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]


def saves_torch_zip_format(tmp_path=None):
    import io
    import zipfile

    buf = io.BytesIO()
    mt.save({"w": mt.ones(2)}, buf)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert "archive/data.pkl" in names and "archive/data/0" in names
    buf.seek(0)
    assert mt.load(buf)["w"].tolist() == [1.0, 1.0]


FACTS = {f.__name__: f for f in (cpu_only, sixteen_dtypes, compile_returns_its_input, linalg_names,
                                  dataloader_workers, saves_torch_zip_format)}


# ------------------------------------------------------------- the tests

def test_the_page_has_probes_for_every_bullet():
    text = _text()
    body = text[:text.index("## Which torch names exist")]
    bullets = re.split(r"\n- ", body)[1:]
    assert len(bullets) >= 10
    for bullet in bullets:
        assert PROBE.search(bullet), bullet[:80]


@pytest.mark.parametrize("kind, name", [p for p in _probes() if p[0] != "fact"])
def test_names_the_page_mentions(kind, name):
    found = _resolve(name)
    if kind == "present":
        assert found is not None, f"the page says {name} exists"
    else:
        assert found is None, f"the page says {name} does not exist"


@pytest.mark.parametrize("name", [p[1] for p in _probes() if p[0] == "fact"])
def test_facts_the_page_states(name):
    assert name in FACTS, f"no check for the fact {name!r}"
    FACTS[name]()


def test_no_stale_claims_of_absence():
    # what an older page wrongly called missing
    text = _text().lower()
    for stale in ("no distributed", "loads in the main process", "own format",
                  "does not read theirs", "no `torch.compile`"):
        assert stale not in text, stale
