# One UAI Train node's command, run by both of its processes (told apart
# only by TF_CONFIG). A parameter server serves its index on the port its
# TF_CONFIG names until it is stopped. A training process binds its own
# cluster address, then reaches every ps and checks each answers with its
# own index. The master waits first: it is the slower training task, so the
# job succeeds only if every node's ps outlives that node's own training
# process (UAI cleans up after all workers have ended).
import json, os, socket, sys, time


def say(*words):
    # one write per line: the node's two processes share one output file,
    # and print() may write its pieces separately (unbuffered stdout)
    os.write(1, (" ".join(str(w) for w in words) + "\n").encode())


tf = json.loads(os.environ["TF_CONFIG"])
me = tf["task"]
mine = tf["cluster"][me["type"]][me["index"]]
host, port = mine.rsplit(":", 1)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((host, int(port)))
s.listen(16)
if me["type"] == "ps":
    say("ps", me["index"], "serving on", mine)
    while True:
        c, _ = s.accept()
        c.sendall(b"ps %d\n" % me["index"])
        c.close()
if me["type"] == "master":
    time.sleep(float(os.environ.get("UAI_MASTER_DELAY", "4")))
for i, addr in enumerate(tf["cluster"]["ps"]):
    h, p = addr.rsplit(":", 1)
    deadline = time.time() + 60
    while True:
        try:
            with socket.create_connection((h, int(p)), timeout=5) as c:
                got = c.makefile().readline().strip()
            if got == "":
                # a port proxy (Docker) accepted before the ps listened
                raise ConnectionError("closed without an answer")
            break
        except OSError as e:
            if time.time() > deadline:
                sys.exit("%s %d: ps %d at %s unreachable: %s" % (me["type"], me["index"], i, addr, e))
            time.sleep(0.2)
    if got != "ps %d" % i:
        sys.exit("%s %d: ps %d at %s answered %r" % (me["type"], me["index"], i, addr, got))
    say(me["type"], me["index"], "reached ps", i, "at", addr)
