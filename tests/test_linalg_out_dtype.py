"""out= of a dtype the result cannot be cast to safely, for the linalg
functions torch guards with its compatible-dtype check: refused with torch's
type and message; a castable out still receives the result."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def cases(lib):
    a = lib.eye(3, dtype=lib.float64) * 2
    b = lib.ones(3, 1, dtype=lib.float64)
    return {
        "pinv": lambda o: lib.linalg.pinv(a, out=o),
        "cond_fro": lambda o: lib.linalg.cond(a, "fro", out=o),
        "cond_2": lambda o: lib.linalg.cond(a, 2, out=o),
        "cond_empty": lambda o: lib.linalg.cond(lib.ones(2, 0, 0, dtype=lib.float64), 2, out=o),
        "cholesky_solve": lambda o: lib.cholesky_solve(b, a, out=o),
        "cholesky_inverse": lambda o: lib.cholesky_inverse(a, out=o),
        "tensorsolve": lambda o: lib.linalg.tensorsolve(a, lib.ones(3, dtype=lib.float64), out=o),
        "tensorinv": lambda o: lib.linalg.tensorinv(a, ind=1, out=o),
        "householder_product": lambda o: lib.linalg.householder_product(
            a, lib.ones(3, dtype=lib.float64), out=o),
        "matrix_rank": lambda o: lib.linalg.matrix_rank(a, out=o),
    }


@pytest.mark.parametrize("name", list(cases(torch)))
@pytest.mark.parametrize("out_dtype", ["int32", "bool", "float32", "complex128"])
def test_out_dtype(name, out_dtype):
    def run(lib):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        try:
            got = cases(lib)[name](out)
        except RuntimeError as e:
            return "error", str(e)
        assert got is out
        return "ok", (str(out.dtype).split(".")[1], tuple(out.shape), out.double().flatten().tolist()
                      if not out.dtype.is_complex else out.real.double().flatten().tolist())

    want = run(torch)
    got = run(mt)
    assert got[0] == want[0]
    if want[0] == "error":
        assert got[1] == want[1]
    else:
        assert got[1][:2] == want[1][:2]
        assert got[1][2] == pytest.approx(want[1][2])
