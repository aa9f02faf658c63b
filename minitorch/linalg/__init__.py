"""minitorch.linalg: torch.linalg's functions. LAPACK (the ILP64 OpenBLAS
minitorch's BLAS comes from, kernels/lapack) factors and solves; each
family lives in its own module: _norms (products and norms), _lu (LU,
solves, inverses, determinants), _triangular (triangular solves, Cholesky,
LDL^T), _spectral (eigh, svd, qr and what is built on them), _eig (eig, eigvals), _products (vecdot,
cross, diagonal, vander, matrix_exp over tensor ops)."""
from ._common import LinAlgError
from ._eig import eig, eigvals
from ._lu import (det, inv, inv_ex, lu, lu_factor, lu_factor_ex, lu_solve, matrix_power,
                  slogdet, solve, solve_ex, tensorinv, tensorsolve)
from ._products import cross, diagonal, matrix_exp, vander, vecdot
from ._norms import matmul, matrix_norm, multi_dot, norm, vector_norm
from ._spectral import (cond, eigh, eigvalsh, householder_product, lstsq, matrix_rank, pinv, qr,
                        svd, svdvals)
from ._triangular import (cholesky, cholesky_ex, ldl_factor, ldl_factor_ex, ldl_solve,
                          solve_triangular)

__all__ = ["LinAlgError", "matmul", "multi_dot", "vector_norm", "matrix_norm", "norm",
           "det", "inv", "inv_ex", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matrix_power", "slogdet", "solve", "solve_ex", "tensorinv", "tensorsolve",
           "cholesky", "cholesky_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "solve_triangular", "cond", "eig", "eigvals", "eigh", "eigvalsh",
           "householder_product", "lstsq",
           "matrix_rank", "pinv", "qr", "svd", "svdvals", "cross", "diagonal", "matrix_exp",
           "vander", "vecdot"]
