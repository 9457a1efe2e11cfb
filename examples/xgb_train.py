"""Distributed XGBoost as a Kubeflow XGBoostJob runs it.

The operator gives every replica MASTER_ADDR, MASTER_PORT, WORLD_SIZE and
RANK (training-operator pkg/controller.v1/xgboost/xgboost.go). As in
Kubeflow's xgboost-dist example, rank 0 (the Master) starts the Rabit
tracker on MASTER_ADDR:MASTER_PORT and every replica, the Master included,
joins it as a worker with DMLC_TASK_ID = RANK, so ranks are the operator's.
Each rank trains on its own shard of a fixed synthetic data set; the
collective histogram all-reduce makes every rank end with the same model,
whose checksum each prints ("rank R of N checksum C").
"""
import hashlib
import os

import numpy as np
import xgboost as xgb
from xgboost import collective
from xgboost.tracker import RabitTracker

NAMES = ("MASTER_PORT", "MASTER_ADDR", "WORLD_SIZE", "RANK", "PYTHONUNBUFFERED", "WORKER_PORT", "WORKER_ADDRS")


def main():
    for name, value in os.environ.items():
        if name in NAMES:
            print("env %s=%s" % (name, value), flush=True)
    addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    world, rank = int(os.environ["WORLD_SIZE"]), int(os.environ["RANK"])

    tracker = None
    if rank == 0:
        tracker = RabitTracker(host_ip=addr, n_workers=world, port=port, sortby="task")
        tracker.start(world)

    rng = np.random.default_rng(7)
    x = rng.normal(size=(600, 4))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(int)
    shard = slice(rank, None, world)
    with collective.CommunicatorContext(DMLC_TRACKER_URI=addr, DMLC_TRACKER_PORT=port, DMLC_TASK_ID=str(rank)):
        if collective.get_rank() != rank or collective.get_world_size() != world:
            raise SystemExit("collective rank %d of %d, want %d of %d" % (
                collective.get_rank(), collective.get_world_size(), rank, world))
        dtrain = xgb.DMatrix(x[shard], label=y[shard])
        booster = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_depth": 3, "nthread": 1},
                            dtrain, num_boost_round=5)
        dump = "".join(booster.get_dump())
        print("rank %d of %d checksum %s" % (rank, world, hashlib.sha256(dump.encode()).hexdigest()[:16]), flush=True)
    if tracker is not None:
        tracker.join()


if __name__ == "__main__":
    main()
