# Stand-in for the LeinaoPAI seed's mnist_replica.py, placed by the tests
# at <shared gdata>/tensorflow-distributed/code/: it reads the dataset
# from --data_dir and writes what it read, with the cluster it was given,
# into --train_dir (under a temporary name, then renamed). Each task then
# waits for the other role's outputs: a ps task serves until every worker
# has written its output, as a parameter server outlives its workers, and
# a worker trains only once every ps is up, as a worker needs its
# parameter servers (the seed's rule ends the job when either role's
# tasks have all succeeded, which would otherwise stop a slow starter
# before it wrote anything).
import argparse, os, time

ap = argparse.ArgumentParser()
for f in ("num_gpus", "batch_size", "data_dir", "train_dir", "ps_hosts", "worker_hosts", "job_name", "task_index"):
    ap.add_argument("--" + f)
a = ap.parse_args()
with open(os.path.join(a.data_dir, "train.txt")) as f:
    n = sum(1 for _ in f)
me = "%s-%s" % (a.job_name, a.task_index)
out = os.path.join(a.train_dir, me + ".txt")
with open(out + ".tmp", "w") as f:
    f.write("%s read %d lines; ps %d, workers %d\n" % (me, n, len(a.ps_hosts.split(",")), len(a.worker_hosts.split(","))))
os.rename(out + ".tmp", out)
other = {"ps": ("worker", a.worker_hosts), "worker": ("ps", a.ps_hosts)}[a.job_name]
want = ["%s-%d.txt" % (other[0], i) for i in range(len(other[1].split(",")))]
for _ in range(1200):
    if all(os.path.exists(os.path.join(a.train_dir, w)) for w in want):
        break
    time.sleep(0.25)
else:
    raise SystemExit("%s: the %s outputs never appeared in %s" % (me, other[0], a.train_dir))
