# jobshift ssh emulation: what OpenPAI's ssh runtime plugin and
# mpi-operator's pods gave every task, rebuilt without root and without
# touching the user's ~/.ssh:
#   - an sshd of the task's own on its `ssh` port, accepting the job's key
#     (and the userssh public keys), with a host key made here;
#   - an ssh client config whose Host entries map every peer's alias
#     (<role>-<i>, or the MPIJob pod host names) to its address and port,
#     used through an `ssh` early on PATH, so `ssh worker-0`, mpirun and
#     horovodrun reach the peers unchanged;
#   - for an MPIJob task, the hostfile (and kubexec.sh) in the mpi dir;
#   - sshbarrier: the command starts once every peer's sshd answers.
# Then it execs the command (or, with --idle, runs the sshd in the
# foreground: an MPIJob worker whose own command was an sshd).
#
# Usage: sh sshemu.sh [--idle] [--] command [args...]
# Environment (see drivers/sshemu and translate/contract/ssh.go):
#   JOBSHIFT_SSH_HOSTS   "<addr> <port> <alias>...", entries joined by ','
#   JOBSHIFT_SSH_SELF    this task's first alias
#   JOBSHIFT_SSH_KEY     the job's private key file (a secret; read only)
#   JOBSHIFT_SSH_DIR     where this task's sshd and client files go, in a
#                        directory no other user can write ("" = a new
#                        directory under $TMPDIR if that is so, else /tmp)
#   JOBSHIFT_SSH_USERKEYS  extra authorized public keys, one per line
#   JOBSHIFT_SSH_BARRIER seconds to wait for every peer ("" = no barrier)
#   JOBSHIFT_MPI_DIR, JOBSHIFT_MPI_HOSTFILE  hostfile lines joined by ','
#   JOBSHIFT_MPIRUN      a program run as mpirun/mpiexec/orterun ("" = none)
#   JOBSHIFT_SSH_FILES   where the platform's ssh files go (a TrainJob's
#                        mpi.sshAuthMountPath, Volcano's ssh plugin's
#                        --ssh-key-file-path): id_rsa, id_rsa.pub,
#                        authorized_keys, config, in a mount point the
#                        target placed there ("" = none)
# Exit codes: 249 barrier timeout (OpenPAI's code), 1 setup failure.
# The script's own variables all start with _jse_ (reserved): a variable
# of the job's environment is exported, so one the script assigned under
# the job's own name would reach the command changed. It sets for the
# command only PATH (its ssh first) and the interface variables.

set -u
umask 077

fail() {
	printf 'jobshift ssh emulation: %s\n' "$*" >&2
	mpi_release
	exit 1
}

# The MPI directory lives as long as a task that uses it: each task holds
# a marker in it, and the last one to end removes the directory (several
# tasks of a job may share it on one host, e.g. Nomad's /tmp path).
_jse_marker=''
mpi_release() {
	[ -n "$_jse_marker" ] || return 0
	rm -f "$_jse_marker"
	_jse_marker=''
	for _jse_m in "$_jse_mdir"/.task.*; do
		[ -e "$_jse_m" ] && return 0
	done
	rm -rf "$_jse_mdir"
}

# own_dir makes DIR this user's private directory, or refuses it. On a
# shared machine a path others can predict (Nomad's jobshift-mpi-<job>) may
# have been made by another user, who could then swap the files this task
# runs (kubexec.sh, bin/ssh): DIR must be made fresh here, or be a real
# directory of this user's that nobody else can write (one that another
# task of this job made). A directory of ours in a sticky /tmp cannot be
# renamed or replaced by another user afterwards.
own_dir() {
	_jse_d=$1
	mkdir "$_jse_d" 2>/dev/null
	{ [ ! -L "$_jse_d" ] && [ -d "$_jse_d" ]; } || fail "$_jse_d is not a directory (a link or a file is in the way): refusing it"
	# shellcheck disable=SC2046 # ls's fields, split on purpose
	set -- $(ls -ld "$_jse_d")
	[ -O "$_jse_d" ] || fail "$_jse_d belongs to another user ($3): refusing it; remove it or name another directory"
	case $1 in
	?????w* | ????????w*) fail "$_jse_d is writable by other users ($1): refusing it" ;;
	esac
	chmod 700 "$_jse_d" || fail "cannot protect $_jse_d"
}

