"""A torch DistributedDataParallel training script, run by minitorch as written.

    python -m minitorch.distributed.run --nproc_per_node 2 examples/ddp_gloo.py

(torch: `torchrun --nproc_per_node 2 examples/ddp_gloo.py` once the imports below
name torch; nothing else differs.) Each rank joins the "gloo" group from the
environment the launcher sets (env://), trains a small CNN on its
DistributedSampler share of every global batch, DDP averaging the gradients,
and reports its loss with all_gather_object; rank 0 prints the mean over all
ranks and saves the model. The global batch is the same whatever the number of
ranks, so the saved parameters are those of a one-rank run to rounding
(tests/test_distributed_gloo.py checks it). The model has no BatchNorm: its
statistics would be each rank's share's, and torch refuses SyncBatchNorm on CPU
(minitorch has it: nn.SyncBatchNorm.convert_sync_batchnorm(model)).
"""
import argparse
import os

import minitorch as torch
import minitorch.distributed as dist
import minitorch.nn as nn
from minitorch.distributed.elastic.multiprocessing.errors import record
from minitorch.nn.parallel import DistributedDataParallel as DDP
from minitorch.utils.data import DataLoader, TensorDataset
from minitorch.utils.data.distributed import DistributedSampler

GLOBAL_BATCH = 32


def make_data(n=256):
    """Random 8x8 images labelled by a fixed random teacher: the same on every rank."""
    g = torch.Generator().manual_seed(1234)
    images = torch.randn(n, 1, 8, 8, generator=g)
    teacher = torch.randn(64, 4, generator=g)
    labels = (images.flatten(1) @ teacher).argmax(1)
    return TensorDataset(images, labels)


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 4 * 4, 32), nn.ReLU(), nn.Linear(32, 4))


@record
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--save", default=None, help="where rank 0 saves the state dict")
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cpu")

    model = make_model().to(device)
    ddp_model = DDP(model)
    dataset = make_data()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True,
                                 seed=0)
    loader = DataLoader(dataset, batch_size=GLOBAL_BATCH // world_size, sampler=sampler)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        ddp_model.train()
        total, count = 0.0, 0
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = loss_fn(ddp_model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
            count += len(labels)
        per_rank = [None] * world_size
        dist.all_gather_object(per_rank, {"rank": rank, "local_rank": local_rank,
                                          "loss": total, "count": count})
        if rank == 0:
            mean = sum(r["loss"] for r in per_rank) / sum(r["count"] for r in per_rank)
            print(f"epoch {epoch}: loss {mean:.4f} over {world_size} rank(s)", flush=True)

    if rank == 0 and args.save:
        torch.save(ddp_model.module.state_dict(), args.save)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
