# A LeinaoPAI task of seed 000's kind. It binds the three ports LeinaoPAI
# gave every container (10001-10003; mnist_replica.py binds :10001), then
# reaches every task of the job (itself included) on the three host ports
# PAI_PORT_LIST_<role>_<i> = "ip,p1,p2,p3" names, checking that the right
# task answers on the right container port. A peer confirms each answer
# with "ack" after printing it, and a task ends only once every task has
# confirmed on all three of its ports (parameter servers never end: the
# completion rule stops them), so when the workers have ended every task
# has reached every peer on every port.
import os, socket, sys, threading, time

me = "%s-%s" % (os.environ["PAI_CURRENT_TASK_ROLE_NAME"], os.environ["PAI_TASK_INDEX"])
bind = os.environ.get("LEINAO_BIND", "")  # "" = every address, as in a container
maps = [int(os.environ["PAI_PORT_MAP_%d" % p]) for p in (10001, 10002, 10003)]
peers = []
for r in os.environ["PAI_TASK_ROLE_LIST"].split(","):
    for i in range(int(os.environ["PAI_TASK_ROLE_TASK_COUNT_" + r])):
        peers.append(("%s-%d" % (r, i), os.environ["PAI_PORT_LIST_%s_%d" % (r, i)].split(",")))
acks = [0]
lock = threading.Lock()

def serve(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.listen(64)
    while True:
        c, _ = s.accept()
        c.sendall(("%s %d\n" % (me, port)).encode())
        if c.makefile().readline().strip() == "ack":
            with lock:
                acks[0] += 1
        c.close()

for p in (10001, 10002, 10003):
    threading.Thread(target=serve, args=(p,), daemon=True).start()
print(me, "serving 10001-10003, mapped to", maps, "user", os.environ.get("PAI_USER_NAME"), flush=True)
for name, f in peers:
    if len(f) != 4:
        sys.exit("%s: PAI_PORT_LIST of %s is %r, want ip,p1,p2,p3" % (me, name, f))
    for k, hp in enumerate(f[1:]):
        deadline = time.time() + 120
        while True:
            try:
                with socket.create_connection((f[0], int(hp)), timeout=5) as c:
                    rf = c.makefile()
                    got = rf.readline().strip()
                    want = "%s %d" % (name, 10001 + k)
                    if got == "":
                        # Docker's proxy accepts on the host port before
                        # the container listens, then closes: not up yet
                        raise ConnectionError("closed without an answer")
                    if got != want:
                        sys.exit("%s: %s:%s answered %r, want %r" % (me, f[0], hp, got, want))
                    print(me, "reached", name, "on", 10001 + k, "via", f[0] + ":" + hp, flush=True)
                    c.sendall(b"ack\n")
                break
            except OSError as e:
                if time.time() > deadline:
                    sys.exit("%s: %s at %s:%s unreachable: %s" % (me, name, f[0], hp, e))
                time.sleep(0.2)
want = 3 * len(peers)
while True:
    with lock:
        if acks[0] >= want:
            break
    time.sleep(0.1)
print(me, "confirmed by all", len(peers), "tasks on 3 ports", flush=True)
if os.environ["PAI_CURRENT_TASK_ROLE_NAME"] == "ps":
    threading.Event().wait()
