# What a task with a supervisor runs first (task.sh, in the state directory
# of the attempt): the role's environment (js_env) and the removal of
# jobshift's own variables. A role without one (render.go, inShell) runs
# the same steps, straight, in its user's bash: sh/insh.sh.tmpl.

# js_unset_internal removes jobshift's own variables from the task's
# environment: the batch script's (exported for srun). The topology is
# never exported: a task reads its node from nodes.sh and the contract
# from env.sh (O(1) variables per task).
js_unset_internal() {
	unset _jsh_task _jsh_contract_shared _jsh_contract_task _jsh_adir _jsh_lib
	[ "$_t_nroles" -gt 0 ] && unset SLURM_HOSTFILE
}

# js_env R is stage 1's part of role R's environment, from the task data
# (_t_wd_R working directory, _t_nogpu_R, _t_shm_R MiB, _t_nenv_R pairs
# _t_env_R_J / _t_val_R_J or _t_esec_R_J): the directory, GPU visibility, the /dev/shm
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
	_e_sf=
	while [ "$_e_j" -lt "$_e_n" ]; do
		eval "_e_s=\${_t_esec_${_e_r}_$_e_j:-}"
		if [ -n "$_e_s" ]; then
			# a Secret's value (_t_esec_R_J: its number in the job's 0600
			# secrets file beside the attempt's directory)
			if [ -z "$_e_sf" ]; then
				# shellcheck source=/dev/null
				. "$_k_dir/../secrets" || exit 97
				_e_sf=1
			fi
			eval "set -- \"\$@\" \"\$_t_env_${_e_r}_$_e_j\" \"\$_jsh_secret_$_e_s\""
		else
			eval "set -- \"\$@\" \"\$_t_env_${_e_r}_$_e_j\" \"\$_t_val_${_e_r}_$_e_j\""
		fi
		_e_j=$((_e_j + 1))
	done
	unset _e_wd _e_nogpu _e_shm _e_n _e_r _e_j _e_s _e_sf
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
