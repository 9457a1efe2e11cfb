#!/bin/sh
# The fault suite's task: writes its own start and end records, so the suite
# checks from the tasks themselves which ran where, when, and whether two
# attempts overlapped.
#
#   sh task.sh RECDIR ROLE INDEX SECONDS [MODE]
#
# One record file per process: RECDIR/ROLE-INDEX.HOST.PID, lines
#   start NS HOST PID ATTEMPT JOB
#   beat  (the file's mtime, touched every second: a SIGKILLed task's end)
#   term NS SIGNAL   (SIGTERM/SIGINT received: the checkpoint starts)
#   ckpt NS          (the checkpoint is written, 1 s later)
#   end NS RC
# SECONDS < 0 runs until stopped (a parameter server). MODE fail-once: exit 1
# in the first attempt (jobshift's or Slurm's attempt counter).
set -u
dir=$1 role=$2 idx=$3 secs=$4 mode=${5:-}
# The cluster host is the task's network namespace (scripts/cluster.sh names
# each host's namespace after it); hostname is the task's view (its platform's
# host name, e.g. worker-1), not the machine it runs on.
host=$(ip netns identify $$ 2>/dev/null) || host=
[ -n "$host" ] || host=$(hostname)
attempt=${SLURM_RESTART_COUNT:-${NOMAD_META_jobshift_attempt:-0}}
rec=$dir/$role-$idx.$host.$$
now() { date +%s%N; }
job=${SLURM_JOB_ID:-${NOMAD_JOB_ID:-}}
echo "start $(now) $host $$ $attempt $job" >>"$rec"
# shellcheck disable=SC2317 # called from the traps
stop() {
	echo "term $(now) $1" >>"$rec"
	sleep 1 # the checkpoint
	echo "ckpt $(now)" >>"$rec"
	echo "end $(now) $2" >>"$rec"
	exit "$2"
}
trap 'stop TERM 143' TERM
trap 'stop INT 130' INT
if [ "$mode" = fail-once ] && [ "$attempt" = 0 ]; then
	sleep 2
	echo "end $(now) 1" >>"$rec"
	exit 1
fi
i=0
while [ "$secs" -lt 0 ] || [ "$i" -lt "$secs" ]; do
	# in the background and waited for: a trap runs at once, not after sleep
	sleep 1 &
	wait $!
	touch "$rec"
	i=$((i + 1))
done
echo "end $(now) 0" >>"$rec"
exit 0
