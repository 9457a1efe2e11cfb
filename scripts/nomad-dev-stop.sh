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
echo "nomad-dev-stop: stopped $pid"
