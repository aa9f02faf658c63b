"""Page faults and time per training step of a small GPT (2 layers, 4 heads,
width 128, block 64, batch 16, vocab 65, AdamW), the same code run by
minitorch and by torch, interleaved; plus gelu forward+backward on 4096x1024.
Page faults are getrusage's minor faults over the step: what fresh memory
costs (the kernel zeroes each new page), which the caching allocator removes.

    python benchmarks/gpt_step_memory.py [threads] [rounds]

Run with MINITORCH_ALLOCATOR=malloc to see minitorch without its cache.
"""
import resource
import sys
import time


def build(lib):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self, width, heads):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                       for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self, vocab=65, block=64, width=128, layers=2, heads=4):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.ModuleList([Block(width, heads) for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

        def forward(self, idx, targets):
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(lib.arange(t))
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.ln(x))
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))

    lib.manual_seed(0)
    model = GPT()
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    idx = lib.randint(0, 65, (16, 64))
    tgt = lib.randint(0, 65, (16, 64))

    def step():
        opt.zero_grad()
        model(idx, tgt).backward()
        opt.step()

    return step


def gelu_case(lib):
    x = lib.randn(4096, 1024, requires_grad=True)
    g = lib.randn(4096, 1024)

    def step():
        y = lib.nn.functional.gelu(x)
        y.backward(g)
        x.grad = None

    return step


def measure(step):
    r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t = time.perf_counter()
    step()
    dt = time.perf_counter() - t
    return dt, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0


def median(xs):
    return sorted(xs)[len(xs) // 2]


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    import torch

    import minitorch

    for lib in (minitorch, torch):
        lib.set_num_threads(threads)
    for name, make in (("gpt step", build), ("gelu fwd+bwd 4096x1024", gelu_case)):
        steps = {lib.__name__: make(lib) for lib in (minitorch, torch)}
        for s in steps.values():
            for _ in range(3):
                s()
        res = {k: ([], []) for k in steps}
        for _ in range(rounds):
            for k, s in steps.items():
                dt, faults = measure(s)
                res[k][0].append(dt)
                res[k][1].append(faults)
        mt, th = (median(res[k][0]) * 1e3 for k in ("minitorch", "torch"))
        mf, tf = (median(res[k][1]) for k in ("minitorch", "torch"))
        print(f"{name} threads={threads}: minitorch {mt:.2f} ms {mf} faults | "
              f"torch {th:.2f} ms {tf} faults | ratio {mt / th:.2f}")


if __name__ == "__main__":
    main()
