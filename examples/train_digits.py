"""Train an MLP and a small CNN on the 8x8 handwritten digits with minitorch.

    python examples/train_digits.py [--epochs N] [--data NPZ] [--out-dir DIR] [--out PNG] [--quick]

Loads the digits (data/digits.npz beside this script unless --data says
otherwise), normalises them, splits them into train and test sets with a
fixed seed, trains both models with Adam and CrossEntropyLoss, prints the loss
and accuracy per epoch and the final test accuracy, saves each model's
state_dict, reloads it into a fresh model to check that it predicts the same,
and plots the training loss curves into a PNG. Every default path is beside
this script, so it runs from any working directory.

With the `examples` extra (`pip install ".[examples]"`: matplotlib and tqdm)
it shows a progress bar on a terminal and draws the plot with matplotlib;
without them it prints the loss curves as a table instead.
"""
import argparse
import importlib.machinery
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The checkout's minitorch when it is built in place; otherwise the installed
# one (after `pip install .` the checkout holds only the sources, and a copy of
# this script elsewhere has no checkout around it at all).
# Only a compiled _C counts, not _C.pyi, the typing stub a build writes beside it.
if any(os.path.exists(os.path.join(ROOT, "minitorch", "_C" + suffix))
       for suffix in importlib.machinery.EXTENSION_SUFFIXES):
    sys.path.insert(0, ROOT)

import minitorch as torch  # noqa: E402
from minitorch import nn  # noqa: E402
from minitorch.utils.data import DataLoader, TensorDataset  # noqa: E402

try:
    from tqdm import tqdm
except ImportError:
    tqdm = None

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


def epochs_of(name, epochs):
    """1..epochs, behind a tqdm bar when tqdm is installed and stderr is a
    terminal (tqdm's disable=None); elsewhere (no tqdm, a pipe, a log file)
    only the line each epoch ends with is printed."""
    if tqdm is None:
        return range(1, epochs + 1)
    return tqdm(range(1, epochs + 1), desc=f"{name} training", unit="epoch", leave=False,
                disable=None)


def train(name, model, loader, test, epochs, lr):
    """Trains in place; returns the loss of every batch and the mean loss of
    every epoch."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    log = tqdm.write if tqdm else print  # a line above the bar, not through it
    losses, epoch_losses = [], []
    bar = epochs_of(name, epochs)
    for epoch in bar:
        start, total, correct, seen = time.perf_counter(), 0.0, 0, 0
        for xb, yb in loader:
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
        test_acc, _ = accuracy(model, *test)
        epoch_losses.append(total / seen)
        if tqdm:
            bar.set_postfix(loss=f"{total / seen:.4f}", test_acc=f"{test_acc:.2%}")
        log(f"{name} epoch {epoch:2d}/{epochs}  loss {total / seen:.4f}  "
            f"train acc {correct / seen:6.2%}  test acc {test_acc:6.2%}  "
            f"({(time.perf_counter() - start) * 1000:.0f} ms)")
    return losses, epoch_losses


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


def plot_losses(curves, path):
    """Loss per batch against epochs for each (name, batch losses, batches
    per epoch, epoch losses) into a PNG at path with matplotlib; without
    matplotlib, prints the epoch losses as a table. Returns whether it wrote
    the PNG."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # a file, no window: works with no display
        import matplotlib.pyplot as plt
    except ImportError:
        print_losses(curves)
        return False
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for name, losses, per, _ in curves:
        ax.plot((np.arange(len(losses)) + 1) / per, losses, label=name, linewidth=1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss")
    ax.set_title("digits: training loss per batch")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def print_losses(curves):
    print("mean training loss per epoch (with matplotlib installed, a plot instead):")
    print("epoch " + "".join(f"{name:>10}" for name, _, _, _ in curves))
    for epoch, row in enumerate(zip(*(epoch_losses for _, _, _, epoch_losses in curves)), 1):
        print(f"{epoch:5d} " + "".join(f"{loss:10.4f}" for loss in row))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=None, help="epochs per model (default 20)")
    ap.add_argument("--data", default=os.path.join(HERE, "data", "digits.npz"),
                    help="the digits .npz (default: data/digits.npz beside this script)")
    ap.add_argument("--out-dir", default=HERE, help="where the models and the plot go "
                    "(default: this script's folder)")
    ap.add_argument("--out", default=None, help="the PNG's path (default OUT_DIR/"
                    "train_digits_loss.png)")
    ap.add_argument("--quick", action="store_true", help="2 epochs each, for a smoke test")
    args = ap.parse_args(argv)
    epochs = args.epochs or (2 if args.quick else 20)
    if not os.path.isfile(args.data):
        ap.error(f"no digits data at {args.data}: pass --data PATH to the digits.npz "
                 "that ships in the repository's examples/data/")
    os.makedirs(args.out_dir, exist_ok=True)
    png = args.out or os.path.join(args.out_dir, "train_digits_loss.png")

    start = time.perf_counter()
    torch.manual_seed(SEED)
    train_x, train_y, test_x, test_y = load_digits(args.data)
    print(f"digits: {len(train_y)} training and {len(test_y)} test images of 8x8")
    curves = []
    for name, make in (("MLP", make_mlp), ("CNN", make_cnn)):
        loader = DataLoader(TensorDataset(train_x, train_y), batch_size=32, shuffle=True)
        model = make()
        losses, epoch_losses = train(name, model, loader, (test_x, test_y), epochs, 2e-3)
        acc, _ = accuracy(model, test_x, test_y)
        status = "meets" if acc >= TARGETS[name] else "misses"
        print(f"{name} test accuracy: {acc:.2%} ({status} the {TARGETS[name]:.0%} target)")
        check_reload(name, model, make, os.path.join(args.out_dir, f"digits_{name.lower()}.pt"),
                     (test_x, test_y))
        curves.append((name, losses, len(loader), epoch_losses))
    if plot_losses(curves, png):
        print(f"loss curves: {png}")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