# safe_dir DIR: no other user can rename DIR's entries away and put their
# own in their place: DIR belongs to root or this user and is writable by
# nobody else, or is sticky (/tmp). Nomad's task directories are neither
# (0777, owned by nobody: Nomad v1.11.3 client/allocdir).
safe_dir() {
	# shellcheck disable=SC2046 # ls's fields, split on purpose
	set -- $(ls -ldn "$1")
	[ "$3" = 0 ] || [ "$3" = "$(id -u)" ] || return 1
	case $1 in
	?????????[tT]*) return 0 ;;
	?????w* | ????????w*) return 1 ;;
	esac
	return 0
}

_jse_idle=0
if [ "${1:-}" = --idle ]; then
	_jse_idle=1
	shift
fi
if [ "${1:-}" = -- ]; then
	shift
fi

_jse_hosts=${JOBSHIFT_SSH_HOSTS:?}
_jse_me=${JOBSHIFT_SSH_SELF:?}
_jse_key=${JOBSHIFT_SSH_KEY:?}
_jse_dir=${JOBSHIFT_SSH_DIR:-}
_jse_made=''
if [ -z "$_jse_dir" ]; then
	# a fresh directory of a name nobody can predict, under $TMPDIR if no
	# one else can replace what is in it, else under /tmp
	_jse_base=${TMPDIR:-/tmp}
	safe_dir "$_jse_base" || _jse_base=/tmp
	_jse_dir=$(mktemp -d "$_jse_base/jobshift-ssh.XXXXXX") || fail "cannot make a directory under $_jse_base"
	_jse_made=$_jse_dir
fi
safe_dir "$(dirname "$_jse_dir")" || fail "$(dirname "$_jse_dir") can be written by other users, who could replace $_jse_dir: name a directory under one of yours"
own_dir "$_jse_dir"
own_dir "$_jse_dir/bin"

_jse_sshd=${JOBSHIFT_SSHD:-}
if [ -z "$_jse_sshd" ]; then
	_jse_sshd=$(command -v sshd) || _jse_sshd=/usr/sbin/sshd
fi
_jse_ssh=$(command -v ssh) || fail "ssh not found on PATH (install openssh-client)"
_jse_cat=$(command -v cat) || fail "cat not found on PATH"
_jse_keygen=$(command -v ssh-keygen) || fail "ssh-keygen not found on PATH (install openssh-client)"
[ -x "$_jse_sshd" ] || fail "sshd not found (install openssh-server, or set JOBSHIFT_SSHD)"
_jse_user=$(id -un) || fail "cannot tell the user name"

# q quotes a value for ssh_config / sshd_config ("..."; '%' doubled for the
# tokens sshd expands).
q() { printf '"%s"' "$(printf '%s' "$1" | sed 's/%/%%/g')"; }
# sq quotes a value for sh.
sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# The key is used where the target put it (0600): no copy of a secret. Its
# public half is what the sshd authorizes, so it must be the target's (or
# this user's) file, not one another user put at its name.
key_ok() {
	{ [ ! -L "$1" ] && [ -f "$1" ]; } || return 1
	# shellcheck disable=SC2046 # ls's fields, split on purpose
	set -- $(ls -ln "$1")
	[ "$3" = 0 ] || [ "$3" = "$(id -u)" ]
}
key_ok "$_jse_key" || fail "the job key $_jse_key is not a file of root's or this user's: refusing it"
"$_jse_keygen" -y -f "$_jse_key" >"$_jse_dir/id.pub" || fail "cannot read the job key $_jse_key"
{
	cat "$_jse_dir/id.pub"
	if [ -n "${JOBSHIFT_SSH_USERKEYS:-}" ]; then
		printf '%s\n' "$JOBSHIFT_SSH_USERKEYS"
	fi
} >"$_jse_dir/authorized_keys"
rm -f "$_jse_dir/host_key" "$_jse_dir/host_key.pub"
"$_jse_keygen" -q -t ed25519 -N '' -f "$_jse_dir/host_key" || fail "cannot make a host key"

