# The task program, in the file task.sh of the attempt's state directory.
# srun starts it for every task of role R as
#   sh -c '. "$_jsh_adir/task.sh"' jobshift-task R
# Stage 1 (jobshift-task) checks the task landed where the layout says,
# removes jobshift's own variables, exports the role's environment, and runs
# the contract script (translate/contract.Shell) as a child; the contract
# exports the platform's variables and execs stage 2 (jobshift-run), which
# execs the user command the way its source platform ran it. Stage 1 then
# records the command's own exit code (srun's aggregate code cannot tell
# which task failed, spec/slurm.md §6).

js_task_main() {
	_k_r=$1
	_k_i=${SLURM_PROCID:?jobshift: not started by srun}
	_k_dir=$_jsh_adir
	_k_rcf=$_k_dir/rc.$_k_r.$_k_i
	eval "_k_want=\${_jsh_node_${_k_r}_$_k_i:-}"
	if [ "$_k_want" != "${SLURMD_NODENAME:-}" ]; then
		printf 'jobshift: task %s-%s runs on node %s but the layout puts it on %s; not starting it\n' \
			"$_k_r" "$_k_i" "${SLURMD_NODENAME:-?}" "$_k_want" >&2
		echo 97 >"$_k_rcf"
		exit 97
	fi
	js_unset_internal
	JS_SELF_ROLE=$_k_r
	JS_SELF_INDEX=$_k_i
	export JS_SELF_ROLE JS_SELF_INDEX
	"js_env_$_k_r"
	date +%s%N >"$_k_dir/started.$_k_r.$_k_i"
	# a task stopped by the batch script (SIGTERM through srun) is never
	# restarted; the user command gets the signal from Slurm itself
	_k_stop=0
	trap '_k_stop=1; [ -n "${_s_pid:-}" ] && kill "$_s_pid" 2>/dev/null' TERM INT
	# UAI Train nodes also run a parameter server: the same command with
	# the ps process's TF_CONFIG, beside the training task, until the verdict
	_k_ps=
	if [ "$_t_uai_ps" = 1 ]; then
		(
			JS_SELF_PROCESS='ps'
			export JS_SELF_PROCESS
			exec /bin/sh "$_k_dir/contract.sh" /bin/sh -c '. "$2/task.sh"' jobshift-run "$_k_r" "$_k_dir"
		) &
		_k_ps=$!
	fi
	_k_streak=0
	while :; do
		_k_t0=$(js_now_ms)
		# files, not arguments: one argument is at most 128 KiB
		/bin/sh "$_k_dir/contract.sh" /bin/sh -c '. "$2/task.sh"' jobshift-run "$_k_r" "$_k_dir"
		_k_rc=$?
		_k_t1=$(js_now_ms)
		# every run's start and end (ms), for the back-off tests and logs
		echo "$_k_t0 $_k_t1 $_k_rc" >>"$_k_dir/runs.$_k_r.$_k_i"
		# the batch script marks a role stopped before signalling it: the
		# command may die of the signal before this shell's trap has run
		[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
		[ "$_k_stop" = 1 ] && break
		js_restart "$_k_r" "$_k_rc" "$_k_dir" "$_k_i" || break
		js_backoff "$_k_streak" $((_k_t1 - _k_t0))
		_k_streak=$_b_streak
		printf 'jobshift: task %s-%s exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\n' "$_k_r" "$_k_i" "$_k_rc" "$_b_wait" >&2
		echo "$_k_rc" >>"$_k_dir/restarted.$_k_r.$_k_i"
		if [ "$_b_wait" -gt 0 ]; then
			js_sleep_ms "$_b_wait"
			[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
			[ "$_k_stop" = 1 ] && break
		fi
	done
	echo "$_k_rc" >"$_k_rcf.tmp" && mv "$_k_rcf.tmp" "$_k_rcf"
	if [ -n "$_k_ps" ]; then
		# UAI cleans up only after every worker has ended: the node's
		# parameter server serves the slower training tasks until the
		# batch script stops this step at the verdict (or it ends by
		# itself, which decides nothing)
		while [ "$_k_stop" = 0 ] && kill -0 "$_k_ps" 2>/dev/null; do
			wait "$_k_ps"
			[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
		done
		kill -TERM "$_k_ps" 2>/dev/null
	fi
	if [ "$_k_stop" = 1 ]; then
		js_wait_group 30
		# die of the signal, so Slurm reports the step CANCELLED, not FAILED
		trap - TERM INT
		kill -TERM $$
	fi
	exit "$_k_rc"
}

# js_wait_group SECS: wait (at most SECS, Kubernetes' default grace period)
# until no other process of this task's process group is left. Slurm signals
# every process of the step; a shell between this one and the user's
# process (sh -c "...") dies of SIGTERM at once, but the user's process may
# still be writing its checkpoint, and this task's end would make slurmstepd
# SIGKILL it. Found by the fault suite (integration/faults, the deadline).
js_wait_group() {
	command -v pgrep >/dev/null 2>&1 || return 0
	_g_k=0
	while [ "$_g_k" -lt $(($1 * 10)) ]; do
		# pgrep lists neither itself nor, written to a file, a subshell
		pgrep -g $$ >"$_k_dir/group.$_k_r.$_k_i" 2>/dev/null
		grep -qvx "$$" "$_k_dir/group.$_k_r.$_k_i" || break
		sleep 0.1
		_g_k=$((_g_k + 1))
	done
	rm -f "$_k_dir/group.$_k_r.$_k_i"
}
