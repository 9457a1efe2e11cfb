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
	# a role with a Volcano RestartTask policy restarts with its tasks
	# (js_vt_watch): only its tasks run the watcher, when it has several
	_k_vt=0
	_k_vw=
	eval "_k_vp=\${_t_vp_$_k_r:-} _k_vn=\${_t_n_$_k_r:-1}"
	case $_k_vp in *t*) [ "$_k_vn" -gt 1 ] && _k_vt=1 ;; esac
	if [ "$_k_vt" = 1 ]; then
		# the watcher's SIGUSR1 ends a back-off: the task restarts now
		trap '[ -n "${_s_pid:-}" ] && kill -KILL "$_s_pid" 2>/dev/null' USR1
		js_vt_watch &
		_k_vw=$!
	fi
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
		[ "$_k_vt" = 1 ] && : >"$_k_dir/vkill.$_k_r.$_k_i"
		(js_start)
		_k_rc=$?
		if [ "$_k_vt" = 1 ]; then
			# the run's pid, gone now: the watcher signals no other
			_k_vrun=
			[ -f "$_k_dir/vpid.$_k_r.$_k_i" ] && read -r _k_vrun <"$_k_dir/vpid.$_k_r.$_k_i"
			: >"$_k_dir/vpid.$_k_r.$_k_i"
		fi
		# a TERM that came while the command ran has run the trap by now
		_k_hit=$_k_stop
		# the batch script marks a role stopped before signalling it: the
		# command may die of the signal before this shell's trap has run
		[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
		[ "$_k_stop" = 1 ] && break
		# _k_sib: the watcher stopped this run for another task's
		# RestartTask: no end of the task's own, nothing to count
		_k_sib=0
		if [ "$_k_vt" = 1 ]; then
			js_vt_marked "$_k_vrun" && _k_sib=1
			# a mark made before the run's pid was known is stale
			: >"$_k_dir/vkill.$_k_r.$_k_i"
		fi
		if [ "$_k_sib" = 0 ]; then
			js_restart "$_k_r" "$_k_rc" "$_k_dir" "$_k_i" || break
		fi
		_k_t1=$(js_now_ms)
		[ -n "$_k_t0" ] || _k_t0=$(js_first_t0 "$_k_sf" "$_k_t1")
		echo "$_k_t0 $_k_t1 $_k_rc" >>"$_k_dir/runs.$_k_r.$_k_i"
		if [ "$_k_sib" = 1 ]; then
			# a new pod: no back-off, and its streak starts over
			_k_streak=0
			_b_wait=0
			printf 'jobshift: task %s-%s exited with %s, stopped by the RestartTask of its task; restarting it in place\n' "$_k_r" "$_k_i" "$_k_rc" >&2
		else
			js_backoff "$_k_streak" $((_k_t1 - _k_t0))
			_k_streak=$_b_streak
			js_vdelay "$_k_r" "$_k_rc"
			printf 'jobshift: task %s-%s exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\n' "$_k_r" "$_k_i" "$_k_rc" "$_b_wait" >&2
		fi
		echo "$_k_rc" >>"$_k_dir/restarted.$_k_r.$_k_i"
		# (a back-off the watcher's mark came before is over already)
		if [ "$_b_wait" -gt 0 ] && ! { [ "$_k_vt" = 1 ] && js_vt_marked -; }; then
			js_sleep_ms "$_b_wait"
			[ -f "$_k_dir/stopped.$_k_r" ] && _k_stop=1
			[ "$_k_stop" = 1 ] && break
		fi
		if [ "$_k_vt" = 1 ] && [ "$_k_sib" = 0 ]; then
			if js_vt_marked -; then
				# another task's RestartTask restarted the task during
				# its back-off: a new pod, and this restart is that one
				_k_streak=0
			elif [ "${_r_vtask:-0}" = 1 ]; then
				js_vt_bump
			fi
		fi
		_k_t0=$(js_now_ms)
	done
	if [ -n "$_k_vw" ]; then
		kill -TERM "$_k_vw" 2>/dev/null
		wait "$_k_vw"
	fi
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
	# this subshell's pid, the command's after exec (js_vt_watch)
	if [ "$_k_vt" = 1 ]; then
		read -r _k_vpid _k_x 2>/dev/null </proc/self/stat && echo "$_k_vpid" >"$_k_dir/vpid.$_k_r.$_k_i"
	fi
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

# A role with a Volcano RestartTask policy (a t in its _t_vp_R,
# restart.sh): when the policy restarts one of its tasks in place, every
# other task of the role that has not ended restarts too, uncounted
# (Volcano's killPods with TargetTypeTask, job_controller_actions.go
# @v1.16.0-alpha.1; the rule and its deviations are
# translate/completion/machine_vtask.go's). The tasks run on several
# nodes and share the attempt's directory: the restarted task bumps the
# role's generation, vgen.R ("GEN I", js_vt_bump), as it starts again;
# beside each task's loop a watcher (js_vt_watch: one process per task of
# such a role, none for other jobs) sees the change and stops the
# task's command (js_vt_stop) after writing vkill.R.I, which tells the
# loop that the end was no end of the task's own. The command shares its
# process group with this shell (and, on one node, with the step's other
# tasks), so the watcher signals the command's process tree, not a
# group.

# js_vt_bump: the next generation of role $_k_r, bumped by task $_k_i,
# under js_lock; readers take an empty file for one
# being written.
js_vt_bump() {
	js_lock "$_k_dir/vgen.$_k_r"
	_l_g=0
	[ -f "$_k_dir/vgen.$_k_r" ] && read -r _l_g _l_by <"$_k_dir/vgen.$_k_r"
	echo "$((${_l_g:-0} + 1)) $_k_i" >"$_k_dir/vgen.$_k_r"
	js_unlock "$_k_dir/vgen.$_k_r"
}

# js_vt_watch, in the background of stage 1: every half second, the
# role's generation; a change another task made stops this task's
# command. SIGTERM ends it (stage 1, at the task's end; Slurm's stop).
js_vt_watch() {
	_y_f=$_k_dir/vgen.$_k_r
	_y_last=
	[ -f "$_y_f" ] && read -r _y_last _y_by <"$_y_f"
	_y_s=
	trap '[ -n "$_y_s" ] && kill -KILL "$_y_s" 2>/dev/null; exit 0' TERM
	while :; do
		sleep 0.5 &
		_y_s=$!
		wait "$_y_s"
		_y_s=
		_y_g=
		[ -f "$_y_f" ] && read -r _y_g _y_by <"$_y_f"
		if [ -z "$_y_g" ] || [ "$_y_g" = "$_y_last" ]; then continue; fi
		_y_last=$_y_g
		[ "$_y_by" = "$_k_i" ] || js_vt_stop
	done
}

# js_vt_marked PID: the watcher stopped the run PID (- : it found no run,
# and ended the back-off the loop waits out, or cut it short before).
js_vt_marked() {
	_k_vk=
	[ -f "$_k_dir/vkill.$_k_r.$_k_i" ] && read -r _k_vk <"$_k_dir/vkill.$_k_r.$_k_i"
	[ -n "$_k_vk" ] && [ "$_k_vk" = "$1" ]
}

# js_vt_stop: stops this task's current run (vpid.R.I; none between
# runs) for another task's RestartTask: marks it (vkill.R.I: its pid, or
# -), ends a back-off the loop waits out (SIGUSR1), and gives the command
# and its descendants SIGTERM, then SIGKILL after 30 s (Kubernetes'
# default grace period), as a stop does.
js_vt_stop() {
	_y_p=
	[ -f "$_k_dir/vpid.$_k_r.$_k_i" ] && read -r _y_p <"$_k_dir/vpid.$_k_r.$_k_i"
	echo "${_y_p:--}" >"$_k_dir/vkill.$_k_r.$_k_i"
	kill -USR1 $$ 2>/dev/null
	[ -n "$_y_p" ] || return 0
	# the tree, parents first, read before any of it is signalled (a
	# child whose parent died is no longer found under it)
	_y_t=
	_y_q=$_y_p
	while [ -n "$_y_q" ]; do
		# shellcheck disable=SC2086 # pids split at blanks
		set -- $_y_q
		_y_t="$_y_t $1"
		_y_c=
		command -v pgrep >/dev/null 2>&1 && _y_c=$(pgrep -P "$1" 2>/dev/null)
		shift
		_y_q="$* $_y_c"
		case $_y_q in *[0-9]*) ;; *) _y_q= ;; esac
	done
	# shellcheck disable=SC2086
	kill -TERM $_y_t 2>/dev/null
	_y_k=0
	while [ "$_y_k" -lt 300 ]; do
		_y_live=
		for _y_x in $_y_t; do
			js_vt_alive "$_y_x" && _y_live="$_y_live $_y_x"
		done
		[ -n "$_y_live" ] || return 0
		sleep 0.1
		_y_k=$((_y_k + 1))
	done
	# shellcheck disable=SC2086
	kill -KILL $_y_live 2>/dev/null
}

# js_vt_alive PID: the process runs (a zombie does not: an orphan waits
# for a reaper, which in a container may never come).
js_vt_alive() {
	_y_line=
	read -r _y_line 2>/dev/null <"/proc/$1/stat" || return 1
	case ${_y_line##*) } in Z* | X*) return 1 ;; esac
	return 0
}
