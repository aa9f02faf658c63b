"""Sparse COO tensors: what training an embedding with sparse gradients
runs each step (the lookup and its sparse gradient, SparseAdam's step), and
the conversion of a mostly-zero matrix; the same code on both libraries."""
from harness import trio

GROUP = "sparse"
ROWS, DIM, TOKENS = 50000, 64, 4096


def _indices(lib):
    g = lib.Generator().manual_seed(0)
    return lib.randint(0, ROWS, (TOKENS,), generator=g)


def _embedding_backward(lib):
    weight = lib.randn(ROWS, DIM, requires_grad=True)
    idx = _indices(lib)

    def step():
        weight.grad = None
        lib.nn.functional.embedding(idx, weight, sparse=True).sum().backward()
    return step


def _sparse_adam(lib):
    weight = lib.randn(ROWS, DIM, requires_grad=True)
    lib.nn.functional.embedding(_indices(lib), weight, sparse=True).sum().backward()
    grad = weight.grad
    opt = lib.optim.SparseAdam([weight], lr=1e-3)

    def step():
        weight.grad = grad
        opt.step()
    return step


def _to_sparse(lib):
    g = lib.Generator().manual_seed(0)
    x = lib.randn(1000, 1000, generator=g)
    x = x * (lib.rand(1000, 1000, generator=g) < 0.01)

    def step():
        x.to_sparse()
    return step


def _coalesce(lib):
    g = lib.Generator().manual_seed(0)
    s = lib.sparse_coo_tensor(lib.randint(0, 300, (2, 20000), generator=g),
                              lib.randn(20000, generator=g), (300, 300))

    def step():
        s.coalesce()
    return step


def cases():
    return [
        trio(GROUP, f"embedding(sparse=True) forward+backward, {TOKENS} of {ROWS}x{DIM}",
             _embedding_backward),
        trio(GROUP, f"SparseAdam step, {TOKENS}-row sparse gradient of {ROWS}x{DIM}",
             _sparse_adam),
        trio(GROUP, "to_sparse of 1000x1000 with 1% nonzeros", _to_sparse),
        trio(GROUP, "coalesce 20000 coordinates in 300x300", _coalesce),
    ]
