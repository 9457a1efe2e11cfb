# In-place task restarts on Nomad (jobshift): runs the task's command ("$@")
# and, when it ends, restarts it in place as its source platform would
# (js_restart = completion.TaskRestartDecision) after the kubelet's
# back-off (js_backoff = completion.Backoff). Nomad's own restart block has
# only a constant delay, and its exponential delay_function is for
# rescheduling (a new allocation, new ports), so the loop lives in the task.
#
# Data (rendered before this text): completion.RestartShellData, and
# _t_role, the role's index. Counted restarts and every run's start/end
# (milliseconds) and exit code are kept in the task directory.
# Its own variables start with _k_ (reserved; the restart library's with
# _<letters>_): the job's variables reach the command unchanged
# (TestWrappersKeepJobVariables).

_k_stop=0
_k_child=
# A stop (Nomad's kill_signal) is passed on as SIGTERM, as the kubelet
# stops a container; the command is never restarted after it. The command
# runs in its own process group (setsid: dash has no job control without a
# terminal) and the whole group gets the signal: Nomad signals only this
# shell, and a shell between it and the user's process (sh -c "...") would
# die of SIGTERM at once, after which Nomad kills what is left, the user's
# process in its checkpoint (found by the fault suite, integration/faults).
# (No "--" before a negative PID: dash's kill takes none.)
_k_setsid=
command -v setsid >/dev/null 2>&1 && _k_setsid=setsid
trap '_k_stop=1; [ -n "$_k_child" ] && { kill -TERM "-$_k_child" 2>/dev/null || kill -TERM "$_k_child" 2>/dev/null; }; [ -n "$_s_pid" ] && kill -KILL "$_s_pid" 2>/dev/null' TERM INT
# (no dollar-brace in this text: it travels in the task's args, restart.go)
_k_dir=$NOMAD_TASK_DIR
[ -n "$_k_dir" ] || _k_dir=.
_k_i=$NOMAD_ALLOC_INDEX
[ -n "$_k_i" ] || _k_i=0
_k_streak=0
_k_rc=0
# Volcano: a RestartPod or RestartTask policy's restart counts in the job's
# one RetryCount (completion.VolcanoRetryCount), which the watcher carries
# across attempts in the job's meta (jobshift_retries): this task's count
# starts there. Each such restart is recorded, one line in the task
# directory's jobshift-vrestarts (the end of the run that failed, in ms;
# pod for a RestartPod, task for a RestartTask; its exit code; the wait
# before the next run, in ms), which the watcher polls while the attempt
# runs: it holds the job-wide RetryCount and restarts the task's other pods
# for a RestartTask (vrestarts.go). The line printed to stderr is the
# fallback where the watcher may not read the task's files.
if [ "$_t_kind" = volcano ] && [ ! -f "$_k_dir/restarts.job" ]; then
	_k_rc0=$NOMAD_META_jobshift_retries
	case $_k_rc0 in '' | *[!0-9]*) _k_rc0=0 ;; esac
	echo "$_k_rc0" >"$_k_dir/restarts.job"
fi
while :; do
	_k_t0=$(js_now_ms)
	$_k_setsid "$@" &
	_k_child=$!
	# a stop that came before $_k_child was known found no child to signal
	[ "$_k_stop" = 1 ] && { kill -TERM "-$_k_child" 2>/dev/null || kill -TERM "$_k_child" 2>/dev/null; }
	wait "$_k_child"
	_k_rc=$?
	# a trapped signal ends wait early: wait again for the command's own end
	while kill -0 "$_k_child" 2>/dev/null; do
		wait "$_k_child"
		_k_rc=$?
	done
	if [ "$_k_stop" = 1 ]; then
		# the rest of the group finishes its checkpoint (Nomad's
		# kill_timeout bounds the wait: then it kills every process)
		while kill -0 "-$_k_child" 2>/dev/null; do sleep 0.1; done
	fi
	_k_child=
	_k_t1=$(js_now_ms)
	echo "$_k_t0 $_k_t1 $_k_rc" >>"$_k_dir/jobshift-runs"
	[ "$_k_stop" = 1 ] && break
	js_restart "$_t_role" "$_k_rc" "$_k_dir" "$_k_i" || break
	js_backoff "$_k_streak" $((_k_t1 - _k_t0))
	_k_streak=$_b_streak
	js_vdelay "$_t_role" "$_k_rc"
	if [ "$_t_kind" = volcano ] && [ "$_r_vpol" = 1 ]; then
		_k_vt=pod
		[ "$_r_vtask" = 1 ] && _k_vt=task
		echo "$_k_t1 $_k_vt $_k_rc $_b_wait" >>"$_k_dir/jobshift-vrestarts"
		echo 'jobshift: Volcano RetryCount +1 (a RestartPod or RestartTask policy restarts the task in place)' >&2
	fi
	printf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\n' "$_k_rc" "$_b_wait" >&2
	if [ "$_b_wait" -gt 0 ]; then
		js_sleep_ms "$_b_wait"
		[ "$_k_stop" = 1 ] && break
	fi
done
exit "$_k_rc"
