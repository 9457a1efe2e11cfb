# Stage 2 of a task, part of every task program (task.sh in the state
# directory of the attempt): run by stage 1's subshell after the contract's
# task stage (js_then), or by a fresh sh after env (jobshift-run), which
# then reads only this and the task data, not the library.

# js_run R DIR: runs the command of role R (DIR: the state directory of the
# attempt) from the task data: the setup commands of the site
# (_t_nsetup_R, _t_setup_R_J, _t_setupmsg_R_J), the variables of the ssh
# emulation (_t_ssh_R: 1 = wrap the command, 2 = run only the sshd), the
# file the command travels in (_t_file_R: its name, "" = none; made of
# _t_nparts_R parts, _t_part_R_J literal or _t_sec_R_J secret number, from
# the secrets file of the job when _t_secret_R = 1, then private), the
# container (_t_ctr_R: "" or the apptainer verb, _t_sif_R the image), and
# the argument vector (_t_argc_R words _t_arg_R_J; word _t_fileidx_R is
# the path of the file). Every value is data: it reaches exec as one word.
js_run() {
	_jsh_r=$1
	_jsh_sd=$2
	eval "_jsh_n=\$_t_nsetup_$_jsh_r"
	_jsh_j=0
	while [ "$_jsh_j" -lt "$_jsh_n" ]; do
		eval "_jsh_c=\$_t_setup_${_jsh_r}_$_jsh_j"
		eval "{ $_jsh_c
}" || {
			eval "printf 'jobshift: setup command failed (%s): %s\n' \"\$?\" \"\$_t_setupmsg_${_jsh_r}_$_jsh_j\"" >&2
			exit 97
		}
		_jsh_j=$((_jsh_j + 1))
	done
	# init containers (sh/init.sh, in the task program only when a role has any)
	eval "_jsh_ni=\${_t_ninit_$_jsh_r:-0}"
	if [ "$_jsh_ni" != 0 ]; then
		js_run_init "$_jsh_r" || exit
	fi
	eval "_jsh_ssh=\$_t_ssh_$_jsh_r _jsh_file=\$_t_file_$_jsh_r _jsh_ctr=\$_t_ctr_$_jsh_r"
	if [ "$_jsh_ssh" != 0 ]; then
		JOBSHIFT_SSH_KEY="$_jsh_sd/ssh-key" JOBSHIFT_SSH_DIR="$_jsh_sd/ssh-$_jsh_r-$SLURM_PROCID"
		export JOBSHIFT_SSH_KEY JOBSHIFT_SSH_DIR
		[ "$_jsh_ssh" = 2 ] && exec sh "$_jsh_sd/sshemu.sh" --idle
	fi
	_f=
	if [ -n "$_jsh_file" ]; then
		_f="$_jsh_sd/$_jsh_file-$_jsh_r-$SLURM_PROCID.sh"
		js_run_file "$_jsh_r" "$_f" || exit 97
	fi
	eval "_jsh_n=\$_t_argc_$_jsh_r _jsh_fi=\$_t_fileidx_$_jsh_r"
	set --
	_jsh_j=0
	while [ "$_jsh_j" -lt "$_jsh_n" ]; do
		if [ "$_jsh_j" = "$_jsh_fi" ]; then
			set -- "$@" "$_f"
		else
			eval "set -- \"\$@\" \"\$_t_arg_${_jsh_r}_$_jsh_j\""
		fi
		_jsh_j=$((_jsh_j + 1))
	done
	if [ -n "$_jsh_ctr" ]; then
		eval "_jsh_sif=\$_t_sif_$_jsh_r"
		if [ -n "$_f" ]; then
			# the container sees the command file at the same path
			set -- apptainer "$_jsh_ctr" --nv --bind "$_jsh_sd:$_jsh_sd" "$_jsh_sd/../$_jsh_sif" "$@"
		else
			set -- apptainer "$_jsh_ctr" --nv "$_jsh_sd/../$_jsh_sif" "$@"
		fi
	fi
	if [ "$_jsh_ssh" = 1 ]; then
		set -- sh "$_jsh_sd/sshemu.sh" -- "$@"
	fi
	exec "$@"
}

# js_run_file R FILE writes the command file of role R, created fresh (rm,
# then noclobber: never the mode of a stale file, never through a link)
# with the printf builtin (no exec, no argument limit). One with secrets is
# private: umask 077 in a subshell only, so the command of the user keeps
# the umask of the site.
js_run_file() {
	eval "_jsh_sec=\$_t_secret_$1 _jsh_np=\$_t_nparts_$1"
	if [ "$_jsh_sec" = 1 ]; then
		# shellcheck source=/dev/null
		. "$_jsh_sd/../secrets" || return 1
	fi
	rm -f "$2" || return 1
	(
		if [ "$_jsh_sec" = 1 ]; then umask 077; fi
		set -C
		_jsh_j=0
		while [ "$_jsh_j" -lt "$_jsh_np" ]; do
			eval "_jsh_s=\$_t_sec_${1}_$_jsh_j"
			if [ "$_jsh_s" -ge 0 ]; then
				eval "printf '%s' \"\$_jsh_secret_$_jsh_s\""
			else
				eval "printf '%s' \"\$_t_part_${1}_$_jsh_j\""
			fi
			_jsh_j=$((_jsh_j + 1))
		done >"$2"
	)
}
