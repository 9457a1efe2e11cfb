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
	eval "_jsh_ssh=\$_t_ssh_$_jsh_r _jsh_file=\$_t_file_$_jsh_r _jsh_ctr=\$_t_ctr_$_jsh_r"
	if [ "$_jsh_ssh" != 0 ]; then
		JOBSHIFT_SSH_KEY="$_jsh_sd/ssh-key" JOBSHIFT_SSH_DIR="$_jsh_sd/ssh-$_jsh_r-$SLURM_PROCID"
		export JOBSHIFT_SSH_KEY JOBSHIFT_SSH_DIR
		# the platform's ssh files, in the directory js_exec_view places
		eval "_jsh_sf=\${_t_sshfiles_$_jsh_r:-}"
		if [ -n "$_jsh_sf" ]; then
			JOBSHIFT_SSH_FILES=$_jsh_sf
			export JOBSHIFT_SSH_FILES
		fi
		[ "$_jsh_ssh" = 2 ] && js_exec_view sh "$_jsh_sd/sshemu.sh" --idle
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
	js_exec_view "$@"
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

# js_exec_view CMD...: execs CMD under the task namespace wrapper
# (drivers/taskns, taskns.sh in the state directory) when role $_jsh_r
# gets one (_t_ns_R = 1: no container): its platform host name
# (_t_nsname_R, the names with @I@ for the task's index), its own
# /etc/hosts line, and the interface of its address for OpenMPI, Gloo and
# NCCL. Root makes the namespaces; otherwise an unprivileged user
# namespace where the node allows one; otherwise the task keeps the node's
# name, with a warning, and gets only the interface variables.
js_exec_view() {
	eval "_jsh_ns=\${_t_ns_$_jsh_r:-0}"
	# js_prepare writes the wrapper before any task starts (or the job
	# dies); js_run alone, in its unit tests, runs the command directly
	# init containers (sh/init.sh, in the task program only when a role
	# has any) run where the command runs: in its view, so a step sees the
	# binds, files and emptyDirs (a memory emptyDir's one tmpfs) it does
	eval "_jsh_ni=\${_t_ninit_$_jsh_r:-0}"
	if [ "$_jsh_ns" != 1 ] || [ ! -f "$_jsh_sd/taskns.sh" ]; then
		if [ "$_jsh_ni" != 0 ]; then
			js_run_init "$_jsh_r" || exit
		fi
		exec "$@"
	fi
	if [ "$_jsh_ni" != 0 ]; then
		# the fresh sh expands $2 itself (dispatch.sh, jobshift-init)
		# shellcheck disable=SC2016
		set -- /bin/sh -c '. "$2/task.sh"' jobshift-init "$_jsh_r" "$_jsh_sd" "$@"
	fi
	_v_d=$_jsh_sd/ns-$_jsh_r-$SLURM_PROCID
	mkdir -p "$_v_d" || exit 97
	_v_m=none
	if [ "$(id -u)" = 0 ] && unshare --mount --uts --propagation private true 2>/dev/null; then
		_v_m=root
	elif unshare --user --map-root-user --mount --uts true 2>/dev/null; then
		_v_m=user
	else
		printf 'jobshift: warning: task %s-%s keeps the node'"'"'s host name (no private UTS namespace: not root, and unprivileged user namespaces are not allowed); OpenMPI'"'"'s shared-memory transport, NCCL and Horovod take tasks with one host name for one node; allow them on the nodes (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) or set slurm { container = "apptainer" }\n' "$_jsh_r" "$SLURM_PROCID" >&2
	fi
	eval "_v_p=\$_t_nsname_$_jsh_r"
	_v_n=
	while :; do
		case $_v_p in
		*@I@*)
			_v_n=$_v_n${_v_p%%@I@*}$SLURM_PROCID
			_v_p=${_v_p#*@I@}
			;;
		*) break ;;
		esac
	done
	_v_n=$_v_n$_v_p
	eval "_v_nf=\${_t_nfiles_$_jsh_r:-0} _v_fp=\${_t_fpath_${_jsh_r}_0:-} _v_sf=\${_t_sshfiles_$_jsh_r:-}"
	if [ -n "$_v_sf" ] && [ "$_v_nf" = 0 ]; then
		_v_nf=1 _v_fp=$_v_sf
	fi
	if [ "$_v_m" = none ] && [ "$_v_nf" != 0 ]; then
		printf 'jobshift: task %s-%s needs platform files at fixed paths (%s and %s more), which only a private mount namespace places: run the job as root, or allow unprivileged user namespaces on the nodes\n' "$_jsh_r" "$SLURM_PROCID" "$_v_fp" "$((_v_nf - 1))" >&2
		exit 97
	fi
	_v_a=$(grep -m1 "^JS_R${_jsh_r}_ADDR_${SLURM_PROCID}=" "$_jsh_sd/topology")
	_v_a=${_v_a#*=}
	_v_t=$(printf '\t')
	# a network of its own on a host the job's tasks share (js_check_hosts):
	# the wrapper numbers the tasks by their entries of JOBSHIFT_PEER_HOSTS
	_v_net=$(grep -m1 '^JS_NETNS=' "$_jsh_sd/topology")
	if [ -n "$_v_net" ]; then
		JOBSHIFT_PEER_HOSTS=$(js_peer_hosts "" "" peers)
		export JOBSHIFT_PEER_HOSTS
	fi
	{
		printf 'mode%s%s\nscratch%s%s\nhostname%s%s\n' "$_v_t" "$_v_m" "$_v_t" "$_v_d" "$_v_t" "${_v_n%% *}"
		[ -z "$_v_a" ] || printf 'host%s%s%s%s\naddr%s%s\n' "$_v_t" "$_v_a" "$_v_t" "$_v_n" "$_v_t" "$_v_a"
		[ -z "$_v_net" ] || printf 'netns%s%s%s%s\n' "$_v_t" "$_jsh_sd" "$_v_t" "${_v_net#JS_NETNS=}"
		eval "_v_peers=\${_t_nspeers_$_jsh_r:-0}"
		[ "$_v_peers" != 1 ] || [ -z "$_v_a" ] || js_peer_hosts "$_v_a" "$_v_t"
		# the hostPath and site-mapped volumes at the job's paths (_t_nsbind_R: spec lines)
		eval "_v_b=\${_t_nsbind_$_jsh_r:-}"
		[ -z "$_v_b" ] || printf '%s\n' "$_v_b"
		# the platform files, after the volumes they may lie in
		js_files "$_jsh_r" "$_v_d/files" "$_v_t"
		# the platform's ssh files: a fresh private directory the ssh
		# emulation fills in (taskns makes it; the batch script removes it)
		if [ -n "$_v_sf" ]; then
			rm -rf "$_v_d/sshfiles" || exit 97
			printf 'dir%srw%s%s%s%s\n' "$_v_t" "$_v_t" "$_v_d/sshfiles" "$_v_t" "$_v_sf"
		fi
	} >"$_v_d/spec" || exit 97
	exec sh "$_jsh_sd/taskns.sh" "$_v_d/spec" -- "$@"
}

