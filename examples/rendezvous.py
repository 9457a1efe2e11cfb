"""A stand-in for a framework's rendezvous, from the operator's variables only.

    python3 rendezvous.py paddle   # PaddleJob, collective mode
    python3 rendezvous.py jax      # JAXJob
    python3 rendezvous.py mxnet    # MXJob (MXTrain: Scheduler, Server, Worker)

paddle: like `python -m paddle.distributed.launch` (controllers/master.py
HTTPMaster), a replica serves the rendezvous at PADDLE_MASTER when its host
is 127.0.0.1 or the replica's node IP (its host name's address, or
POD_IP), the first such replica to listen wins, and the others connect.
The operator gave the replica it meant to serve (Worker 0 in collective
mode) POD_IP_DUMMY, its pod IP, and made its PADDLE_MASTER of it; a pod IP
is both the pod's own address and the one its peers dial. So that replica
checks all of it: POD_IP_DUMMY is an address of its own, PADDLE_MASTER's
host is its node IP (else Paddle would never serve and the job would
hang), and it reaches its own server at PADDLE_MASTER as its peers do
(HTTPMaster probes it before serving and uses it through KVClient). Ranks
follow arrival; all PADDLE_NNODES replicas must come, each presenting
PADDLE_JOB_ID.

Every server listens on all interfaces at the given port, as the real
frameworks do (a container's own address need not be the one its peers
dial).

jax: like jax.distributed.initialize(), PROCESS_ID 0 serves the coordinator
at COORDINATOR_ADDRESS:COORDINATOR_PORT, the others connect and present
their PROCESS_ID; every id 0..NUM_PROCESSES-1 must come exactly once.

mxnet: like ps-lite, the scheduler (DMLC_ROLE=scheduler) serves at
DMLC_PS_ROOT_URI:DMLC_PS_ROOT_PORT; DMLC_NUM_SERVER servers and
DMLC_NUM_WORKER workers register with their role and index (MX_CONFIG's
task) and every one must come exactly once.

Every process prints the operator variables it was given ("env NAME=VALUE")
and, once everyone has met, "rank R of N members M" and exits 0.
"""
import os
import socket
import sys
import time

NAMES = {
    "paddle": ("PYTHONUNBUFFERED", "PADDLE_JOB_ID", "PADDLE_NNODES", "POD_IP_DUMMY", "PADDLE_MASTER", "PADDLE_SERVER_NUM", "PADDLE_TRAINER_NUM"),
    "jax": ("PYTHONUNBUFFERED", "COORDINATOR_PORT", "COORDINATOR_ADDRESS", "NUM_PROCESSES", "PROCESS_ID"),
    "mxnet": ("MX_CONFIG", "DMLC_PS_ROOT_PORT", "DMLC_PS_ROOT_URI", "DMLC_NUM_SERVER", "DMLC_NUM_WORKER", "DMLC_ROLE",
              "DMLC_USE_KUBERNETES", "DMLC_WORKER_ID"),
}


def serve(sock, n, token_ok):
    """Accept n-1 peers; each sends one line; reply with its rank and n.
    A connection that sends nothing is a probe (is the server up?)."""
    sock.listen(n)
    peers = []
    while len(peers) < n - 1:
        conn, _ = sock.accept()
        line = conn.makefile().readline().strip()
        if not line:
            conn.close()
            continue
        if not token_ok(line, peers):
            conn.sendall(b"refused\n")
            conn.close()
            raise SystemExit("rendezvous: unexpected peer %r" % line)
        peers.append((conn, line))
    for rank, (conn, line) in enumerate(peers, 1):
        conn.sendall(("%d %d %s\n" % (rank, n, line)).encode())
        conn.close()
    return 0


def join(host, port, hello, deadline=120):
    """Connect until the server is up; send hello; read "rank n"."""
    end = time.time() + deadline
    while True:
        try:
            with socket.create_connection((host, port), timeout=10) as c:
                c.sendall((hello + "\n").encode())
                reply = c.makefile().readline().split()
                if len(reply) < 2:
                    raise SystemExit("rendezvous: refused by %s:%d" % (host, port))
                return int(reply[0]), int(reply[1])
        except OSError:
            if time.time() > end:
                raise
            time.sleep(0.2)


