#!/usr/bin/env bash
# Runs Go fuzz targets one after another, each until its fuzzing processes
# (the test binary's coordinator and workers, not the build) have used a given
# amount of CPU time, and prints one summary line per target: CPU seconds,
# wall seconds, executions, new interesting inputs, and the verdict.
#
# -fuzztime is wall time, which on a shared 2-core machine says little about
# how much fuzzing was done; CPU time does.
#
# Usage: scripts/fuzz.sh CPU_MINUTES PKG:TARGET...
#   e.g. scripts/fuzz.sh 30 ./jobs/pai:FuzzReadV1 ./jobs/kubeflow:FuzzRead
# Environment: FUZZ_PARALLEL (workers per target, default 1), FUZZ_LOG_DIR
# (default /tmp/jobshift-fuzz). A crasher is written by go test under the
# package's testdata/fuzz/ as usual and makes the script exit 1.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
minutes=${1:?usage: fuzz.sh CPU_MINUTES PKG:TARGET...}
shift
parallel=${FUZZ_PARALLEL:-1}
logs=${FUZZ_LOG_DIR:-/tmp/jobshift-fuzz}
mkdir -p "$logs"
budget=$((minutes * 60))
hz=$(getconf CLK_TCK)

# cpu_seconds PGID: user+system time of the group's test binaries, including
# workers already reaped (cutime/cstime of their parent).
cpu_seconds() {
	local pg=$1 ticks=0 f stat rest comm arg0
	for f in /proc/[0-9]*/stat; do
		stat=$(cat "$f" 2>/dev/null) || continue
		comm=${stat#*(}
		comm=${comm%%)*}
		if [[ $comm != *.test ]]; then
			# the kernel keeps 15 characters of the name (contracttmpl.test
			# is "contracttmpl.te"): then the program's own argv[0] says
			((${#comm} == 15)) || continue
			IFS= read -r -d '' arg0 <"${f%/stat}/cmdline" 2>/dev/null
			[[ $arg0 == *.test ]] || continue
		fi
		rest=${stat##*) }
		# shellcheck disable=SC2086
		set -- $rest
		# after the comm: state ppid pgrp ... utime is field 14 of the full line (12th here)
		[[ ${3} == "$pg" ]] || continue
		ticks=$((ticks + ${12} + ${13} + ${14} + ${15}))
	done
	echo $((ticks / hz))
}

status=0
for spec in "$@"; do
	pkg=${spec%%:*}
	target=${spec##*:}
	log="$logs/${target}-$(basename "$pkg").log"
	# a nested module (integration/contracttmpl) is fuzzed from its own directory
	dir=.
	if [[ $pkg != . && -f $pkg/go.mod ]]; then
		dir=$pkg
		pkg=.
	fi
	pushd "$dir" >/dev/null || exit 1
	# build first so that compile time is not charged to the fuzzing budget
	go test -c -o /dev/null "$pkg" >/dev/null 2>&1 || true
	start=$(date +%s)
	setsid go test -run '^$' -fuzz "^${target}\$" -parallel "$parallel" -fuzztime 24h "$pkg" >"$log" 2>&1 &
	leader=$!
	used=0
	while kill -0 "$leader" 2>/dev/null; do
		sleep 5
		used=$(cpu_seconds "$leader")
		if ((used >= budget)); then
			kill -INT -- "-$leader" 2>/dev/null
			break
		fi
	done
	wait "$leader"
	rc=$?
	wall=$(($(date +%s) - start))
	popd >/dev/null || exit 1
	last=$(grep -E '^fuzz: elapsed' "$log" | tail -1)
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	interesting=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	verdict=ok
	if grep -qE '^--- FAIL|Failing input written' "$log"; then
		verdict=CRASHER
		status=1
	elif ((used < budget)); then
		verdict="stopped early (rc $rc)"
		status=1
	fi
	[[ $dir != . ]] && pkg=$dir
	printf '%s %s cpu=%ss wall=%ss execs=%s new=%s %s\n' "$pkg" "$target" "$used" "$wall" "${execs:-?}" "${interesting:-?}" "$verdict"
done
exit "$status"
