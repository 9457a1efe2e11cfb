#!/bin/bash
# Stop what slurm-up.sh started, by PID file only: slurmd first, then slurmctld, slurmdbd,
# mariadbd, and munged only if slurm-up.sh started it (it leaves $D/run/munged.pid then).
# A daemon that ignores SIGTERM for 10 s gets SIGKILL (slurmd retrying registration does).
# Jobs are cancelled first, and any slurmstepd of this cluster still alive afterwards is
# killed with its tasks, so nothing the cluster started is left. Exits 1 when one survives.
set -u
D=${D:-/tmp/jobshift-slurm}
stop() {
	local f=$1 p
	[[ -f $f ]] || return 0
	p=$(cat "$f")
	[[ $p =~ ^[0-9]+$ ]] || return 0
	kill "$p" 2>/dev/null || { rm -f "$f"; return 0; }
	for _ in $(seq 1 100); do
		if ! kill -0 "$p" 2>/dev/null || [[ $(ps -o stat= -p "$p") == Z* ]]; then rm -f "$f"; return 0; fi
		sleep 0.1
	done
	echo "slurm-down: SIGKILL $p ($f)"
	kill -9 "$p" 2>/dev/null
	rm -f "$f"
}
# stepds: this cluster's slurmstepd processes (their environment names its
# SLURM_CONF; another cluster's name another, a user's shell is no slurmstepd).
stepds() {
	local e p
	grep -lzxF "SLURM_CONF=$D/etc/slurm.conf" /proc/[0-9]*/environ 2>/dev/null | while read -r e; do
		p=${e#/proc/}
		p=${p%/environ}
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == slurmstepd ]] && echo "$p"
	done
	return 0
}
# tree PID: PID and all its descendants.
tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree "$c"; done
}
# Jobs first, while slurmctld can still end them: a slurmstepd and its tasks
# outlive slurmd, so stopping the daemons alone left them running.
export SLURM_CONF=$D/etc/slurm.conf
if [[ -f $D/run/slurmctld.pid ]] && scontrol ping >/dev/null 2>&1; then
	ids=$(squeue -h -o %A 2>/dev/null || true)
	if [[ -n $ids ]]; then
		# shellcheck disable=SC2086
		scancel $ids 2>/dev/null || true
		for _ in $(seq 1 150); do
			[[ -z $(stepds) ]] && break
			sleep 0.2
		done
	fi
fi
for f in "$D"/run/slurmd-*.pid; do stop "$f"; done
stop "$D/run/slurmctld.pid"
stop "$D/run/slurmdbd.pid"
stop "$D/mysql/mariadbd.pid"
stop "$D/run/munged.pid"
# Whatever still runs under one of this cluster's slurmstepds: KILL it, tasks first.
mapfile -t left < <(for p in $(stepds); do tree "$p"; done)
if ((${#left[@]})); then
	echo "slurm-down: killing ${#left[@]} processes of steps that outlived the cluster: ${left[*]}" >&2
	kill -KILL "${left[@]}" 2>/dev/null || true
	sleep 0.5
	mapfile -t left < <(stepds)
	if ((${#left[@]})); then
		echo "slurm-down: slurmstepd processes survive SIGKILL: ${left[*]}" >&2
		exit 1
	fi
fi
echo "slurm-down: down ($D)"
