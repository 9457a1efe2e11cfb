# The stop wrapper of a Nomad task that is not restarted in place
# (jobshift): runs the task's command ("$@") in its own process group and
# passes a stop on to the whole group, so every task ends as a pod does:
# SIGTERM, the grace period (kill_timeout) for a checkpoint, then SIGKILL.
# Without it Nomad signals only the task's top process (raw_exec, exec):
# a shell there (bash -c "a; b", sh -c "...") dies of SIGTERM at once, and
# Nomad then SIGKILLs what is left, the user's process without its
# SIGTERM (found by the fault suite, integration/faults). The restart loop
# (restart-loop.sh) does the same for the tasks it restarts.
# (No "--" before a negative PID: dash's kill takes none.)
# Its own variables start with _g_ (reserved): the job's variables reach
# the command unchanged (TestWrappersKeepJobVariables).
_g_stop=0
_g_child=
_g_setsid=
command -v setsid >/dev/null 2>&1 && _g_setsid=setsid
trap '_g_stop=1; [ -n "$_g_child" ] && { kill -TERM "-$_g_child" 2>/dev/null || kill -TERM "$_g_child" 2>/dev/null; }' TERM INT
$_g_setsid "$@" &
_g_child=$!
# a stop that came before $_g_child was known found no child to signal
[ "$_g_stop" = 1 ] && { kill -TERM "-$_g_child" 2>/dev/null || kill -TERM "$_g_child" 2>/dev/null; }
wait "$_g_child"
_g_rc=$?
# a trapped signal ends wait early: wait again for the command's own end
while kill -0 "$_g_child" 2>/dev/null; do
	wait "$_g_child"
	_g_rc=$?
done
if [ "$_g_stop" = 1 ]; then
	# the rest of the group finishes its checkpoint (kill_timeout bounds
	# the wait: then Nomad kills every process)
	while kill -0 "-$_g_child" 2>/dev/null; do sleep 0.1; done
fi
exit "$_g_rc"