# The client config: one Host block per peer, then the job-wide settings.
# (A function, so `set --` leaves the command's arguments alone.)
host_blocks() {
	_jse_old_ifs=$IFS
	IFS=,
	for _jse_entry in $_jse_hosts; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $_jse_entry
		IFS=,
		[ $# -ge 3 ] || fail "bad host entry '$_jse_entry'"
		_jse_a=$1 _jse_p=$2
		shift 2
		# Every value is checked before it reaches ssh_config (the grammar
		# of translate/contract's topology checks): an address from a
		# forged topology could carry a newline and a ProxyCommand.
		case $_jse_a in '' | *[!A-Za-z0-9.:_-]*) fail "bad address in host entry '$_jse_entry'" ;; esac
		case $_jse_p in '' | *[!0-9]* | 0*) fail "bad port in host entry '$_jse_entry'" ;; esac
		[ "$_jse_p" -le 65535 ] || fail "bad port in host entry '$_jse_entry'"
		for _jse_n in "$@"; do
			case $_jse_n in '' | *[!A-Za-z0-9._-]*) fail "bad host name in host entry '$_jse_entry'" ;; esac
		done
		IFS=' ' # "$*" joins with the first character of IFS
		printf 'Host %s\n\tHostName %s\n\tPort %s\n' "$*" "$(q "$_jse_a")" "$_jse_p" >>"$_jse_dir/ssh_config"
		printf 'Host %s\n  HostName %s\n  Port %s\n' "$*" "$_jse_a" "$_jse_p" >>"$_jse_dir/files_config"
		IFS=,
		_jse_aliases="$_jse_aliases $1"
		for _jse_n in "$@"; do
			if [ "$_jse_n" = "$_jse_me" ]; then
				_jse_addr=$_jse_a _jse_port=$_jse_p
			fi
		done
	done
	IFS=$_jse_old_ifs
}
_jse_addr='' _jse_port='' _jse_aliases=''
: >"$_jse_dir/ssh_config"
: >"$_jse_dir/files_config"
host_blocks
[ -n "$_jse_port" ] || fail "this task ($_jse_me) is not in JOBSHIFT_SSH_HOSTS"

# OpenMPI's interface where nothing named it (a container: a plain
# process's task view names it, drivers/taskns): the smallest network
# holding every peer's address, as a CIDR (OpenMPI matches it against
# each interface's address on every node, as mpirun passes it on to its
# daemons; an image need not have ip(8)), or lo when every peer has this
# task's address (containers in one host's network: see taskns, Docker's
# masquerading). Without it OpenMPI offers every interface, a Docker
# bridge of its host's included, and peers wait on addresses they cannot
# reach. Never over a setting of the job's.
ip4() {
	case $1 in *[!0-9.]* | '') return 1 ;; esac
	_jse_old_ifs=$IFS
	IFS=.
	# shellcheck disable=SC2086 # split on purpose
	set -- $1
	IFS=$_jse_old_ifs
	[ $# = 4 ] && printf '%s\n' $((($1 << 24) | ($2 << 16) | ($3 << 8) | $4))
}
peers_cidr() {
	_jse_first=$(ip4 "$_jse_addr") || return 1
	_jse_diff=0
	for _jse_h in $(printf '%s\n' "$JOBSHIFT_SSH_HOSTS" | tr ',' '\n' | cut -d' ' -f1); do
		_jse_n=$(ip4 "$_jse_h") || return 1
		_jse_diff=$((_jse_diff | (_jse_n ^ _jse_first)))
	done
	[ "$_jse_diff" != 0 ] || { echo lo && return 0; }
	_jse_bits=0
	while [ "$_jse_diff" != 0 ]; do
		_jse_diff=$((_jse_diff >> 1)) _jse_bits=$((_jse_bits + 1))
	done
	_jse_net=$(((_jse_first >> _jse_bits) << _jse_bits))
	printf '%s.%s.%s.%s/%s\n' $((_jse_net >> 24 & 255)) $((_jse_net >> 16 & 255)) $((_jse_net >> 8 & 255)) $((_jse_net & 255)) $((32 - _jse_bits))
}
# shellcheck disable=SC2034 # read by the eval below
if _jse_ompi_if=$(peers_cidr); then
	for _jse_v in OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include; do
		eval "[ -n \"\${$_jse_v+x}\" ] || { $_jse_v=\$_jse_ompi_if; export $_jse_v; }"
	done
fi
cat >>"$_jse_dir/ssh_config" <<EOF
Host *
	User $_jse_user
	IdentityFile $(q "$_jse_key")
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	GlobalKnownHostsFile /dev/null
	LogLevel ERROR
	BatchMode yes
	ConnectionAttempts 10
EOF
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(sq "$_jse_ssh")" "$(sq "$_jse_dir/ssh_config")" >"$_jse_dir/bin/ssh"
chmod 700 "$_jse_dir/bin/ssh"

