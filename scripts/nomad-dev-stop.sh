#!/usr/bin/env bash
# Stop the dev agent started by nomad-dev-start.sh: only the PID in its PID file.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dev=${JOBSHIFT_CACHE:-$repo/.cache}/nomad/dev
pidf=$dev/nomad.pid
[[ -f $pidf ]] || { echo "nomad-dev-stop: no agent started (no $pidf)"; exit 0; }
pid=$(cat "$pidf")
if kill -0 "$pid" 2>/dev/null; then
	# SIGINT: the dev agent leaves gracefully and stops its tasks.
	kill -INT "$pid"
	for _ in $(seq 1 60); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
fi
rm -f "$pidf"
# The agent unmounts its tasks' secrets dirs when it stops cleanly; after a
# SIGKILL they stay mounted: unmount what is left under its data dir.
data=$dev/data
if (( ${#data} > 40 )); then data=${TMPDIR:-/tmp}/jobshift-nomad-$(id -u); fi
awk -v d="$data/" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r |
	while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
echo "nomad-dev-stop: stopped $pid"
