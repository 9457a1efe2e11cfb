#!/usr/bin/env python3
"""A few real steps of data-parallel training with PyTorch DDP (gloo, CPU).

Rendezvous is init_process_group(init_method="env://"): MASTER_ADDR,
MASTER_PORT, RANK and WORLD_SIZE come from the environment, which the
platform (PyTorchJob) or the job's own commands (OpenPAI) set. Every rank
trains on its own data; DDP averages the gradients, so all ranks must end
with the same parameters. The last line prints a checksum of them.
"""

import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS = int(os.environ.get("DDP_STEPS", "5"))


def main():
    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # same initial parameters everywhere
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.02)
    data = torch.Generator().manual_seed(1000 + rank)  # a different shard per rank
    x = torch.randn(64, 8, generator=data)
    y = x.sum(dim=1, keepdim=True)
    for step in range(STEPS):
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("rank %d step %d loss %.6f" % (rank, step, loss.item()), flush=True)
    checksum = sum(p.detach().double().sum().item() for p in model.parameters())
    print("rank %d of %d checksum %.12f" % (rank, world, checksum), flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
