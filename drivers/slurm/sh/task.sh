# The task program, in the file task.sh of the attempt's state directory.
# srun starts it for every task of role R as
#   sh -c '. "$_jsh_adir/task.sh"' jobshift-task R
# Stage 1 (jobshift-task, the supervisor) checks the task landed where the
# layout says, removes jobshift's own variables, exports the role's
# environment and forks a subshell per run (js_start): it sources the
# contract's task stage (translate/contract.ShellStages, -f), which exports
# the platform's variables and calls js_then, which runs stage 2 (js_run)
# in that same subshell; js_run execs the user command the way its source
# platform ran it. One sh per task, the user's command its child: no
# process starts between them. Stage 1 then records the command's own exit
# code (srun's aggregate code cannot tell which task failed, spec/slurm.md
# §6).

js_task_main() {
	_k_r=$1
	_k_i=${SLURM_PROCID:?jobshift: not started by srun}
	_k_dir=$_jsh_adir
	_k_rcf=$_k_dir/rc.$_k_r.$_k_i
	js_enter "$_k_rcf"
	# the task's start: the file's mtime, written by a builtin (a date
	# fork here would delay every task's command); the first run's start
	# is read back from it after the run (js_first_t0)
	_k_sf=$_k_dir/started.$_k_r.$_k_i
	: >"$_k_sf"
	# a task stopped by the batch script (SIGTERM through srun) is never
	# restarted; the user command gets the signal from Slurm itself
	_k_stop=0
	trap '_k_stop=1; [ -n "${_s_pid:-}" ] && kill -KILL "$_s_pid" 2>/dev/null' TERM INT
	# UAI Train nodes also run a parameter server: the same command with
	# the ps process's TF_CONFIG, beside the training task, until the verdict
	_k_ps=
	if [ "$_t_uai_ps" = 1 ]; then
		(
			JS_SELF_PROCESS='ps'
			export JS_SELF_PROCESS
			js_start
		) &
		_k_ps=$!
	fi
	_k_streak=0
	_k_hit=0
	_k_t0=
	# A task that runs once starts no process of its own after its command:
	# its start and end are the mtimes of started.R.I and rc.R.I. Only a
	# task that restarts reads the clock (date), for the back-off, and logs
	# every run's start and end (ms) in runs.R.I, its last run included.
	# (Forks here cost the tasks of the job still starting: on a node of
	# 2 cores, 64 tasks' date, date -r and mv were ~10 ms of CPU each.)
	while :; do
		(js_start)
		_k_rc=$?
		# a TERM that came while the command ran has run the trap by now
		_k_hit=$_k_stop
		# the batch script marks a role stopped before signalling it: the
		# command may die of the signal before this shell's trap has run
		[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
		[ "$_k_stop" = 1 ] && break
		js_restart "$_k_r" "$_k_rc" "$_k_dir" "$_k_i" || break
		_k_t1=$(js_now_ms)
		[ -n "$_k_t0" ] || _k_t0=$(js_first_t0 "$_k_sf" "$_k_t1")
		echo "$_k_t0 $_k_t1 $_k_rc" >>"$_k_dir/runs.$_k_r.$_k_i"
		js_backoff "$_k_streak" $((_k_t1 - _k_t0))
		_k_streak=$_b_streak
		js_vdelay "$_k_r" "$_k_rc"
		printf 'jobshift: task %s-%s exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\n' "$_k_r" "$_k_i" "$_k_rc" "$_b_wait" >&2
		echo "$_k_rc" >>"$_k_dir/restarted.$_k_r.$_k_i"
		if [ "$_b_wait" -gt 0 ]; then
			js_sleep_ms "$_b_wait"
			[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
			[ "$_k_stop" = 1 ] && break
		fi
		_k_t0=$(js_now_ms)
	done
	[ -n "$_k_t0" ] && echo "$_k_t0 $(js_now_ms) $_k_rc" >>"$_k_dir/runs.$_k_r.$_k_i"
	# written in place, not renamed (mv is a process): its readers take an
	# empty file for one still being written (js_collect, watch.go)
	echo "$_k_rc" >"$_k_rcf"
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
		# Only a command the stop reached (the trap ran while it did, or
		# it died of a signal) or a parameter server can have left
		# processes finishing their work. A command that had ended by
		# itself ended its container on the platform, and with it what it
		# left: no grace to give, and no pgrep per task when a verdict
		# stops a role whose tasks are done.
		if [ "$_k_hit" = 1 ] || [ "$_k_rc" -gt 128 ] || [ -n "$_k_ps" ]; then
			js_wait_group 30
		fi
		# die of the signal, so Slurm reports the step CANCELLED, not FAILED
		trap - TERM INT
		kill -TERM $$
	fi
	exit "$_k_rc"
}

# js_start runs once per run in a subshell of stage 1 (forked, never
# exec'd: the child is this shell, its traps reset to the default by the
# subshell as an exec would): the contract's task stage, sourced, exports
# the platform's variables and calls js_then. Files, not arguments: one
# argument is at most 128 KiB. A fresh sh (the former stage 2) started with
# the default IFS whatever the job's environment set: so does this one
# (kept exported if the job exported it, as that sh did).
js_start() {
	IFS=' 	
'
	set -- -f js_then
	# shellcheck source=/dev/null
	. "$_k_dir/contract-task.sh"
}

# js_then [NAME=VALUE...]: called by the contract's task stage with the
# platform's variables set: stage 2 (js_run) in this same shell. Names only
# env can place (PAI v1 role names with '.' or '~') need env, and after it
# a fresh sh for stage 2 (dispatch.sh, jobshift-run).
js_then() {
	if [ "$#" -gt 0 ]; then
		# the fresh sh expands $2 itself
		# shellcheck disable=SC2016
		exec env -- "$@" /bin/sh -c '. "$2/task.sh"' jobshift-run "$_k_r" "$_k_dir"
	fi
	js_run "$_k_r" "$_k_dir"
}

# js_first_t0 FILE T1: the first run's start (ms), the mtime of the start
# stamp FILE, read after the run so no fork delays its command; T1 where
# date cannot read it (no -r or no %N).
js_first_t0() {
	_f_ns=$(date -r "$1" +%s%N 2>/dev/null)
	case $_f_ns in
	'' | *[!0-9]*) echo "$2" ;;
	*) echo $((_f_ns / 1000000)) ;;
	esac
}

