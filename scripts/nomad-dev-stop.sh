#!/usr/bin/env bash
# Stop the dev agent started by nomad-dev-start.sh and everything it started, leaving no
# process behind:
#   1. every job on the agent is stopped and its allocations are waited for
#      (a client that shuts down leaves its tasks running, to reattach to them on restart);
#   2. the agent (the PID in its PID file) gets SIGINT, SIGKILL after 30 s;
#   3. what is still alive and was started by this agent is killed: nomad-dev-start.sh puts
#      JOBSHIFT_NOMAD_DEV=<its state dir> into the agent's environment, which every executor,
#      logmon and raw_exec task inherits (296 executor/logmon processes were left after two
#      benchmark runs before). Processes of other agents carry another value or none.
# Exits 1 when a process with the mark survives SIGKILL.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dev=${JOBSHIFT_CACHE:-$repo/.cache}/nomad/dev
pidf=$dev/nomad.pid
mark="JOBSHIFT_NOMAD_DEV=$dev"

# marked: PIDs whose environment holds exactly $mark (not this script's own).
marked() {
	local e p
	# the grep and the loop are this script's children; their environment
	# is this script's, which has no mark
	# one grep over every environment (NUL-separated entries, whole entry)
	grep -lzxF "$mark" /proc/[0-9]*/environ 2>/dev/null | while read -r e; do
		p=${e#/proc/}
		p=${p%/environ}
		[[ $p == "$$" ]] || echo "$p"
	done
	return 0
}

# stop_jobs ADDR: stop every job (not purged: its allocations stay listed until
# they end), then wait (60 s at most) until no
# allocation is pending or running.
stop_jobs() {
	local addr=$1 ns id
	{ curl -sf "$addr/v1/jobs?namespace=*" || echo '[]'; } | jq -r '.[] | [.Namespace, .ID] | @tsv' 2>/dev/null |
		while IFS=$'\t' read -r ns id; do
			curl -sf -X DELETE "$addr/v1/job/$(jq -rn --arg x "$id" '$x|@uri')?namespace=$ns" >/dev/null || true
		done
	for _ in $(seq 1 120); do
		curl -sf "$addr/v1/allocations?namespace=*" | jq -e 'any(.[]; .ClientStatus == "pending" or .ClientStatus == "running")' >/dev/null 2>&1 || return 0
		sleep 0.5
	done
	echo "nomad-dev-stop: allocations still running after 60 s; killing them with the agent" >&2
}

# alive PID: running, not a zombie (a killed agent whose parent is gone may
# stay a zombie where PID 1 does not reap, and kill -0 succeeds on those).
alive() {
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z && $st != X ]]
}

pid=
if [[ -f $pidf ]]; then
	pid=$(cat "$pidf")
	if [[ $pid =~ ^[0-9]+$ ]] && alive "$pid"; then
		if [[ -f $dev/addr ]] && curl -sf "$(cat "$dev/addr")/v1/agent/health" >/dev/null 2>&1; then
			stop_jobs "$(cat "$dev/addr")" || true
		fi
		# SIGINT: the dev agent leaves gracefully.
		kill -INT "$pid" 2>/dev/null || true
		for _ in $(seq 1 60); do
			alive "$pid" || break
			sleep 0.5
		done
		if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
	fi
	rm -f "$pidf"
fi

# Whatever the agent left (or a killed agent left earlier): TERM, then KILL.
mapfile -t left < <(marked)
if ((${#left[@]})); then
	echo "nomad-dev-stop: stopping ${#left[@]} processes the agent left: ${left[*]}" >&2
	kill -TERM "${left[@]}" 2>/dev/null || true
	for _ in $(seq 1 20); do
		mapfile -t left < <(marked)
		((${#left[@]})) || break
		sleep 0.25
	done
	if ((${#left[@]})); then kill -KILL "${left[@]}" 2>/dev/null || true; fi
	sleep 0.5
	mapfile -t left < <(marked)
fi

# The agent unmounts its tasks' secrets dirs when it stops cleanly; after a
# SIGKILL they stay mounted: unmount what is left under its data dir.
data=$(cat "$dev/data_dir" 2>/dev/null || echo "$dev/data")
awk -v d="$data/" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r |
	while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
if ((${#left[@]})); then
	echo "nomad-dev-stop: processes survive SIGKILL: ${left[*]}" >&2
	exit 1
fi
echo "nomad-dev-stop: stopped ${pid:-nothing (no agent started)}; no process of it is left"
