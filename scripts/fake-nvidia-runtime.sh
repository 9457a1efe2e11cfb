#!/usr/bin/env bash
# Registers a Docker runtime named "nvidia" that is plain runc: the test stand-in for the NVIDIA
# container runtime, as integration/fakegpu stands in for the NVIDIA device plugin.
#
# Why: Nomad's docker driver runs every task that holds an NVIDIA device (its device env has
# NVIDIA_VISIBLE_DEVICES) with the runtime named by the client's `nvidia_runtime` plugin option
# (default "nvidia"), and refuses the task ("requested docker runtime "nvidia" was not found")
# when dockerd has no runtime of that name (drivers/docker/driver.go createContainerConfig,
# fingerprint.go). A real GPU client has it from nvidia-container-toolkit; the test clients get
# this one, so the Nomad agents keep their default plugin settings.
#
# Idempotent; needs root and a running dockerd. The runtime list is one of dockerd's live-
# reloadable options, so a SIGHUP applies it without restarting containers.
set -euo pipefail
cfg=${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}
command -v docker >/dev/null && docker info >/dev/null 2>&1 || { echo "fake-nvidia-runtime: no Docker daemon" >&2; exit 0; }
if docker info --format '{{json .Runtimes}}' | grep -q '"nvidia"'; then
	exit 0
fi
runc=$(command -v runc || echo /usr/sbin/runc)
mkdir -p "$(dirname "$cfg")"
[[ -s $cfg ]] || echo '{}' >"$cfg"
python3 - "$cfg" "$runc" <<'PY'
import json, sys
path, runc = sys.argv[1], sys.argv[2]
with open(path) as f:
    cfg = json.load(f)
cfg.setdefault("runtimes", {})["nvidia"] = {"path": runc}
with open(path + ".tmp", "w") as f:
    json.dump(cfg, f, indent=2)
PY
mv "$cfg.tmp" "$cfg"
pkill -HUP -x dockerd
for _ in $(seq 1 50); do
	docker info --format '{{json .Runtimes}}' | grep -q '"nvidia"' && exit 0
	sleep 0.1
done
echo "fake-nvidia-runtime: dockerd did not pick up the nvidia runtime from $cfg" >&2
exit 1