# A target that launches MPI ranks itself (Slurm's mpi = "pmix") names its
# mpirun in JOBSHIFT_MPIRUN: the user's mpirun line runs it unchanged.
if [ -n "${JOBSHIFT_MPIRUN:-}" ]; then
	for _jse_m in mpirun mpiexec orterun; do
		printf '#!/bin/sh\nJOBSHIFT_MPIRUN_SKIP=%s exec sh %s "$@"\n' "$(sq "$_jse_dir/bin")" "$(sq "$JOBSHIFT_MPIRUN")" >"$_jse_dir/bin/$_jse_m"
		chmod 700 "$_jse_dir/bin/$_jse_m"
	done
fi
PATH=$_jse_dir/bin:$PATH
export PATH

# The platform's own ssh files, for a job that reads them (a TrainJob's
# mpi.sshAuthMountPath: its Secret's id_rsa, id_rsa.pub, authorized_keys;
# Volcano's ssh plugin: the same and config, at --ssh-key-file-path;
# both /root/.ssh by default). They go only into a directory the target
# placed at that path for this task (a mount point of its view or
# container, this user's): never into the node's own /root/.ssh. The
# config names every peer as Volcano's does, the host lines holding the
# task's aliases, with the address and port its sshd has here (a program
# that runs ssh by its path needs it for a TrainJob too); the private key
# is the job's (0600: ssh refuses a key its own user can share; the other
# files are 0600 at /root/.ssh as Volcano's are, else 0644).
# placed DIR: DIR is a mount point of this task's, not a link.
placed() {
	{ [ ! -L "$1" ] && [ -d "$1" ] && [ -O "$1" ]; } || return 1
	awk -v p="$1" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo
}
if [ -n "${JOBSHIFT_SSH_FILES:-}" ]; then
	_jse_files=$JOBSHIFT_SSH_FILES
	placed "$_jse_files" || fail "$_jse_files was not placed for this task (not a mount point of its own): the ssh plugin's files are not written there"
	_jse_fmode=644
	[ "$_jse_files" != /root/.ssh ] || _jse_fmode=600
	rm -f "$_jse_files/id_rsa" "$_jse_files/id_rsa.pub" "$_jse_files/authorized_keys" "$_jse_files/config" || fail "cannot clear $_jse_files"
	# shellcheck disable=SC2015 # fail exits
	cat "$_jse_key" >"$_jse_files/id_rsa" && chmod 600 "$_jse_files/id_rsa" &&
		cat "$_jse_dir/id.pub" >"$_jse_files/id_rsa.pub" &&
		cat "$_jse_dir/authorized_keys" >"$_jse_files/authorized_keys" &&
		{
			printf 'StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n'
			cat "$_jse_dir/files_config"
			printf 'Host *\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  LogLevel ERROR\n' "$_jse_user" "$(q "$_jse_files/id_rsa")"
		} >"$_jse_files/config" &&
		chmod "$_jse_fmode" "$_jse_files/id_rsa.pub" "$_jse_files/authorized_keys" "$_jse_files/config" ||
		fail "cannot write the ssh files in $_jse_files"
fi

# The sshd: key logins only, for this user, with the task's search paths
# (an ssh session starts with a fresh environment; OpenPAI copied its
# variables to /etc/environment for the same reason).
{
	printf 'Port %s\nListenAddress %s\n' "$_jse_port" "$_jse_addr"
	printf 'HostKey %s\nPidFile %s\n' "$(q "$_jse_dir/host_key")" "$(q "$_jse_dir/sshd.pid")"
	# StrictModes checks an AuthorizedKeysFile's every parent directory,
	# which on Nomad (0777) and under /tmp (1777) fails: the keys come
	# from a command instead (root's cat, which sshd checks) reading them
	# in this private directory, which safe_parent keeps in place.
	printf 'AuthorizedKeysFile none\nAuthorizedKeysCommand %s %s\nAuthorizedKeysCommandUser %s\n' "$_jse_cat" "$(q "$_jse_dir/authorized_keys")" "$_jse_user"
	printf 'StrictModes yes\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n'
	printf 'PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nAllowUsers %s\n' "$_jse_user"
	printf 'PrintMotd no\nX11Forwarding no\nMaxStartups 100:30:200\nMaxSessions 100\n'
	for _jse_v in PATH LD_LIBRARY_PATH PYTHONPATH OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM; do
		eval "_jse_val=\${$_jse_v-}"
		# shellcheck disable=SC2154 # val is set by the eval
		case $_jse_val in
		'' | *'"'* | *'%'*) ;;
		*) printf 'SetEnv "%s=%s"\n' "$_jse_v" "$_jse_val" ;;
		esac
	done
} >"$_jse_dir/sshd_config"
if [ "$(id -u)" = 0 ]; then
	mkdir -p /run/sshd 2>/dev/null # privilege separation directory
