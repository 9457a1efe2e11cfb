#!/usr/bin/env bash
# Start (or reuse) a single-node Nomad dev agent for jobshift's integration tests.
#
#   scripts/nomad-dev-start.sh        # prints NOMAD_ADDR=http://127.0.0.1:<port>
#   scripts/nomad-dev-stop.sh         # stops the agent this script started (PID file), its jobs
#                                     # and every process it started (JOBSHIFT_NOMAD_DEV mark)
#
# The agent: server+client in one process (-dev), HTTP/RPC/serf bound to 127.0.0.1, raw_exec
# enabled, the Docker driver (when a daemon answers), the fake GPU device plugin
# (integration/fakegpu, NOMAD_DEV_GPUS devices, default 4), cloud env fingerprinters denied
# (AWS_CA_BUNDLE etc. make the AWS fingerprinter fail agent start-up, spec/nomad.md §4).
#
# Task addresses: the client's network_interface is docker0 when it exists, else lo. Both are
# host-only; docker0 is needed so that containers in Docker's bridge network can reach their
# peers' published ports (a container's 127.0.0.1 is its own). Override with NOMAD_DEV_IFACE.
#
# State lives under ${JOBSHIFT_CACHE:-<repo>/.cache}/nomad/dev: agent.hcl, data/, nomad.pid,
# agent.log, addr (the NOMAD_ADDR), data_dir. A running agent with a live PID file is reused.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${JOBSHIFT_CACHE:-$repo/.cache}
dev=$cache/nomad/dev
port=${NOMAD_DEV_PORT:-24646}
gpus=${NOMAD_DEV_GPUS:-4}
nomad=${NOMAD_BIN:-$cache/nomad/bin/nomad}
if [[ ! -x $nomad ]]; then
	nomad=$(command -v nomad || true)
fi
[[ -n $nomad && -x $nomad ]] || { echo "nomad-dev-start: no nomad binary; run scripts/install-nomad.sh" >&2; exit 1; }

addr=http://127.0.0.1:$port

# unmount_under DIR: unmount every mount point below DIR, deepest first.
unmount_under() {
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
mkdir -p "$dev/plugins"
# Task API sockets live at <data_dir>/alloc/<uuid>/<task>/secrets/api.sock and a unix socket path
# has at most 107 bytes: a deep checkout would break them, so fall back to a short path then.
data=$dev/data
if (( ${#data} > 40 )); then
	# the port keeps two agents (another NOMAD_DEV_PORT) off one data dir
	data=${TMPDIR:-/tmp}/jobshift-nomad-$(id -u)-$port
fi

if [[ -f $dev/nomad.pid ]] && kill -0 "$(cat "$dev/nomad.pid")" 2>/dev/null; then
	if curl -sf "$addr/v1/agent/health" >/dev/null; then
		echo "NOMAD_ADDR=$addr"
		exit 0
	fi
fi

# Build the fake GPU plugin (its own module) when missing or older than its source.
plugin=$dev/plugins/fake-gpu
src=$repo/integration/fakegpu
if [[ ! -x $plugin || -n $(find "$src" -newer "$plugin" -name '*.go' -o -newer "$plugin" -name go.mod | head -1) ]]; then
	(cd "$src" && CGO_ENABLED=0 go build -o "$plugin.tmp" . && mv "$plugin.tmp" "$plugin")
fi

iface=${NOMAD_DEV_IFACE:-}
if [[ -z $iface ]]; then
	if ip link show docker0 >/dev/null 2>&1; then iface=docker0; else iface=lo; fi
fi

docker_block=""
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
	# Nomad's default docker settings (allow_caps, volumes, runtimes) except image GC: this
	# machine has no registry, so an image Nomad removed could not be pulled again.
	docker_block='plugin "docker" {
  config {
    gc { image = false }
  }
}'
fi

cat > "$dev/agent.hcl" <<HCL
bind_addr  = "127.0.0.1"
data_dir   = "$data"
plugin_dir = "$dev/plugins"
log_level  = "INFO"
ports {
  http = $port
  rpc  = $((port + 1))
  serf = $((port + 2))
}
# Every test process of the suite (several at once under go test -p) talks to this one agent from
# 127.0.0.1, each holding blocking queries and keep-alive connections; Nomad's default of 100
# connections per client address is a guard for many users on many addresses, not for this.
limits {
  http_max_conns_per_client = 1000
}
# -dev turns on Prometheus metrics with per-allocation series (Nomad's DevConfig; a site's agent
# has neither unless it asks). go-metrics drops an expired Prometheus series only when it is
# scraped, and nothing scrapes this agent, so every job's series stay: the agent's heap grew by
# ~4 MB per 16-task job, to 650 MB live after 150 benchmark starts, and its garbage collection
# ran inside the starts being measured. A config file cannot turn those settings back off
# (Telemetry.Merge copies only true), so this agent collects no metric at all.
telemetry {
  filter_default = false
}
client {
  network_interface = "$iface"
  # Its tasks share this machine with the Slurm test cluster's, whose job port window (20000-29999,
  # drivers/slurm port_base) lies inside Nomad's default dynamic band (20000-32000). On lo they share
  # 127.0.0.1; on docker0 a program that binds every address (PyTorch's TCPStore does) still takes the
  # port on 127.0.0.1 too. So the band starts above the window here (scripts/nomad-acl-agent.sh
  # says what this cost once), as a site running other services on its clients would set it.
  min_dynamic_port  = 30000
  max_dynamic_port  = 32000
  options = {
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}
plugin "raw_exec" {
  config { enabled = true }
}
plugin "fake-gpu" {
  config {
    count      = $gpus
    model      = "FakeH100"
    memory_mib = 81920
  }
}
$docker_block
HCL

# A dev agent that was killed leaves its tasks' secrets dirs mounted (tmpfs);
# unmount them first or the old data dir cannot be removed.
unmount_under "$data"
rm -rf "$data"
# JOBSHIFT_NOMAD_DEV marks the agent and, through inheritance, every executor, logmon and
# raw_exec task it starts: nomad-dev-stop.sh finds what is left by this mark.
JOBSHIFT_NOMAD_DEV=$dev nohup "$nomad" agent -dev -config="$dev/agent.hcl" >"$dev/agent.log" 2>&1 &
echo $! >"$dev/nomad.pid"
echo "$addr" >"$dev/addr"
echo "$data" >"$dev/data_dir"

# Ready = the local node is "ready" with raw_exec healthy and the GPUs fingerprinted.
for _ in $(seq 1 120); do
	if ! kill -0 "$(cat "$dev/nomad.pid")" 2>/dev/null; then
		echo "nomad-dev-start: agent exited; see $dev/agent.log" >&2
		tail -20 "$dev/agent.log" >&2
		exit 1
	fi
	node=$(curl -sf "$addr/v1/nodes?resources=true" 2>/dev/null || true)
	if [[ $node == *'"Status":"ready"'* && $node == *'"raw_exec":{'*'"Healthy":true'* &&
		($gpus == 0 || $node == *FakeH100*) ]]; then
		echo "NOMAD_ADDR=$addr"
		exit 0
	fi
	sleep 0.5
done
echo "nomad-dev-start: agent not ready after 60s; see $dev/agent.log" >&2
exit 1