# js_wait_group SECS: wait (at most SECS, Kubernetes' default grace period)
# until no other process of this task's process group is left. Slurm signals
# every process of the step; a shell between this one and the user's
# process (sh -c "...") dies of SIGTERM at once, but the user's process may
# still be writing its checkpoint, and this task's end would make slurmstepd
# SIGKILL it. Found by the fault suite (integration/faults, the deadline).
#
# One process per look (pgrep; the file is read with read, and left for the
# batch script to remove): a job's verdict stops every task at once, and
# the tasks of a large job still starting share the node with these looks.
js_wait_group() {
	command -v pgrep >/dev/null 2>&1 || return 0
	_g_f=$_k_dir/group.$_k_r.$_k_i
	_g_k=0
	while [ "$_g_k" -lt $(($1 * 10)) ]; do
		# pgrep lists neither itself nor, written to a file, a subshell
		pgrep -g $$ >"$_g_f" 2>/dev/null
		_g_a=
		_g_b=
		{ read -r _g_a && read -r _g_b; } <"$_g_f"
		# this shell alone (or pgrep could not tell)
		if [ -z "$_g_b" ] && { [ "$_g_a" = "$$" ] || [ -z "$_g_a" ]; }; then break; fi
		sleep 0.1
		_g_k=$((_g_k + 1))
	done
}
