#!/usr/bin/env python3
"""A stand-in for a distributed training program, Python 3 standard library only.

It reads the cluster the way real programs do and proves that every task can
reach every other one over TCP, then ends the way training jobs end:

  mesh.py --ps_hosts=H:P,H:P --worker_hosts=H:P,H:P --job_name=ps|worker --task_index=I
      The flags of distributed TensorFlow 1.x (seed 004, and the LeinaoPAI /
      OpenPAI v1 jobs that pass $PAI_TASK_ROLE_<role>_HOST_LIST).
  mesh.py tfconfig
      The cluster from $TF_CONFIG (Kubeflow TFJob): chief, master, ps,
      worker, evaluator.
  mesh.py allreduce --rank R --world N
      A DDP-style rendezvous at $MASTER_ADDR:$MASTER_PORT: rank 0 collects one
      value from every rank and sends the sum back (an all-reduce).

Roles: "ps" tasks serve forever, like parameter servers, until the job
stops them. Trainers (worker, chief, master) connect to every ps and every
other trainer, exchange a value, wait until every other trainer has reached
them too, print the sum and exit 0. Evaluators reach every trainer and exit.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time

TRAINERS = ("worker", "chief", "master")
CONNECT_TIMEOUT = float(os.environ.get("MESH_TIMEOUT", "120"))


def log(me, msg):
    print("%s: %s" % (me, msg), flush=True)


def split_addr(addr):
    host, _, port = addr.rpartition(":")
    return host, int(port)


def value_of(job, index):
    """Each task's contribution: distinct and easy to check by hand."""
    base = {"ps": 1000, "chief": 100, "master": 100, "worker": 10, "evaluator": 1}.get(job, 0)
    return base * (index + 1)


class Server:
    """Answers every HELLO with this task's own value and records who came."""

    def __init__(self, me, addr, value):
        self.me, self.value = me, value
        self.heard = set()
        self.cond = threading.Condition()
        host, port = split_addr(addr)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
        except OSError as e:
            log(me, "cannot listen on %s: %s" % (addr, e))
            sys.exit(1)
        self.sock.listen(64)
        log(me, "listening on %s" % addr)

    def serve(self):
        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn):
        with conn:
            f = conn.makefile("rw")
            line = f.readline().split()
            if len(line) != 3 or line[0] != "HELLO":
                return
            f.write("ACK %s %d\n" % (self.me, self.value))
            f.flush()
            with self.cond:
                self.heard.add(line[1])
                self.cond.notify_all()

    def wait_for(self, names):
        deadline = time.time() + CONNECT_TIMEOUT
        with self.cond:
            while not set(names) <= self.heard:
                left = deadline - time.time()
                if left <= 0:
                    return sorted(set(names) - self.heard)
                self.cond.wait(left)
        return []


def hello(me, value, peer, addr):
    """Connects to peer (retrying while it starts) and returns its value."""
    host, port = split_addr(addr)
    deadline = time.time() + CONNECT_TIMEOUT
    while True:
        try:
            with socket.create_connection((host, port), timeout=5) as s:
                f = s.makefile("rw")
                f.write("HELLO %s %d\n" % (me, value))
                f.flush()
                ack = f.readline().split()
                if len(ack) == 3 and ack[0] == "ACK":
                    return int(ack[2])
        except OSError:
            pass
        if time.time() > deadline:
            log(me, "cannot reach %s at %s" % (peer, addr))
            sys.exit(2)
        time.sleep(0.1)


def run_mesh(cluster, job, index):
    me = "%s:%d" % (job, index)
    # MESH_FAIL=<job>:<index> makes that task fail at once (exit 1): how the
    # tests show what a failing worker does to a job, with the job unchanged.
    if os.environ.get("MESH_FAIL") == me:
        log(me, "failing on purpose (MESH_FAIL)")
        return 1
    if job not in cluster or index >= len(cluster[job]):
        log(me, "not in the cluster %s" % json.dumps(cluster))
        return 1
    value = value_of(job, index)
    peers = {"%s:%d" % (j, i): a for j, addrs in cluster.items() for i, a in enumerate(addrs)}
    trainers = sorted(n for n in peers if n.split(":")[0] in TRAINERS)
    evaluators = sorted(n for n in peers if n.startswith("evaluator:"))

    if job == "evaluator":
        total = sum(hello(me, value, p, peers[p]) for p in trainers)
        log(me, "evaluated against %s: sum=%d" % (",".join(trainers), total))
        return 0

    server = Server(me, peers[me], value)
    threading.Thread(target=server.serve, daemon=True).start()
    if job not in TRAINERS:
        log(me, "serving until stopped")
        threading.Event().wait()  # a parameter server never exits on its own

    targets = sorted(n for n in peers if n != me and not n.startswith("evaluator:"))
    total = value + sum(hello(me, value, p, peers[p]) for p in targets)
    # Leave only once every other trainer (and evaluator) got our answer, or
    # a slower peer would find us gone.
    missing = server.wait_for([n for n in trainers + evaluators if n != me])
    if missing:
        log(me, "never heard from %s" % ",".join(missing))
        return 3
    log(me, "mesh ok: reached %s; sum=%d" % (",".join(targets), total))
    return 0


def run_allreduce(rank, world):
    me = "rank %d" % rank
    addr = "%s:%s" % (os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"])
    value = rank + 1
    if rank == 0:
        host, port = split_addr(addr)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        s.listen(world)
        log(me, "rendezvous at %s, waiting for %d ranks" % (addr, world - 1))
        conns, total = [], value
        s.settimeout(CONNECT_TIMEOUT)
        while len(conns) < world - 1:
            c, _ = s.accept()
            f = c.makefile("rw")
            total += int(f.readline())
            conns.append((c, f))
        for c, f in conns:
            f.write("%d\n" % total)
            f.flush()
            c.close()
    else:
        deadline = time.time() + CONNECT_TIMEOUT
        while True:
            try:
                c = socket.create_connection(split_addr(addr), timeout=CONNECT_TIMEOUT)
                break
            except OSError:
                if time.time() > deadline:
                    log(me, "cannot reach the rendezvous at %s" % addr)
                    return 2
                time.sleep(0.1)
        with c:
            f = c.makefile("rw")
            f.write("%d\n" % value)
            f.flush()
            total = int(f.readline())
    want = world * (world + 1) // 2
    log(me, "allreduce sum=%d (expected %d)" % (total, want))
    return 0 if total == want else 4


def main(argv):
    if argv[:1] == ["tfconfig"]:
        tf = json.loads(os.environ["TF_CONFIG"])
        return run_mesh(tf["cluster"], tf["task"]["type"], int(tf["task"]["index"]))
    if argv[:1] == ["allreduce"]:
        p = argparse.ArgumentParser(prog="mesh.py allreduce")
        p.add_argument("--rank", type=int, required=True)
        p.add_argument("--world", type=int, required=True)
        a = p.parse_args(argv[1:])
        return run_allreduce(a.rank, a.world)
    p = argparse.ArgumentParser(prog="mesh.py")
    p.add_argument("--ps_hosts", default="")
    p.add_argument("--worker_hosts", default="")
    p.add_argument("--job_name", required=True)
    p.add_argument("--task_index", type=int, required=True)
    a = p.parse_args(argv)
    cluster = {"ps": [h for h in a.ps_hosts.split(",") if h], "worker": [h for h in a.worker_hosts.split(",") if h]}
    return run_mesh(cluster, a.job_name, a.task_index)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