# js_peer_hosts ADDR TAB prints an /etc/hosts line (a taskns "host" line)
# for every task of the job on another host than ADDR, with its platform
# names (_t_nsname_R, @I@ its index), from the attempt's topology: the
# names Volcano's svc plugin writes resolve to their tasks, as the
# cluster DNS resolved them. A peer on this host is left out: the
# collective libraries would take it for this very task's node (OpenMPI's
# orte_ifislocal), and a fixed port would be shared.
# js_peer_hosts "" "" peers prints every task instead, as the value of
# JOBSHIFT_PEER_HOSTS (translate/contract PeerHostsVar: "ADDR NAME..."
# joined by ','), in the topology's order, which is every task's.
js_peer_hosts() {
	_p_sep=
	while IFS='=' read -r _p_k _p_a; do
		case $_p_k in JS_R*_ADDR_*) ;; *) continue ;; esac
		if [ -z "$_p_a" ] || [ "$_p_a" = "$1" ]; then
			continue
		fi
		_p_r=${_p_k#JS_R}
		_p_r=${_p_r%%_ADDR_*}
		_p_i=${_p_k##*_ADDR_}
		eval "_p_p=\${_t_nsname_$_p_r:-}"
		[ -n "$_p_p" ] || continue
		_p_n=
		while :; do
			case $_p_p in
			*@I@*)
				_p_n=$_p_n${_p_p%%@I@*}$_p_i
				_p_p=${_p_p#*@I@}
				;;
			*) break ;;
			esac
		done
		if [ "${3:-}" = peers ]; then
			printf '%s%s %s' "$_p_sep" "$_p_a" "$_p_n$_p_p"
			_p_sep=,
		else
			printf 'host%s%s%s%s\n' "$2" "$_p_a" "$2" "$_p_n$_p_p"
		fi
	done <"$_jsh_sd/topology"
}

# js_files R DIR TAB writes role R's platform files (_t_nfiles_R, each
# _t_fpath_R_J at mode _t_fmode_R_J, its content _t_fdata_R_J, or secret
# number _t_fsec_R_J of the job's secrets file) into DIR, made fresh and
# private (0700: a Secret's copy is readable only by the task's user, the
# batch script removes it when the attempt ends), and prints their taskns
# "bind ro" lines. An error ends the task (exit 97): the command never runs
# without its files.
js_files() {
	eval "_f_n=\${_t_nfiles_$1:-0}"
	[ "$_f_n" != 0 ] || return 0
	rm -rf "$2" && mkdir -m 700 "$2" || exit 97
	_f_j=0
	while [ "$_f_j" -lt "$_f_n" ]; do
		eval "_f_s=\$_t_fsec_${1}_$_f_j _f_m=\$_t_fmode_${1}_$_f_j _f_p=\$_t_fpath_${1}_$_f_j"
		if [ "$_f_s" -ge 0 ] && [ -z "${_jsh_secrets_read:-}" ]; then
			# a failing "." would end dash with 2, not 97
			[ -r "$_jsh_sd/../secrets" ] || {
				printf 'jobshift: cannot read the secrets file of the job for platform file %s\n' "$_f_p" >&2
				exit 97
			}
			# shellcheck source=/dev/null
			. "$_jsh_sd/../secrets" || exit 97
			_jsh_secrets_read=1
		fi
		if ! (
			umask 077
			set -C
			if [ "$_f_s" -ge 0 ]; then
				eval "printf '%s' \"\$_jsh_secret_$_f_s\""
			else
				eval "printf '%s' \"\$_t_fdata_${1}_$_f_j\""
			fi >"$2/$_f_j" && chmod "$_f_m" "$2/$_f_j"
		); then
			printf 'jobshift: cannot write platform file %s\n' "$_f_p" >&2
			exit 97
		fi
		printf 'bind%sro%s%s%s%s\n' "$3" "$3" "$2/$_f_j" "$3" "$_f_p"
		_f_j=$((_f_j + 1))
	done
}
