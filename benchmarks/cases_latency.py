"""The latency suite: what inference and small programs wait on, minitorch beside
PyTorch, run by `run.py --suite latency` at each thread count (with --clock cpu,
1-thread passes are timed in process CPU time). Every case's target is
minitorch/torch <= 1.0.

It sweeps the shapes where a dispatch rule or a fixed cost decides the time:
batch-1 and small-batch MLP and CNN inference, Linear over batch 1..512, mv,
token-by-token decoding with a KV cache, tiny ops and a deep narrow graph,
an optimizer step over many small tensors, a DataLoader pass, save and load of
100 MB, and the row norms on one short row. The full matmul sweep over m, k, n
and layouts is benchmarks/matmul_sweep.py. Cases whose result is a tensor
check agreement with torch first (relative to the largest torch value).
"""
import os
import tempfile

import numpy as np

from harness import Case, Ratio, Variant
from models import init_params, lenet5, seeded, seeded_ids

GROUP = "latency"
TOL = 1e-4


def _case(name, setup, check=None, notes=()):
    """setup(lib) -> a callable to time, or (statement, namespace)."""
    return Case(GROUP, name, [Variant("minitorch", "minitorch", setup),
                              Variant("torch", "torch", setup)],
                [Ratio("minitorch/torch", "minitorch", "torch", 1.0)], list(notes),
                check=check)


def _agree(make):
    """A check: make(lib) -> a tensor; minitorch's and torch's agree."""
    def check(libs):
        got = make(libs["minitorch"]).detach().numpy()
        want = make(libs["torch"]).detach().numpy()
        err = float(np.max(np.abs(got - want), initial=0.0))
        scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-30)
        return err <= TOL * scale, "max |diff| / max |torch| = %.1e" % (err / scale)
    return check


def _mlp(lib):
    nn = lib.nn
    return init_params(lib, nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                                          nn.ReLU(), nn.Linear(512, 10)), "mlp")


def _inference(build, x_shape, tag):
    """setup and check for model(x) under no_grad."""
    def make(lib):
        model, x = build(lib), lib.tensor(seeded(tag, x_shape))

        def run():
            with lib.no_grad():
                return model(x)
        return run

    return make, _agree(lambda lib: make(lib)())


def _decoder(lib, vocab=65, width=128, heads=4, layers=2):
    """A small GPT decoding one token at a time against per-layer K/V caches."""
    nn, F = lib.nn, lib.nn.functional
    head = width // heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x, cache):
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (t.view(1, -1, heads, head).transpose(1, 2) for t in (q, k, v))
            if cache:
                k, v = lib.cat([cache[0], k], dim=2), lib.cat([cache[1], v], dim=2)
            cache[:] = [k, v]
            y = F.scaled_dot_product_attention(q, k, v, is_causal=q.shape[2] > 1)
            x = x + self.proj(y.transpose(1, 2).reshape(1, -1, width))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(256, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab, bias=False)

        def generate(self, prompt, steps):
            caches = [[] for _ in self.blocks]
            ids, out, start = prompt, [], 0
            for _ in range(steps):
                x = self.tok(ids) + self.pos(lib.arange(start, start + ids.shape[1]))
                for block, cache in zip(self.blocks, caches):
                    x = block(x, cache)
                start += ids.shape[1]
                ids = self.head(self.ln(x[:, -1:])).argmax(-1)
                out.append(ids)
            return lib.cat(out, dim=1)

    return init_params(lib, Decoder(), "decoder")


def _decode_setup(lib, steps=32):
    model = _decoder(lib)
    prompt = lib.tensor(seeded_ids("prompt", (1, 8), 65))

    def run():
        with lib.no_grad():
            return model.generate(prompt, steps)
    return run


def _adamw_setup(lib):
    params = [lib.tensor(seeded("p%d" % i, (64,))).requires_grad_() for i in range(200)]
    for i, p in enumerate(params):
        p.grad = lib.tensor(seeded("g%d" % i, (64,)))
    opt = lib.optim.AdamW(params, lr=1e-3)
    return opt.step


