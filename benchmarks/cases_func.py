"""Function transforms: per-example gradients of a small MLP with vmap(grad(loss)).

The batched path (one vmap over the batch) is timed beside a Python loop that
takes grad(loss) one sample at a time, in minitorch and in torch.func; the
target is the batched path at least 5x faster than the loop.
"""
from data import array
from harness import Case, Ratio, Variant

GROUP = "func"
BATCH, DIN, HIDDEN, CLASSES = 64, 32, 64, 10


def _problem(lib):
    F = lib.nn.functional
    params = (array(lib, (HIDDEN, DIN)), array(lib, (HIDDEN,)),
              array(lib, (CLASSES, HIDDEN)), array(lib, (CLASSES,)))
    x = array(lib, (BATCH, DIN))
    y = lib.tensor([i % CLASSES for i in range(BATCH)])

    def loss(p, xi, yi):
        h = F.relu(F.linear(xi, p[0], p[1]))
        return F.cross_entropy(F.linear(h, p[2], p[3]).unsqueeze(0), yi.unsqueeze(0))
    return params, x, y, loss


def _batched(lib):
    params, x, y, loss = _problem(lib)
    per_example = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))

    def step():
        per_example(params, x, y)
    return step


def _loop(lib):
    params, x, y, loss = _problem(lib)
    g = lib.func.grad(loss)

    def step():
        [g(params, x[i], y[i]) for i in range(BATCH)]
    return step


def cases():
    name = f"per-example grads, MLP {DIN}-{HIDDEN}-{CLASSES} batch {BATCH}, vmap(grad) vs loop"
    return [Case(GROUP, name,
                 [Variant("minitorch vmap", "minitorch", _batched),
                  Variant("minitorch loop", "minitorch", _loop),
                  Variant("torch vmap", "torch", _batched),
                  Variant("torch loop", "torch", _loop)],
                 [Ratio("minitorch vmap/loop", "minitorch vmap", "minitorch loop", 0.2),
                  Ratio("minitorch vmap/torch vmap", "minitorch vmap", "torch vmap"),
                  Ratio("torch vmap/loop", "torch vmap", "torch loop")],
                 notes=["target: the batched path at least 5x faster than the loop"])]