def listener(host, port):
    """A socket listening on every interface of host's family at port."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("", port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def paddle():
    host, _, port = os.environ["PADDLE_MASTER"].rpartition(":")
    host, port = host.strip("[]"), int(port)
    n, job = int(os.environ["PADDLE_NNODES"]), os.environ["PADDLE_JOB_ID"]
    mine = host in ("127.0.0.1", node_ip())
    if "POD_IP_DUMMY" in os.environ:
        own_address(os.environ["POD_IP_DUMMY"])
        if not mine:
            raise SystemExit("rendezvous: PADDLE_MASTER's host %s is neither 127.0.0.1 nor this node's address %s:"
                             " paddle.distributed.launch would not serve the rendezvous" % (host, node_ip()))
    if not mine:
        return join(host, port, job)
    # as HTTPMaster: every replica on PADDLE_MASTER's node tries to serve;
    # the first one that listens does, the others join it
    try:
        sock = listener(host, port)
    except OSError:
        return join(host, port, job)
    with sock:
        probe(host, port)
        serve(sock, n, lambda line, peers: line == job)
    return 0, n


def node_ip():
    """The address paddle.distributed.launch takes for its node
    (context/node.py get_host_ip; POD_IP overrides it, args_envs.py)."""
    if os.environ.get("POD_IP"):
        return os.environ["POD_IP"]
    try:
        return socket.gethostbyname(socket.getfqdn(socket.gethostname()))
    except OSError:
        return "127.0.0.1"


def own_address(host):
    """Exit unless host is an address of this process's network namespace
    (only such an address can be bound)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        try:
            s.bind((host, 0))
        except OSError as e:
            raise SystemExit("rendezvous: POD_IP_DUMMY=%s is not an address of this task: %s" % (host, e))


def probe(host, port):
    """Exit unless this task reaches its own server at host:port."""
    try:
        socket.create_connection((host, port), timeout=10).close()
    except OSError as e:
        raise SystemExit("rendezvous: the master does not reach itself at %s:%d: %s" % (host, port, e))


def jax():
    host, port = os.environ["COORDINATOR_ADDRESS"], int(os.environ["COORDINATOR_PORT"])
    n, me = int(os.environ["NUM_PROCESSES"]), int(os.environ["PROCESS_ID"])
    if me != 0:
        rank, got = join(host, port, str(me))
        return me, got
    with listener(host, port) as sock:
        serve(sock, n, lambda line, peers: line.isdigit() and 0 < int(line) < n and line not in [p for _, p in peers])
    return 0, n


def mxnet():
    import json
    host, port = os.environ["DMLC_PS_ROOT_URI"], int(os.environ["DMLC_PS_ROOT_PORT"])
    servers, workers = int(os.environ["DMLC_NUM_SERVER"]), int(os.environ["DMLC_NUM_WORKER"])
    task = json.loads(os.environ["MX_CONFIG"])["task"]
    if task["type"] != os.environ["DMLC_ROLE"]:
        raise SystemExit("MX_CONFIG task %r but DMLC_ROLE %s" % (task, os.environ["DMLC_ROLE"]))
    n = 1 + servers + workers
    if task["type"] != "scheduler":
        rank, got = join(host, port, "%s %d" % (task["type"], task["index"]))
        return rank, got
    want = {"server %d" % i for i in range(servers)} | {"worker %d" % i for i in range(workers)}
    with listener(host, port) as sock:
        serve(sock, n, lambda line, peers: line in want and line not in [p for _, p in peers])
    return 0, n


def main():
    kind = sys.argv[1]
    for name, value in os.environ.items():
        if name in NAMES[kind]:
            print("env %s=%s" % (name, value), flush=True)
    rank, n = {"paddle": paddle, "jax": jax, "mxnet": mxnet}[kind]()
    print("rank %d of %d members %d" % (rank, n, n), flush=True)


if __name__ == "__main__":
    main()
