#!/bin/bash
# Stop what slurm-up.sh started, by PID file only: slurmd first, then slurmctld, slurmdbd,
# mariadbd, and munged only if slurm-up.sh started it (it leaves $D/run/munged.pid then).
# A daemon that ignores SIGTERM for 10 s gets SIGKILL (slurmd retrying registration does).
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
for f in "$D"/run/slurmd-*.pid; do stop "$f"; done
stop "$D/run/slurmctld.pid"
stop "$D/run/slurmdbd.pid"
stop "$D/mysql/mariadbd.pid"
stop "$D/run/munged.pid"
echo "slurm-down: down ($D)"
