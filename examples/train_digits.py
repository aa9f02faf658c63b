"""Train an MLP and a small CNN on the 8x8 handwritten digits with minitorch.

    python examples/train_digits.py [--epochs N] [--out-dir DIR] [--out PNG] [--quick]

Loads examples/data/digits.npz, normalises it, splits it into train and test
sets with a fixed seed, trains both models with Adam and CrossEntropyLoss,
prints the loss and accuracy per epoch and the final test accuracy, saves each
model's state_dict, reloads it into a fresh model to check that it predicts the
same, and draws the training loss curves into a PNG (no plotting library: the
encoder below is zlib + struct).
"""
import argparse
import os
import struct
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The checkout's minitorch when it is built in place; otherwise the installed
# one (after `pip install .` the checkout holds only the sources).
if any(f.startswith("_C.") for f in os.listdir(os.path.join(ROOT, "minitorch"))):
    sys.path.insert(0, ROOT)

import minitorch as torch  # noqa: E402
from minitorch import nn  # noqa: E402
from minitorch.utils.data import DataLoader, TensorDataset  # noqa: E402

SEED = 0
TEST_FRACTION = 0.2
TARGETS = {"MLP": 0.95, "CNN": 0.97}


def load_digits(path):
    """(train_x, train_y, test_x, test_y): images (N, 1, 8, 8) standardised
    with the training set's mean and std, labels int64."""
    data = np.load(path)
    x = torch.tensor(data["images"]).float().unsqueeze(1) / 16
    y = torch.tensor(data["labels"]).long()
    order = torch.randperm(len(y))
    n_test = int(len(y) * TEST_FRACTION)
    test, train = order[:n_test], order[n_test:]
    mean, std = x[train].mean(), x[train].std()
    x = (x - mean) / std
    return x[train], y[train], x[test], y[test]


def make_mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def make_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
        nn.Flatten(), nn.Linear(128, 10))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return (logits.argmax(1) == y).float().mean().item(), logits


class Progress:
    """A text progress bar updated in place on a terminal; elsewhere (a pipe,
    a log file) only the line each epoch ends with is printed."""

    WIDTH = 24

    def __init__(self, stream=sys.stdout):
        self.stream = stream
        self.live = stream.isatty()

    def update(self, prefix, done, total, loss):
        if not self.live:
            return
        filled = self.WIDTH * done // total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r{prefix} [{bar}] {done:3d}/{total} loss {loss:.4f}")
        self.stream.flush()

    def finish(self, line):
        self.stream.write(("\r\x1b[K" if self.live else "") + line + "\n")
        self.stream.flush()


