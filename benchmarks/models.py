"""The realistic suite's models, written once in torch style with the library as a
parameter so the identical code builds a minitorch model and a PyTorch one.

Weights are not left to each library's random init: init_params gives every
parameter values drawn from a generator seeded by the parameter's name, so the
two libraries start from the same weights and their losses can be compared."""
import zlib

import numpy as np


def seeded(tag, shape, scale=1.0, dtype=np.float32):
    """Standard-normal values times scale, the same for every call with this tag and shape."""
    rng = np.random.default_rng(zlib.crc32(("%s%s" % (tag, tuple(shape))).encode()))
    return (rng.standard_normal(tuple(shape)) * scale).astype(dtype)


def seeded_ids(tag, shape, high):
    rng = np.random.default_rng(zlib.crc32(("%s%s" % (tag, tuple(shape))).encode()))
    return rng.integers(0, high, size=tuple(shape), dtype=np.int64)


def init_params(lib, module, tag=""):
    """Overwrites every parameter with seeded values scaled like a default init."""
    with lib.no_grad():
        for name, p in module.named_parameters():
            shape = tuple(p.shape)
            if len(shape) >= 2:
                values = seeded(tag + name, shape, 1.0 / np.sqrt(np.prod(shape[1:])))
            elif name.endswith("weight"):
                values = 1.0 + seeded(tag + name, shape, 0.1)
            else:
                values = seeded(tag + name, shape, 0.1)
            p.copy_(lib.tensor(values))
    return module


def gpt(lib, vocab=65, width=128, heads=4, layers=2, block=64):
    """A character GPT: token and position embeddings, pre-LayerNorm blocks of causal
    self-attention and a GELU MLP, a final LayerNorm and an unbiased head."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.ln2 = nn.LayerNorm(width)
            self.fc = nn.Linear(width, 4 * width)
            self.out = nn.Linear(4 * width, width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(block, width)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            for b in self.blocks:
                x = b(x)
            return self.head(self.ln_f(x))

    return GPT()


def lenet5(lib):
    """LeNet-5 for 1x28x28 images (the first convolution pads to keep 28x28)."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def lstm_lm(lib, vocab=65, embed=64, hidden=128):
    """An LSTM character language model: embedding, one LSTM layer, a linear head."""
    nn = lib.nn

    class LSTMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, embed)
            self.lstm = nn.LSTM(embed, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, idx):
            return self.head(self.lstm(self.emb(idx))[0])

    return LSTMLM()


class TrainStep:
    """One training step (zero_grad, forward, loss, backward, [clip], optimizer step) of a
    model on a fixed batch; calling it returns the loss as a float."""

    def __init__(self, lib, kind, tiny=False):
        F = lib.nn.functional
        self.lib, self.kind = lib, kind
        if kind == "gpt":
            batch, block, vocab = (2, 8, 65) if tiny else (16, 64, 65)
            self.model = init_params(lib, gpt(lib, vocab=vocab, width=32 if tiny else 128,
                                              heads=4, layers=2, block=block), "gpt")
            self.x = lib.tensor(seeded_ids("gpt x", (batch, block), vocab))
            self.y = lib.tensor(seeded_ids("gpt y", (batch, block), vocab))
            self.opt = lib.optim.AdamW(self.model.parameters(), lr=1e-3, weight_decay=0.1)
            self.loss = lambda: F.cross_entropy(self.model(self.x).view(-1, vocab),
                                                self.y.view(-1))
        elif kind == "lenet":
            batch = 4 if tiny else 64
            self.model = init_params(lib, lenet5(lib), "lenet")
            self.x = lib.tensor(seeded("lenet x", (batch, 1, 28, 28)))
            self.y = lib.tensor(seeded_ids("lenet y", (batch,), 10))
            self.opt = lib.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
            self.loss = lambda: F.cross_entropy(self.model(self.x), self.y)
        elif kind == "lstm":
            batch, seq, vocab = (2, 5, 65) if tiny else (16, 32, 65)
            self.model = init_params(lib, lstm_lm(lib, vocab=vocab), "lstm")
            self.x = lib.tensor(seeded_ids("lstm x", (batch, seq), vocab))
            self.y = lib.tensor(seeded_ids("lstm y", (batch, seq), vocab))
            self.opt = lib.optim.Adam(self.model.parameters(), lr=1e-3)
            self.loss = lambda: F.cross_entropy(self.model(self.x).reshape(-1, vocab),
                                                self.y.reshape(-1))
        else:
            raise ValueError(kind)
        self.clip = kind == "lstm"

    def __call__(self):
        self.opt.zero_grad()
        loss = self.loss()
        loss.backward()
        if self.clip:
            self.lib.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.opt.step()
        return loss.item()
