# The start of a task whose environment comes from the topology snapshot
# as a file for sh to source (contract.NomadSnapshotShell), where the env
# template (env = true) would hold the task in Nomad's template hook until
# the snapshot exists: that template never waits, so Nomad starts the task
# (its executor, most of a start's cost) while the snapshot is still to
# come, and this waits for the file to be whole, sources it and runs the
# task's command ("$@") with that environment.
# No polling: when the snapshot Variable appears the file is rendered again
# and the template's change script (envWakeArg) writes a line into the FIFO
# read here; a rendering that came before the FIFO was open is seen by the
# check that follows the open. The FIFO is opened read-write, so neither
# side's open waits for the other.
# (No "${" in this text: Nomad interpolates a task's args.)
# Its own variables start with _jsh_ (reserved) and are unset before the
# command runs.
unset _jsh_env_ready
[ -p "$NOMAD_TASK_DIR/jobshift.env.wake" ] || mkfifo -m 600 "$NOMAD_TASK_DIR/jobshift.env.wake" || exit 1
exec 3<>"$NOMAD_TASK_DIR/jobshift.env.wake"
while :; do
	# shellcheck source=/dev/null
	. "$NOMAD_TASK_DIR/jobshift.env.sh"
	# set by the file once whole (contract.ShellReady)
	# shellcheck disable=SC2154
	[ "$_jsh_env_ready" = 1 ] && break
	read -r _jsh_env_wake <&3
done
exec 3<&-
unset _jsh_env_ready _jsh_env_wake
exec "$@"