def train(name, model, loaders, test, epochs, lr, progress):
    """Trains in place; returns the loss of every batch."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(1, epochs + 1):
        start, total, correct, seen = time.perf_counter(), 0.0, 0, 0
        prefix = f"{name} epoch {epoch:2d}/{epochs}"
        for i, (xb, yb) in enumerate(loaders, 1):
            opt.zero_grad()
            logits = model(xb)
            loss = loss_fn(logits, yb)
            loss.backward()
            opt.step()
            value = loss.item()
            losses.append(value)
            total += value * len(yb)
            correct += int((logits.argmax(1) == yb).sum().item())
            seen += len(yb)
            progress.update(prefix, i, len(loaders), total / seen)
        test_acc, _ = accuracy(model, *test)
        progress.finish(f"{prefix}  loss {total / seen:.4f}  train acc {correct / seen:6.2%}  "
                        f"test acc {test_acc:6.2%}  ({(time.perf_counter() - start) * 1000:.0f} ms)")
    return losses


def check_reload(name, model, make, path, test):
    """Saves model's state_dict, loads it into a fresh model, and checks that
    the fresh model gives the same logits. Returns the reloaded accuracy."""
    torch.save(model.state_dict(), path)
    fresh = make()
    fresh.load_state_dict(torch.load(path))
    acc, logits = accuracy(model, *test)
    fresh_acc, fresh_logits = accuracy(fresh, *test)
    if not torch.equal(logits, fresh_logits) or acc != fresh_acc:
        raise SystemExit(f"{name}: the model reloaded from {path} predicts differently")
    print(f"{name} reloaded from {path}: test accuracy {fresh_acc:.2%} (identical)")
    return fresh_acc


# --------------------------------------------------------------------- PNG

def png_bytes(rgb):
    """A truecolour PNG of an (H, W, 3) uint8 array."""
    h, w, _ = rgb.shape
    rows = np.concatenate([np.zeros((h, 1), np.uint8), rgb.reshape(h, w * 3)], axis=1)

    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + chunk(b"IEND", b""))


# 3x5 glyphs for the labels the plot writes.
GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001010010010", "8": "111101111101111",
    "9": "111101111001111", ".": "000000000000010", " ": "000000000000000",
    "M": "101111111101101", "L": "100100100100111", "P": "111101111100100",
    "C": "111100100100111", "N": "101111111111101", "e": "000111111100111",
    "p": "000111101111100", "o": "000111101101111", "c": "000111100100111",
    "h": "100100111101101", "l": "110010010010111", "s": "000111110011111",
}


class Canvas:
    def __init__(self, width, height):
        self.px = np.full((height, width, 3), 255, np.uint8)

    def rect(self, x0, y0, x1, y1, color):
        self.px[max(y0, 0):y1, max(x0, 0):x1] = color

    def line(self, x0, y0, x1, y1, color, width=2):
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) * 2 + 1
        xs = np.rint(np.linspace(x0, x1, steps)).astype(int)
        ys = np.rint(np.linspace(y0, y1, steps)).astype(int)
        h, w, _ = self.px.shape
        for dy in range(width):
            for dx in range(width):
                ok = (ys + dy < h) & (xs + dx < w)
                self.px[ys[ok] + dy, xs[ok] + dx] = color

    def text(self, x, y, s, color=(0, 0, 0), scale=2):
        for k, ch in enumerate(s):
            bits = GLYPHS.get(ch, GLYPHS[" "])
            for i, b in enumerate(bits):
                if b == "1":
                    gx, gy = x + (k * 4 + i % 3) * scale, y + (i // 3) * scale
                    self.rect(gx, gy, gx + scale, gy + scale, color)


def plot_losses(curves, path, width=640, height=400):
    """Loss per batch against epochs for each (name, losses, batches per
    epoch, colour), on shared axes, with a legend of coloured boxes."""
    c = Canvas(width, height)
    left, right, top, bottom = 60, width - 20, 20, height - 50
    top_loss = max(max(losses) for _, losses, _, _ in curves)
    top_epoch = max(len(losses) / per for _, losses, per, _ in curves)
    c.line(left, bottom, right, bottom, (0, 0, 0))
    c.line(left, top, left, bottom, (0, 0, 0))
    for k in range(5):
        v = top_loss * k / 4
        y = bottom - (bottom - top) * k / 4
        c.line(left - 5, y, left, y, (0, 0, 0), 1)
        c.text(8, int(y) - 5, f"{v:.2f}")
        e = top_epoch * k / 4
        x = left + (right - left) * k / 4
        c.line(x, bottom, x, bottom + 5, (0, 0, 0), 1)
        c.text(int(x) - 8, bottom + 10, f"{e:.0f}" if e == int(e) else f"{e:.1f}")
    c.text((left + right) // 2 - 30, height - 20, "epoch")
    for name, losses, per, color in curves:
        xs = left + (right - left) * (np.arange(len(losses)) + 1) / per / top_epoch
        ys = bottom - (bottom - top) * np.asarray(losses) / top_loss
        for i in range(1, len(losses)):
            c.line(xs[i - 1], ys[i - 1], xs[i], ys[i], color)
    for k, (name, _, _, color) in enumerate(curves):
        x, y = right - 110, top + 10 + 24 * k
        c.rect(x, y, x + 16, y + 16, color)
        c.text(x + 24, y + 3, name)
    with open(path, "wb") as f:
        f.write(png_bytes(c.px))


# -------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=None, help="epochs per model (default 20)")
    ap.add_argument("--out-dir", default=HERE, help="where the models and the plot go")
    ap.add_argument("--out", default=None, help="the PNG's path (default OUT_DIR/"
                    "train_digits_loss.png)")
    ap.add_argument("--quick", action="store_true", help="2 epochs each, for a smoke test")
    args = ap.parse_args(argv)
    epochs = args.epochs or (2 if args.quick else 20)
    os.makedirs(args.out_dir, exist_ok=True)
    png = args.out or os.path.join(args.out_dir, "train_digits_loss.png")

    start = time.perf_counter()
    torch.manual_seed(SEED)
    train_x, train_y, test_x, test_y = load_digits(os.path.join(HERE, "data", "digits.npz"))
    print(f"digits: {len(train_y)} training and {len(test_y)} test images of 8x8")
    progress = Progress()
    curves = []
    for name, make, color in (("MLP", make_mlp, (31, 119, 180)),
                              ("CNN", make_cnn, (255, 127, 14))):
        loader = DataLoader(TensorDataset(train_x, train_y), batch_size=32, shuffle=True)
        model = make()
        losses = train(name, model, loader, (test_x, test_y), epochs, 2e-3, progress)
        acc, _ = accuracy(model, test_x, test_y)
        status = "meets" if acc >= TARGETS[name] else "misses"
        print(f"{name} test accuracy: {acc:.2%} ({status} the {TARGETS[name]:.0%} target)")
        check_reload(name, model, make, os.path.join(args.out_dir, f"digits_{name.lower()}.pt"),
                     (test_x, test_y))
        curves.append((name, losses, len(loader), color))
    plot_losses(curves, png)
    print(f"loss curves: {png}")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
