# js_run_init R: the init containers of role R (jobs.Role.Init), in order,
# each to success, before the command, as the kubelet ran them: step J's
# argument vector (_t_initargc_R_J words _t_initarg_R_J_I) with its own
# variables (_t_initnenv_R_J pairs _t_initenvn_R_J_I, _t_initenvv_R_J_I or
# _t_initenvs_R_J_I, a Secret's number in the secrets file) on
# top of the task's, in a subshell. A failing step ends the task with its
# code, which the role's restart policy judges; a step that succeeded
# leaves a marker in the attempt's state directory, so an in-place restart
# runs only the steps after it (the kubelet restarts the failed init
# container, not the ones that succeeded).
js_run_init() {
	_ji_r=$1
	eval "_ji_n=\${_t_ninit_$_ji_r:-0}"
	_ji_j=0
	while [ "$_ji_j" -lt "$_ji_n" ]; do
		_ji_done="$_jsh_sd/init-$_ji_r-$SLURM_PROCID-$_ji_j.done"
		if [ ! -e "$_ji_done" ]; then
			(
				eval "_ji_m=\$_t_initnenv_${_ji_r}_$_ji_j"
				_ji_i=0
				while [ "$_ji_i" -lt "$_ji_m" ]; do
					eval "_ji_k=\$_t_initenvn_${_ji_r}_${_ji_j}_$_ji_i _ji_s=\${_t_initenvs_${_ji_r}_${_ji_j}_$_ji_i:-}"
					if [ -n "$_ji_s" ]; then
						# a Secret's value, by number from the job's 0600
						# secrets file beside the attempt's directory
						# shellcheck source=/dev/null
						. "$_jsh_sd/../secrets" || exit 97
						eval "$_ji_k=\$_jsh_secret_$_ji_s; export $_ji_k"
					else
						eval "$_ji_k=\$_t_initenvv_${_ji_r}_${_ji_j}_$_ji_i; export $_ji_k"
					fi
					_ji_i=$((_ji_i + 1))
				done
				eval "_ji_c=\$_t_initargc_${_ji_r}_$_ji_j"
				set --
				_ji_i=0
				while [ "$_ji_i" -lt "$_ji_c" ]; do
					eval "set -- \"\$@\" \"\$_t_initarg_${_ji_r}_${_ji_j}_$_ji_i\""
					_ji_i=$((_ji_i + 1))
				done
				exec "$@"
			)
			_ji_rc=$?
			if [ "$_ji_rc" != 0 ]; then
				eval "_ji_name=\$_t_initname_${_ji_r}_$_ji_j"
				printf 'jobshift: init container %s exited %s; the main container does not start\n' "$_ji_name" "$_ji_rc" >&2
				return "$_ji_rc"
			fi
			: >"$_ji_done"
		fi
		_ji_j=$((_ji_j + 1))
	done
}
