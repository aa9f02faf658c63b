"""__torch_function__ over complex tensors (issue 33): every function row
tagged complex that has a sample domain, called on a complex Tensor
subclass, reaches the subclass's handler with the public function, and
under the default handler returns the subclass with the plain tensor's
values, as torch does. The rows are read from the table, so a newly
tagged row is covered without a change here."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _rows():
    names = set()
    for _id, name, kinds, _sig, _runs, tags, domain in mt._C._op_rows():
        if "complex" in tags and domain is not None and "f" in kinds and \
                not name.startswith("_") and not name.endswith("_") and \
                getattr(mt, name, None) is not None and hasattr(torch, name):
            names.add(name)
    return sorted(names)


ROWS = _rows()
Z = np.array([[0.4 + 0.3j, 1.2 - 0.2j], [0.7 + 0.1j, 1.5 + 0.25j]])


def test_rows_found():
    assert {"sin", "exp", "tanh", "log1p", "acos"} <= set(ROWS)


@pytest.mark.parametrize("name", ROWS)
def test_handler_sees_the_public_function(name):
    for lib in (torch, mt):
        seen = []

        class S(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append((func, types))
                return "handled"

        s = lib.tensor(Z).as_subclass(S)
        assert getattr(lib, name)(s) == "handled"
        assert seen == [(getattr(lib, name), (S,))]


@pytest.mark.parametrize("name", ROWS)
def test_default_handler_keeps_the_subclass(name):
    class S(mt.Tensor):
        pass

    class T(torch.Tensor):
        pass

    got = getattr(mt, name)(mt.tensor(Z).as_subclass(S))
    want = getattr(torch, name)(torch.tensor(Z).as_subclass(T))
    assert type(got) is S and type(want) is T
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.resolve_conj().numpy(), want.detach().resolve_conj().numpy(),
                               rtol=1e-12, atol=1e-12)