fi

# Every MPIJob task's files, as the operator's ConfigMap held them.
if [ -n "${JOBSHIFT_MPI_HOSTFILE:-}" ]; then
	_jse_mdir=${JOBSHIFT_MPI_DIR:?}
	# private: only this user's tasks read it (Slurm made it 0700 already)
	own_dir "$_jse_mdir"
	_jse_marker=$(mktemp "$_jse_mdir/.task.$_jse_me.XXXXXX") || fail "cannot write in $_jse_mdir"
	# shellcheck disable=SC2015 # fail exits
	printf '%s\n' "$JOBSHIFT_MPI_HOSTFILE" | tr ',' '\n' >"$_jse_mdir/hostfile.tmp.$$" && mv -f "$_jse_mdir/hostfile.tmp.$$" "$_jse_mdir/hostfile" ||
		fail "cannot write $_jse_mdir/hostfile"
	# kubexec.sh was `kubectl exec <pod> -- /bin/sh -c "$*"`; ssh runs the
	# same command line on the same pod. The same text in every task (tasks
	# on one host share the directory): the ssh on PATH is each task's own.
	# shellcheck disable=SC2015 # fail exits
	printf '#!/bin/sh\nexec ssh "$@"\n' >"$_jse_mdir/kubexec.sh.tmp.$$" &&
		chmod 755 "$_jse_mdir/kubexec.sh.tmp.$$" && mv -f "$_jse_mdir/kubexec.sh.tmp.$$" "$_jse_mdir/kubexec.sh" ||
		fail "cannot write $_jse_mdir/kubexec.sh"
	chmod 644 "$_jse_mdir/hostfile"
fi

"$_jse_sshd" -t -f "$_jse_dir/sshd_config" || fail "sshd rejects its configuration $_jse_dir/sshd_config"
if [ "$_jse_idle" = 1 ]; then
	if [ -z "$_jse_marker" ]; then
		exec "$_jse_sshd" -D -e -f "$_jse_dir/sshd_config"
	fi
	# the sshd in the foreground, but this shell stays to release the
	# MPI directory when the target stops the task
	# the trap is set before the fork and a stop that came before $_jse_spid
	# was known is passed on after: no stop is lost (nor kills this shell
	# before it released the MPI directory)
	_jse_stop=0 _jse_spid=
	trap '_jse_stop=1; [ -n "$_jse_spid" ] && kill "$_jse_spid" 2>/dev/null' TERM INT HUP
	"$_jse_sshd" -D -e -f "$_jse_dir/sshd_config" </dev/null &
	_jse_spid=$!
	[ "$_jse_stop" = 1 ] && kill "$_jse_spid" 2>/dev/null
	wait "$_jse_spid"
	_jse_rc=$?
	kill "$_jse_spid" 2>/dev/null && wait "$_jse_spid"
	mpi_release
	[ -z "$_jse_made" ] || rm -rf "$_jse_made"
	exit "$_jse_rc"
fi
# The sshd lives as long as the command: a watcher stops it once the
# process that becomes the command (this shell's pid) is gone, whatever
# the target's own clean-up does.
_jse_main=$$
(
	"$_jse_sshd" -D -e -f "$_jse_dir/sshd_config" 2>>"$_jse_dir/sshd.log" </dev/null &
	_jse_spid=$!
	# a stop signal to the task's process group ends the command, not the
	# watcher: it still stops the sshd and releases the MPI directory
	# (set after the sshd started: an ignored signal stays ignored in it)
	trap '' TERM INT HUP
	while kill -0 "$_jse_main" 2>/dev/null && kill -0 "$_jse_spid" 2>/dev/null; do
		sleep 1
	done
	kill "$_jse_spid" 2>/dev/null
	mpi_release
	[ -z "$_jse_made" ] || rm -rf "$_jse_made"
) </dev/null >/dev/null 2>&1 &

if [ -n "${JOBSHIFT_SSH_BARRIER:-}" ]; then
	_jse_end=$(($(date +%s) + JOBSHIFT_SSH_BARRIER))
	for _jse_h in $_jse_aliases; do
		until ssh -o ConnectTimeout=2 -o ConnectionAttempts=1 "$_jse_h" true </dev/null 2>/dev/null; do
			if [ "$(date +%s)" -ge "$_jse_end" ]; then
				printf 'jobshift ssh emulation: sshbarrier: %s does not answer after %ss\n' "$_jse_h" "$JOBSHIFT_SSH_BARRIER" >&2
				mpi_release
				exit 249
			fi
			sleep 1
		done
	done
