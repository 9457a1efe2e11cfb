# What both ways into a task share, part of the task program (task.sh in
# the state directory of the attempt) and of the in-shell program (insh.sh,
# insh.go): the role's environment (js_env) and the removal of jobshift's
# own variables; and the in-shell stage.
#
# The in-shell stage (js_insh): a role whose command is bash -c and that
# never restarts in place (render.go, inShell) has no supervisor. srun
# starts the user's bash itself, with BASH_ENV naming insh.sh and _jsh_ir
# its role (js_launch_insh, batch.sh): bash sources the program
# before the user's script, and the stage sets the platform's environment
# in that bash (the contract's task stage sourced with -r, in a function:
# the user's positional parameters stay the user's). No process of
# jobshift's runs in the task, not even a shell: the task's exit code is
# the command's own, which srun reports to the batch script (js_ends). On a
# node of 2 cores an exec'd sh before the user's bash cost 1.2x a bare
# job's start at 64 tasks.

# js_unset_internal removes jobshift's own variables from the task's
# environment: the batch script's (exported for srun). The topology is
# never exported: a task reads its node from nodes.sh and the contract
# from env.sh (O(1) variables per task).
js_unset_internal() {
	unset _jsh_task _jsh_insh_prog _jsh_contract_shared _jsh_contract_task _jsh_adir _jsh_lib
	[ "$_t_nroles" -gt 0 ] && unset SLURM_HOSTFILE
}

# js_env R is stage 1's part of role R's environment, from the task data
# (_t_wd_R working directory, _t_nogpu_R, _t_shm_R MiB, _t_nenv_R pairs
# _t_env_R_J / _t_val_R_J): the directory, GPU visibility, the /dev/shm
# check, then the role's own variables (the contract, applied after, wins
# on a clash, as in drivers/local). The pairs are read into the positional
# parameters before any is assigned: a variable of the job may have any
# name, even one of this function's.
js_env() {
	eval "_e_wd=\${_t_wd_$1-} _e_nogpu=\$_t_nogpu_$1 _e_shm=\$_t_shm_$1 _e_n=\$_t_nenv_$1"
	if [ -n "$_e_wd" ] && [ -d "$_e_wd" ]; then cd "$_e_wd" || exit 97; fi
	if [ "$_e_nogpu" = 1 ]; then
		# without device cgroups an unset CUDA_VISIBLE_DEVICES means every
		# GPU of the node (spec/slurm.md §2)
		CUDA_VISIBLE_DEVICES=
		export CUDA_VISIBLE_DEVICES
	fi
	[ "$_e_shm" -gt 0 ] && js_shm_check "$_e_shm"
	_e_r=$1
	set --
	_e_j=0
	while [ "$_e_j" -lt "$_e_n" ]; do
		eval "set -- \"\$@\" \"\$_t_env_${_e_r}_$_e_j\" \"\$_t_val_${_e_r}_$_e_j\""
		_e_j=$((_e_j + 1))
	done
	unset _e_wd _e_nogpu _e_shm _e_n _e_r _e_j
	while [ "$#" -gt 0 ]; do
		# names are checked at render: letters, digits and _ only
		eval "$1=\$2; export $1"
		shift 2
	done
}

# js_shm_check MIB: Slurm cannot size /dev/shm (it is the node's tmpfs,
# shared by every job there; what a task writes into it counts against its
# --mem under cgroup memory enforcement, as a memory emptyDir counted
# against the pod's limit). So a task whose job sized it says at start when
# less is free than the job asked for, instead of failing later with "No
# space left on device" in a DataLoader.
js_shm_check() {
	_shm=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')
	[ "${_shm:-0}" -ge "$1" ] || printf 'jobshift: warning: /dev/shm on %s has %s MiB free, the job asked for %s MiB (on Slurm /dev/shm is the node'\''s)\n' "${SLURMD_NODENAME:-?}" "${_shm:-?}" "$1" >&2
}

