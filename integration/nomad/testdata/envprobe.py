# Prints the process environment as one JSON line, then meets its peers
# so that the job can only end after every task printed: the coordinator
# (a TFJob chief, a PAI "master") connects to every other task, workers
# accept one connection and end, a PS serves until stopped. Peers are
# found through the platform's own variables (TF_CONFIG; PAI_HOST_IP_* and
# PAI_PORT_LIST_*_probe). A peer counts as met only once it has answered
# a byte: in Docker's bridge mode docker-proxy accepts on the published
# port before the container listens, and then closes the connection.
import json, os, socket, sys, time
env = dict(os.environ)
print("JOBSHIFT_ENV " + json.dumps(env), flush=True)


def done(code=0):
    # Nomad's Docker log collector attaches to a container with a backoff
    # and loses the output of one that ends within about a second
    # (hashicorp/nomad#6931), so no task ends sooner than this.
    time.sleep(max(0.0, started + 3 - time.time()))
    sys.exit(code)


started = time.time()
if "PAI_CURRENT_TASK_ROLE_NAME" in env:  # a PAI job, whatever other contracts it has
    typ, idx = env["PAI_CURRENT_TASK_ROLE_NAME"], env["PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"]
    port = int(env["PAI_PORT_LIST_%s_%s_probe" % (typ, idx)])
    coordinator = typ == "master"
    peers = ["%s:%s" % (env["PAI_HOST_IP_" + k[len("PAI_PORT_LIST_"):-len("_probe")]], v)
             for k, v in env.items() if k.startswith("PAI_PORT_LIST_worker_") and k.endswith("_probe")]
else:
    tf = json.loads(env["TF_CONFIG"])
    typ, idx = tf["task"]["type"], tf["task"]["index"]
    port = int(tf["cluster"][typ][idx].rsplit(":", 1)[1])
    coordinator = typ == "chief"
    peers = tf["cluster"].get("worker", []) + tf["cluster"].get("ps", [])
if coordinator:
    for addr in peers:
        host, p = addr.rsplit(":", 1)
        deadline = time.time() + 180
        while True:
            try:
                conn = socket.create_connection((host, int(p)), timeout=5)
                try:
                    met = conn.recv(1) == b"k"
                finally:
                    conn.close()
                if met:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                done("chief: %s never answered" % addr)
            time.sleep(0.2)
    done()
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", port))
srv.listen(16)
while True:
    conn = srv.accept()[0]
    conn.sendall(b"k")
    conn.close()
    if typ != "ps":
        done()