fi
# ipv4_iface ADDR prints the interface of the connected route (no
# gateway) that holds the IPv4 address ADDR, the longest prefix first
# (/proc/net/route: destination and mask in little-endian hex; an image
# need not have ip(8)), or nothing.
ipv4_iface() {
	case $1 in '' | *[!0-9.]*) return 0 ;; esac
	_jse_old_ifs=$IFS
	IFS=.
	# shellcheck disable=SC2086 # the address is split on purpose
	set -- $1
	IFS=$_jse_old_ifs
	[ $# = 4 ] || return 0
	_jse_le=$(($1 | ($2 << 8) | ($3 << 16) | ($4 << 24)))
	_jse_best='' _jse_bestm=-1
	while read -r _jse_dev _jse_dest _jse_gw _ _ _ _ _jse_mask _; do
		case $_jse_dest$_jse_gw$_jse_mask in *[!0-9A-Fa-f]*) continue ;; esac
		[ "$_jse_gw" = 00000000 ] || continue
		_jse_m=$((0x$_jse_mask))
		if [ $((_jse_le & _jse_m)) = $((0x$_jse_dest)) ] && [ "$_jse_m" -gt "$_jse_bestm" ]; then
			_jse_best=$_jse_dev _jse_bestm=$_jse_m
		fi
	done </proc/net/route 2>/dev/null
	printf '%s\n' "$_jse_best"
}

# ifaces names the interface of the task's address for Gloo and NCCL, as
# drivers/taskns does for a plain process (whose variables are set by
# now): a container in its node's network sees every interface of the
# node where a pod saw one. (OpenMPI's is the peers' network, above: a
# name would be passed on to every node's daemons, whose interface may be
# named otherwise.) Platform additions: never over what is set.
ifaces() {
	case $_jse_addr in 127.*) _jse_dev=lo ;; *) _jse_dev=$(ipv4_iface "$_jse_addr") ;; esac
	[ -n "$_jse_dev" ] || return 0
	for _jse_v in GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME; do
		eval "[ -n \"\${$_jse_v+x}\" ] || { $_jse_v=\$_jse_dev; export $_jse_v; }"
	done
}

# Under Slurm, OpenMPI's and Hydra's launchers would see the allocation
# and start their daemons with srun on Slurm's nodes instead of the peers
# the command names; on the source platform they used ssh and the
# hostfile. (A user's own setting wins.)
if [ -n "${SLURM_JOB_ID:-}" ]; then
	OMPI_MCA_plm=${OMPI_MCA_plm:-rsh}
	OMPI_MCA_ras=${OMPI_MCA_ras:-^slurm}
	I_MPI_HYDRA_BOOTSTRAP=${I_MPI_HYDRA_BOOTSTRAP:-ssh}
	HYDRA_LAUNCHER=${HYDRA_LAUNCHER:-ssh}
	export OMPI_MCA_plm OMPI_MCA_ras I_MPI_HYDRA_BOOTSTRAP HYDRA_LAUNCHER
fi
ifaces
[ $# -gt 0 ] || { mpi_release; exit 0; }
[ -n "$_jse_marker" ] || exec "$@"
# A task holding the MPI directory runs its command as a child, so that it
# can release the directory when the command ends: an exec'd command's
# end is the task's, and the target kills what is left at once (Nomad's
# executor does). Stop signals are passed on; stdin stays the task's.
# (The trap is set before the fork, and a stop that came before $_jse_cpid was
# known is passed on after it.)
_jse_stop=0 _jse_cpid=
trap '_jse_stop=1; [ -n "$_jse_cpid" ] && kill -TERM "$_jse_cpid" 2>/dev/null' TERM INT HUP
exec 3<&0
"$@" <&3 3<&- &
_jse_cpid=$!
exec 3<&-
[ "$_jse_stop" = 1 ] && kill -TERM "$_jse_cpid" 2>/dev/null
wait "$_jse_cpid"
_jse_rc=$?
while kill -0 "$_jse_cpid" 2>/dev/null; do
	wait "$_jse_cpid"
	_jse_rc=$?
done
mpi_release
exit "$_jse_rc"