# js_enter RCFILE: what every task does first, with a supervisor or not
# (_k_r, _k_i, _k_dir set): check that it runs on the node the layout gives
# it (nodes.sh; if not, 97, also written to RCFILE when one is named),
# remove jobshift's own variables, set the contract's inputs and the role's
# environment. (A supervisor then stamps the task's start, js_task_main; a
# role without one has its starts recorded from srun, js_ends.)
js_enter() {
	_k_want=
	# shellcheck source=/dev/null
	. "$_k_dir/nodes.sh" && eval "_jsh_want_$_k_r \"\$_k_i\""
	if [ "$_k_want" != "${SLURMD_NODENAME:-}" ]; then
		printf 'jobshift: task %s-%s runs on node %s but the layout puts it on %s; not starting it\n' \
			"$_k_r" "$_k_i" "${SLURMD_NODENAME:-?}" "$_k_want" >&2
		[ -z "$1" ] || echo 97 >"$1"
		exit 97
	fi
	js_wait_shared
	js_unset_internal
	JS_SELF_ROLE=$_k_r
	JS_SELF_INDEX=$_k_i
	JS_SHARED=$_k_dir/env.sh
	export JS_SELF_ROLE JS_SELF_INDEX JS_SHARED
	js_env "$_k_r"
}

# js_wait_shared waits until the batch script has written the attempt's
# shared environment (env.sh, complete once env.ok exists). The batch
# script starts the steps before it asks Slurm for the nodes' addresses
# and evaluates that environment (js_main), so both overlap the steps'
# launch; a task normally finds it there. Each wait is a sleep (a fork:
# no sh has a builtin one), longer each time, so a task that starts early
# in a large job costs few of them.
js_wait_shared() {
	_k_w=0.005
	while [ ! -f "$_k_dir/env.ok" ]; do
		sleep "$_k_w"
		case $_k_w in
		0.005) _k_w=0.01 ;;
		0.01) _k_w=0.02 ;;
		0.02) _k_w=0.05 ;;
		*) _k_w=0.1 ;;
		esac
	done
}

# js_insh R: the in-shell stage of role R, in the user's bash (BASH_ENV),
# called by insh.sh's _jsh_insh, whose locals are every variable assigned
# here (insh.go, stageLocals). Sets and exports what the supervisor would
# have (js_task_main): the layout check, the role's environment, the
# contract. No start stamp: the batch script records the role's started
# tasks from srun (js_ends, started.R); a file created by each task in the
# shared state directory cost ~0.7 ms of CPU per task at 64 tasks
# (BenchmarkSlurmTaskCPU), more than the rest of this stage.
js_insh() {
	unset BASH_ENV _jsh_ir
	_k_r=$1
	_k_i=${SLURM_PROCID:?jobshift: not started by srun}
	_k_dir=$_jsh_adir
	js_enter ""
	# bash only (BASH_ENV): the arguments are the stage's positional
	# parameters, this function's, which it shifts
	# shellcheck source=/dev/null disable=SC2240
	. "$_k_dir/contract-task.sh" -r js_insh_then
	js_stop_traps
}

# js_stop_traps: how the user's bash of an in-shell task (_k_dir, _k_r
# set) ends at a stop.
js_stop_traps() {
	# Slurm signals every process of the step at a stop (the verdict,
	# the time limit), and kills what is left once the task's own process
	# ends. bash, with a trap, runs it only once its foreground command
	# has ended, so a program still writing its checkpoint gets to finish
	# it (as the supervisor's grace did); then it dies of the signal, the
	# step CANCELLED. (bash forks even the last command of a script when
	# it read BASH_ENV.) A trap of the script's own replaces this one; a
	# program it starts has the default action, as before.
	trap 'trap - TERM INT; kill -TERM $$' TERM INT
	# A stop signals every process of the step at once: when the command
	# dies of it first and bash ends the script before its own signal has
	# arrived, bash exits 143 and sacct shows a FAILED step where a stopped
	# one is CANCELLED. js_stop writes stopped.R before it signals: at its
	# exit, bash then ends as the signal would have ended it. (A script's
	# own EXIT trap replaces this one, as with TERM.)
	# shellcheck disable=SC3045 # bash only
	printf -v _k_stop '%q' "$_k_dir/stopped.$_k_r"
	# shellcheck disable=SC2064 # the path now, quoted for the trap
	trap "[ ! -e $_k_stop ] || { trap - TERM INT; kill -TERM \$\$; }" EXIT
}

# js_insh_then [NAME=VALUE...]: called by the contract's task stage with
# the platform's variables set; returns to let bash run the user's script.
# Names only env can place (PAI v1 role names with '.' or '~') cannot be
# set in bash: env, then a fresh sh runs stage 2 (jobshift-run), which
# execs the same command (BASH_ENV is gone by then), as the supervisor does.
js_insh_then() {
	if [ "$#" -gt 0 ]; then
		# the fresh sh expands $2 itself
		# shellcheck disable=SC2016
		exec env -- "$@" /bin/sh -c '. "$2/task.sh"' jobshift-run "$_k_r" "$_k_dir"
	fi
}
