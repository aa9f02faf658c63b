"""nn.utils.parametrizations.orthogonal: a weight kept (semi-)orthogonal by
a map from unconstrained matrices, as torch's. matrix_exp and cayley map the
lower triangle of X to the skew-symmetric A = X - X^T and take exp(A) or
(I - A/2)^-1 (I + A/2); householder multiplies the reflectors X's columns
below the diagonal define. A wide matrix is handled transposed, a tall one
as the first columns of a square. With use_trivialization (the default) the
map is taken around a base: the original is -I (which every map sends to
I), `base` holds the orthogonalised initial weight, and the weight is
base @ map(X); assigning to the weight orthogonalises the value into base."""
import enum

import minitorch
from minitorch import Tensor
from ..modules.module import Module
from . import _orthogonal_linalg as linalg
from . import parametrize


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * minitorch.finfo(q.dtype).eps
    return minitorch.allclose(q.mT @ q, minitorch.eye(k, dtype=q.dtype), atol=eps)


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of a = QR with diag(R) >= 0, for a tall a."""
    x, tau = linalg.geqrf(a)
    q = linalg.householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _Orthogonal(Module):
    """The parametrization orthogonal() registers."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = minitorch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)],
                                  dim=-1)
            A = X - X.mT
            if self.orthogonal_map is _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)
            else:
                eye = minitorch.eye(n, dtype=A.dtype)
                Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # X's diagonal holds the signs (+-1) of R's
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with minitorch.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            A, tau = linalg.geqrf(Q)
            # R's diagonal signs go on the diagonal; a void reflector flips its sign
            signs = A.diagonal(dim1=-2, dim2=-1).sign()
            signs = minitorch.where(tau == 0.0, -signs, signs)
            A = _with_diagonal(A, signs)
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            extra = minitorch.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(minitorch.cat([Q, extra], dim=-1))
        self.base = Q
        neg_id = minitorch.zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def _with_diagonal(a: Tensor, diag: Tensor) -> Tensor:
    """a with its main diagonal replaced by diag (any rectangular shape)."""
    out = a.clone()
    out.diagonal(dim1=-2, dim2=-1).copy_(diag)
    return out


def orthogonal(module: Module, name: str = "weight", orthogonal_map=None, *,
               use_trivialization: bool = True) -> Module:
    """Parametrizes ``module.<name>`` (a matrix or batch of matrices) to stay
    orthogonal, or semi-orthogonal when not square, through orthogonal_map:
    "matrix_exp" (default for square weights), "cayley" or "householder"
    (default otherwise). With use_trivialization the map is applied around a
    base orthogonal matrix (the initial weight, orthogonalised)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None) \
        if isinstance(orthogonal_map, str) else None
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
