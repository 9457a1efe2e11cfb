#!/usr/bin/env bash
# A throw-away Nomad dev agent with ACLs enabled, beside the shared test agent, for checking the
# ACL policies of docs/nomad/ (integration/nomadacl):
#
#   scripts/nomad-acl-agent.sh start   # prints NOMAD_ADDR=... and NOMAD_TOKEN=<management token>
#   scripts/nomad-acl-agent.sh stop    # stops its jobs, the agent and every process it started
#
# Port NOMAD_ACL_PORT (default 25646; +1 rpc, +2 serf), state in ${TMPDIR:-/tmp}/jsacl-<port>
# (short: Task API socket paths are limited to 107 bytes). raw_exec enabled, no Docker, no GPUs.
# Every process it starts carries JOBSHIFT_NOMAD_ACL=<state dir>, which stop uses to leave none.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
port=${NOMAD_ACL_PORT:-25646}
dir=${TMPDIR:-/tmp}/jsacl-$port
addr=http://127.0.0.1:$port
mark="JOBSHIFT_NOMAD_ACL=$dir"
nomad=${NOMAD_BIN:-${JOBSHIFT_CACHE:-$repo/.cache}/nomad/bin/nomad}
[[ -x $nomad ]] || nomad=$(command -v nomad || true)

marked() {
	grep -lzxF "$mark" /proc/[0-9]*/environ 2>/dev/null | while read -r e; do
		p=${e#/proc/}
		p=${p%/environ}
		[[ $p == "$$" ]] || echo "$p"
	done
	return 0
}

start() {
	[[ -n $nomad && -x $nomad ]] || { echo "nomad-acl-agent: no nomad binary; run scripts/install-nomad.sh" >&2; exit 1; }
	if [[ -f $dir/nomad.pid ]] && kill -0 "$(cat "$dir/nomad.pid")" 2>/dev/null; then
		echo "nomad-acl-agent: already running (pid $(cat "$dir/nomad.pid")); stop it first" >&2
		exit 1
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	cat >"$dir/agent.hcl" <<HCL
bind_addr = "127.0.0.1"
data_dir  = "$dir/data"
ports {
  http = $port
  rpc  = $((port + 1))
  serf = $((port + 2))
}
acl {
  enabled = true
}
# Its tasks bind 127.0.0.1, where the Slurm test cluster's tasks bind their job port window
# (20000-29999, drivers/slurm port_base) and Nomad's default dynamic band (20000-32000) overlaps
# it: run beside integration/slurm (go test -p), a ps task found its port taken and exited 1 (CI,
# stop 34). Nomad checks only its own allocations, like any site whose hosts run other services;
# the fix a site makes is the one here: a band nothing else on the host uses.
client {
  network_interface = "lo"
  min_dynamic_port  = 30000
  max_dynamic_port  = 32000
  options = {
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}
plugin "raw_exec" {
  config { enabled = true }
}
HCL
	JOBSHIFT_NOMAD_ACL=$dir nohup "$nomad" agent -dev -config="$dir/agent.hcl" >"$dir/agent.log" 2>&1 &
	echo $! >"$dir/nomad.pid"
	for _ in $(seq 1 120); do
		kill -0 "$(cat "$dir/nomad.pid")" 2>/dev/null || { tail -20 "$dir/agent.log" >&2; exit 1; }
		if out=$(NOMAD_ADDR=$addr "$nomad" acl bootstrap -json 2>/dev/null); then
			token=$(printf '%s' "$out" | jq -r .SecretID)
			printf '%s\n' "$token" >"$dir/management.token"
			chmod 600 "$dir/management.token"
			break
		fi
		sleep 0.5
	done
	[[ -s $dir/management.token ]] || { echo "nomad-acl-agent: ACL bootstrap failed; see $dir/agent.log" >&2; exit 1; }
	# ready = the node is ready with raw_exec healthy
	for _ in $(seq 1 120); do
		node=$(curl -sf -H "X-Nomad-Token: $(cat "$dir/management.token")" "$addr/v1/nodes?resources=true" || true)
		if [[ $node == *'"Status":"ready"'* && $node == *'"raw_exec":{'*'"Healthy":true'* ]]; then
			echo "NOMAD_ADDR=$addr"
			echo "NOMAD_TOKEN=$(cat "$dir/management.token")"
			return 0
		fi
		sleep 0.5
	done
	echo "nomad-acl-agent: node not ready after 60s; see $dir/agent.log" >&2
	exit 1
}

stop() {
	if [[ -s $dir/management.token ]]; then
		tok=$(cat "$dir/management.token")
		{ curl -sf -H "X-Nomad-Token: $tok" "$addr/v1/jobs?namespace=*" || echo '[]'; } |
			jq -r '.[] | [.Namespace, .ID] | @tsv' 2>/dev/null | while IFS=$'\t' read -r ns id; do
			curl -sf -X DELETE -H "X-Nomad-Token: $tok" "$addr/v1/job/$(jq -rn --arg x "$id" '$x|@uri')?namespace=$ns" >/dev/null || true
		done
		for _ in $(seq 1 60); do
			curl -sf -H "X-Nomad-Token: $tok" "$addr/v1/allocations?namespace=*" |
				jq -e 'any(.[]; .ClientStatus == "pending" or .ClientStatus == "running")' >/dev/null 2>&1 || break
			sleep 0.5
		done
	fi
	if [[ -f $dir/nomad.pid ]]; then
		pid=$(cat "$dir/nomad.pid")
		kill -INT "$pid" 2>/dev/null || true
		for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	for p in $(marked); do kill -KILL "$p" 2>/dev/null || true; done
	sleep 0.2
	awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
	left=$(marked)
	[[ -z $left ]] || { echo "nomad-acl-agent: processes left: $left" >&2; exit 1; }
	rm -rf "$dir"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
