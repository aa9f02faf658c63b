"""Train the digits MLP and CNN data-parallel on several processes.

    mpiexec -n 2 python examples/train_digits_ddp.py [--epochs N] [--quick]

The same training as examples/train_digits.py (same split, models, optimizer,
learning rate and global batch of 32), with each rank training on its share of
every batch: a DistributedSampler deals the examples out, DistributedDataParallel
averages the gradients, so every rank keeps identical parameters. Rank 0 prints
the loss and accuracy over all ranks, checks that the ranks' parameters are
identical, and saves the models (needs `pip install "minitorch-c[distributed]"`).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import train_digits as single  # noqa: E402  (also puts a built checkout's minitorch first)

import minitorch as torch  # noqa: E402
import minitorch.distributed as dist  # noqa: E402
from minitorch import nn  # noqa: E402
from minitorch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from minitorch.utils.data import DataLoader, TensorDataset  # noqa: E402
from minitorch.utils.data.distributed import DistributedSampler  # noqa: E402

GLOBAL_BATCH = 32


def log(*args):
    if dist.get_rank() == 0:
        print(*args, flush=True)


def global_sum(*values):
    """The sums over all ranks of a few local numbers."""
    t = torch.tensor(values, dtype=torch.float64)
    dist.all_reduce(t)
    return t.tolist()


def identical_on_all_ranks(model):
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    mine = flat.clone()
    dist.broadcast(flat, src=0)
    same = torch.tensor(int(torch.equal(mine, flat)))
    dist.all_reduce(same, op=dist.ReduceOp.MIN)
    return bool(same.item())


def train(name, model, train_set, test, epochs, lr):
    world = dist.get_world_size()
    ddp = DDP(model)
    sampler = DistributedSampler(train_set, shuffle=True, seed=single.SEED)
    loader = DataLoader(train_set, batch_size=GLOBAL_BATCH // world, sampler=sampler)
    opt = torch.optim.Adam(ddp.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, epochs + 1):
        sampler.set_epoch(epoch)
        start, total, correct, seen = time.perf_counter(), 0.0, 0, 0
        for xb, yb in loader:
            opt.zero_grad()
            logits = ddp(xb)
            loss = loss_fn(logits, yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
            correct += int((logits.argmax(1) == yb).sum().item())
            seen += len(yb)
        total, correct, seen = global_sum(total, correct, seen)
        test_acc, _ = single.accuracy(model, *test)
        log(f"{name} epoch {epoch:2d}/{epochs}  loss {total / seen:.4f}  train acc "
            f"{correct / seen:6.2%}  test acc {test_acc:6.2%}  "
            f"({(time.perf_counter() - start) * 1000:.0f} ms)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=None, help="epochs per model (default 20)")
    ap.add_argument("--out-dir", default=HERE, help="where rank 0 saves the models")
    ap.add_argument("--quick", action="store_true", help="2 epochs each, for a smoke test")
    args = ap.parse_args(argv)
    epochs = args.epochs or (2 if args.quick else 20)

    dist.init_process_group("mpi")
    world = dist.get_world_size()
    if GLOBAL_BATCH % world:
        raise SystemExit(f"the global batch of {GLOBAL_BATCH} does not split over {world} ranks")
    start = time.perf_counter()
    torch.manual_seed(single.SEED)  # every rank makes the same split
    train_x, train_y, test_x, test_y = single.load_digits(os.path.join(HERE, "data",
                                                                       "digits.npz"))
    log(f"digits: {len(train_y)} training and {len(test_y)} test images of 8x8, "
        f"{world} ranks with {GLOBAL_BATCH // world} images of every batch of {GLOBAL_BATCH}")
    for name, make in (("MLP", single.make_mlp), ("CNN", single.make_cnn)):
        model = make()
        train(name, model, TensorDataset(train_x, train_y), (test_x, test_y), epochs, 2e-3)
        acc, _ = single.accuracy(model, test_x, test_y)
        status = "meets" if acc >= single.TARGETS[name] else "misses"
        log(f"{name} test accuracy: {acc:.2%} ({status} the {single.TARGETS[name]:.0%} target)")
        same = identical_on_all_ranks(model)
        log(f"{name} parameters identical on all {world} ranks: {same}")
        if dist.get_rank() == 0:
            os.makedirs(args.out_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.out_dir,
                                                        f"digits_ddp_{name.lower()}.pt"))
    log(f"done in {time.perf_counter() - start:.1f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