def _loader_setup(lib):
    data = lib.utils.data
    ds = data.TensorDataset(lib.tensor(seeded("dx", (4096, 32))),
                            lib.tensor(seeded_ids("dy", (4096,), 10)))
    loader = data.DataLoader(ds, batch_size=64, shuffle=False)

    def run():
        for _ in loader:
            pass
    return run


def _state_dict(lib, mb=100):
    n = mb * (1 << 20) // 4 // 8
    return {"w%d" % i: lib.tensor(seeded("sd%d" % i, (n,))) for i in range(8)}


def _save_setup(lib):
    sd = _state_dict(lib)
    path = os.path.join(tempfile.mkdtemp(prefix="latency_"), "sd.pt")
    return lambda: lib.save(sd, path)


def _load_setup(lib):
    path = os.path.join(tempfile.mkdtemp(prefix="latency_"), "sd.pt")
    lib.save(_state_dict(lib), path)
    return lambda: lib.load(path)


def _chain_setup(lib):
    x = lib.ones(1, requires_grad=True)

    def run():
        y = x
        for _ in range(1000):
            y = y * 1.0001
        y.backward()
    return run


def _row(lib, fn):
    F = lib.nn.functional
    x = lib.tensor(seeded("row", (1, 1000)))
    w = lib.tensor(1.0 + seeded("roww", (1000,), 0.1))
    return {"layer_norm": lambda: F.layer_norm(x, (1000,), w),
            "rms_norm": lambda: F.rms_norm(x, (1000,), w),
            "softmax": lambda: F.softmax(x, -1)}[fn]


def cases(threads):
    out = []
    for batch in (1, 8, 64):
        setup, check = _inference(_mlp, (batch, 784), "mlp x")
        out.append(_case("MLP 784-512-512-10 inference, batch %d" % batch, setup, check))
    for batch in (1, 8, 64):
        setup, check = _inference(lambda lib: init_params(lib, lenet5(lib), "lenet"),
                                  (batch, 1, 28, 28), "lenet x")
        out.append(_case("LeNet-5 inference, batch %d" % batch, setup, check))
    for batch in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
        setup, check = _inference(
            lambda lib: init_params(lib, lib.nn.Linear(784, 512), "lin"), (batch, 784), "lin x")
        out.append(_case("Linear 784->512 inference, batch %d" % batch, setup, check))

    def mv(lib):
        a, x = lib.tensor(seeded("mv a", (512, 784))), lib.tensor(seeded("mv x", (784,)))
        return lambda: lib.mv(a, x)
    out.append(_case("mv 512x784", mv, _agree(lambda lib: mv(lib)())))
    def embedding(lib):
        table = lib.nn.Embedding(32000, 512)
        table.weight.data.copy_(lib.tensor(seeded("emb w", (32000, 512))))
        ids = lib.tensor([[17]])
        return lambda: table(ids)
    out.append(_case("Embedding 32000x512, one token", embedding,
                     _agree(lambda lib: embedding(lib)())))
    out.append(_case("decode 32 tokens with a KV cache, small GPT, batch 1", _decode_setup,
                     _agree(lambda lib: _decode_setup(lib, 8)().float()),
                     notes=["width 128, 4 heads, 2 layers, prompt of 8, greedy"]))
    for name, stmt in (("add", "x + x"), ("sum", "x.sum()"), ("relu", "x.relu()")):
        out.append(_case("%s of 1 element" % name,
                         lambda lib, stmt=stmt: (stmt, {"x": lib.ones(1)})))
    out.append(_case("1000-op chain, forward+backward", _chain_setup))
    out.append(_case("AdamW step over 200 tensors of 64", _adamw_setup))
    out.append(_case("DataLoader over 4096x32, batch 64", _loader_setup))
    out.append(_case("save 100 MB state_dict", _save_setup))
    out.append(_case("load 100 MB state_dict", _load_setup))
    for fn in ("layer_norm", "rms_norm", "softmax"):
        out.append(_case("%s of one 1000-element row" % fn, lambda lib, fn=fn: _row(lib, fn),
                         _agree(lambda lib, fn=fn: _row(lib, fn)())))
    return out

