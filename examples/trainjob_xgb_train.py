#!/usr/bin/env python3
"""A few boosting rounds of distributed XGBoost (CPU, the collective over TCP).

The Trainer xgboost runtime gives every node DMLC_TRACKER_URI and
DMLC_TRACKER_PORT (node 0, which runs the tracker), DMLC_TASK_ID (the
node's rank) and DMLC_NUM_WORKER. Every rank trains on its own rows; the
collective makes the trees global, so all ranks end with the same model.
The last line prints a checksum of its predictions.
"""

import os
import sys
import threading

import numpy as np
import xgboost as xgb
from xgboost import collective
from xgboost.tracker import RabitTracker


def main():
    uri = os.environ["DMLC_TRACKER_URI"]
    port = int(os.environ["DMLC_TRACKER_PORT"])
    rank = int(os.environ["DMLC_TASK_ID"])
    world = int(os.environ["DMLC_NUM_WORKER"])
    if rank == 0:
        tracker = RabitTracker(host_ip=uri, n_workers=world, port=port)
        tracker.start(world)
        threading.Thread(target=tracker.join, daemon=True).start()
    args = {"DMLC_TRACKER_URI": uri, "DMLC_TRACKER_PORT": port, "DMLC_TASK_ID": str(rank)}
    with collective.CommunicatorContext(**args):
        rng = np.random.default_rng(100 + rank)  # a different shard per rank
        x = rng.normal(size=(256, 4))
        data = xgb.DMatrix(x, label=x.sum(axis=1))
        booster = xgb.train({"tree_method": "hist", "max_depth": 3, "nthread": 1}, data, num_boost_round=5)
        probe = xgb.DMatrix(np.ones((1, 4)))
        checksum = float(booster.predict(probe)[0])
        print("rank %d of %d checksum %.6f" % (collective.get_rank(), collective.get_world_size(), checksum), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
