"""A UAI Train node's program, as the seed describes it: the same command
runs as the parameter server and as the training task, told apart only by
TF_CONFIG. A ps serves forever on its cluster address; a training task
(master or worker) listens on its own address, connects to every ps and
every other training task, and exits 0 once every other training task has
also reached it (so no one exits while a peer still needs it)."""

import json
import os
import socket
import sys
import threading
import time

LIMIT = 60  # seconds to reach every peer before giving up

cfg = json.loads(os.environ["TF_CONFIG"])
print("TF_CONFIG=" + os.environ["TF_CONFIG"], flush=True)
cluster, task = cfg["cluster"], cfg["task"]
me = "%s %d" % (task["type"], task["index"])


def listen(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, int(port)))
    s.listen(16)
    return s


def ask(addr):
    """Connect to addr (retrying until it listens) and return its name."""
    host, port = addr.rsplit(":", 1)
    end = time.time() + LIMIT
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=5) as c:
                return c.makefile().readline().strip()
        except OSError:
            if time.time() > end:
                sys.exit("%s: cannot reach %s" % (me, addr))
            time.sleep(0.1)


if task["type"] == "ps":
    srv = listen(cluster["ps"][task["index"]])
    print("ps %d serving" % task["index"], flush=True)
    while True:
        c, _ = srv.accept()
        c.sendall((me + "\n").encode())
        c.close()

own = cluster[task["type"]][task["index"]]
srv = listen(own)
training = [("master", i, a) for i, a in enumerate(cluster["master"])] + \
    [("worker", i, a) for i, a in enumerate(cluster["worker"])]
peers = [("ps", i, a) for i, a in enumerate(cluster["ps"])] + \
    [p for p in training if p[2] != own]

want_in = len(training) - 1
got_in = threading.Semaphore(0)


def serve():
    while True:
        c, _ = srv.accept()
        c.sendall((me + "\n").encode())
        c.close()
        got_in.release()


threading.Thread(target=serve, daemon=True).start()
for typ, i, addr in peers:
    name = ask(addr)
    if name != "%s %d" % (typ, i):
        sys.exit("%s: %s answered %r, want %s %d" % (me, addr, name, typ, i))
    print("%s reached %s at %s" % (me, name, addr), flush=True)
for _ in range(want_in):
    if not got_in.acquire(timeout=LIMIT):
        sys.exit("%s: not every training task reached me" % me)
print("%s done" % me, flush=True)
