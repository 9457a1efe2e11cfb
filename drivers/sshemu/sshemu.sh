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
marker=''
mpi_release() {
	[ -n "$marker" ] || return 0
	rm -f "$marker"
	marker=''
	for m in "$mdir"/.task.*; do
		[ -e "$m" ] && return 0
	done
	rm -rf "$mdir"
}

# own_dir makes DIR this user's private directory, or refuses it. On a
# shared machine a path others can predict (Nomad's jobshift-mpi-<job>) may
# have been made by another user, who could then swap the files this task
# runs (kubexec.sh, bin/ssh): DIR must be made fresh here, or be a real
# directory of this user's that nobody else can write (one that another
# task of this job made). A directory of ours in a sticky /tmp cannot be
# renamed or replaced by another user afterwards.
own_dir() {
	d=$1
	mkdir "$d" 2>/dev/null
	{ [ ! -L "$d" ] && [ -d "$d" ]; } || fail "$d is not a directory (a link or a file is in the way): refusing it"
	# shellcheck disable=SC2046 # ls's fields, split on purpose
	set -- $(ls -ld "$d")
	[ -O "$d" ] || fail "$d belongs to another user ($3): refusing it; remove it or name another directory"
	case $1 in
	?????w* | ????????w*) fail "$d is writable by other users ($1): refusing it" ;;
	esac
	chmod 700 "$d" || fail "cannot protect $d"
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

idle=0
if [ "${1:-}" = --idle ]; then
	idle=1
	shift
fi
if [ "${1:-}" = -- ]; then
	shift
fi

hosts=${JOBSHIFT_SSH_HOSTS:?}
me=${JOBSHIFT_SSH_SELF:?}
key=${JOBSHIFT_SSH_KEY:?}
dir=${JOBSHIFT_SSH_DIR:-}
made=''
if [ -z "$dir" ]; then
	# a fresh directory of a name nobody can predict, under $TMPDIR if no
	# one else can replace what is in it, else under /tmp
	base=${TMPDIR:-/tmp}
	safe_dir "$base" || base=/tmp
	dir=$(mktemp -d "$base/jobshift-ssh.XXXXXX") || fail "cannot make a directory under $base"
	made=$dir
fi
safe_dir "$(dirname "$dir")" || fail "$(dirname "$dir") can be written by other users, who could replace $dir: name a directory under one of yours"
own_dir "$dir"
own_dir "$dir/bin"

sshd=${JOBSHIFT_SSHD:-}
if [ -z "$sshd" ]; then
	sshd=$(command -v sshd) || sshd=/usr/sbin/sshd
fi
ssh=$(command -v ssh) || fail "ssh not found on PATH (install openssh-client)"
cat=$(command -v cat) || fail "cat not found on PATH"
keygen=$(command -v ssh-keygen) || fail "ssh-keygen not found on PATH (install openssh-client)"
[ -x "$sshd" ] || fail "sshd not found (install openssh-server, or set JOBSHIFT_SSHD)"
user=$(id -un) || fail "cannot tell the user name"

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
key_ok "$key" || fail "the job key $key is not a file of root's or this user's: refusing it"
"$keygen" -y -f "$key" >"$dir/id.pub" || fail "cannot read the job key $key"
{
	cat "$dir/id.pub"
	if [ -n "${JOBSHIFT_SSH_USERKEYS:-}" ]; then
		printf '%s\n' "$JOBSHIFT_SSH_USERKEYS"
	fi
} >"$dir/authorized_keys"
rm -f "$dir/host_key" "$dir/host_key.pub"
"$keygen" -q -t ed25519 -N '' -f "$dir/host_key" || fail "cannot make a host key"

# The client config: one Host block per peer, then the job-wide settings.
# (A function, so `set --` leaves the command's arguments alone.)
host_blocks() {
	old_ifs=$IFS
	IFS=,
	for entry in $hosts; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $entry
		IFS=,
		[ $# -ge 3 ] || fail "bad host entry '$entry'"
		a=$1 p=$2
		shift 2
		# Every value is checked before it reaches ssh_config (the grammar
		# of translate/contract's topology checks): an address from a
		# forged topology could carry a newline and a ProxyCommand.
		case $a in '' | *[!A-Za-z0-9.:_-]*) fail "bad address in host entry '$entry'" ;; esac
		case $p in '' | *[!0-9]* | 0*) fail "bad port in host entry '$entry'" ;; esac
		[ "$p" -le 65535 ] || fail "bad port in host entry '$entry'"
		for n in "$@"; do
			case $n in '' | *[!A-Za-z0-9._-]*) fail "bad host name in host entry '$entry'" ;; esac
		done
		IFS=' ' # "$*" joins with the first character of IFS
		printf 'Host %s\n\tHostName %s\n\tPort %s\n' "$*" "$(q "$a")" "$p" >>"$dir/ssh_config"
		printf 'Host %s\n  HostName %s\n  Port %s\n' "$*" "$a" "$p" >>"$dir/files_config"
		IFS=,
		aliases="$aliases $1"
		for n in "$@"; do
			if [ "$n" = "$me" ]; then
				addr=$a port=$p
			fi
		done
	done
	IFS=$old_ifs
}
addr='' port='' aliases=''
: >"$dir/ssh_config"
: >"$dir/files_config"
host_blocks
[ -n "$port" ] || fail "this task ($me) is not in JOBSHIFT_SSH_HOSTS"

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
	old_ifs=$IFS
	IFS=.
	# shellcheck disable=SC2086 # split on purpose
	set -- $1
	IFS=$old_ifs
	[ $# = 4 ] && printf '%s\n' $((($1 << 24) | ($2 << 16) | ($3 << 8) | $4))
}
peers_cidr() {
	first=$(ip4 "$addr") || return 1
	diff=0
	for h in $(printf '%s\n' "$JOBSHIFT_SSH_HOSTS" | tr ',' '\n' | cut -d' ' -f1); do
		n=$(ip4 "$h") || return 1
		diff=$((diff | (n ^ first)))
	done
	[ "$diff" != 0 ] || { echo lo && return 0; }
	bits=0
	while [ "$diff" != 0 ]; do
		diff=$((diff >> 1)) bits=$((bits + 1))
	done
	net=$(((first >> bits) << bits))
	printf '%s.%s.%s.%s/%s\n' $((net >> 24 & 255)) $((net >> 16 & 255)) $((net >> 8 & 255)) $((net & 255)) $((32 - bits))
}
# shellcheck disable=SC2034 # read by the eval below
if ompi_if=$(peers_cidr); then
	for v in OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include; do
		eval "[ -n \"\${$v+x}\" ] || { $v=\$ompi_if; export $v; }"
	done
fi
cat >>"$dir/ssh_config" <<EOF
Host *
	User $user
	IdentityFile $(q "$key")
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	GlobalKnownHostsFile /dev/null
	LogLevel ERROR
	BatchMode yes
	ConnectionAttempts 10
EOF
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(sq "$ssh")" "$(sq "$dir/ssh_config")" >"$dir/bin/ssh"
chmod 700 "$dir/bin/ssh"

# A target that launches MPI ranks itself (Slurm's mpi = "pmix") names its
# mpirun in JOBSHIFT_MPIRUN: the user's mpirun line runs it unchanged.
if [ -n "${JOBSHIFT_MPIRUN:-}" ]; then
	for m in mpirun mpiexec orterun; do
		printf '#!/bin/sh\nJOBSHIFT_MPIRUN_SKIP=%s exec sh %s "$@"\n' "$(sq "$dir/bin")" "$(sq "$JOBSHIFT_MPIRUN")" >"$dir/bin/$m"
		chmod 700 "$dir/bin/$m"
	done
fi
PATH=$dir/bin:$PATH
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
	files=$JOBSHIFT_SSH_FILES
	placed "$files" || fail "$files was not placed for this task (not a mount point of its own): the ssh plugin's files are not written there"
	fmode=644
	[ "$files" != /root/.ssh ] || fmode=600
	rm -f "$files/id_rsa" "$files/id_rsa.pub" "$files/authorized_keys" "$files/config" || fail "cannot clear $files"
	# shellcheck disable=SC2015 # fail exits
	cat "$key" >"$files/id_rsa" && chmod 600 "$files/id_rsa" &&
		cat "$dir/id.pub" >"$files/id_rsa.pub" &&
		cat "$dir/authorized_keys" >"$files/authorized_keys" &&
		{
			printf 'StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n'
			cat "$dir/files_config"
			printf 'Host *\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  LogLevel ERROR\n' "$user" "$(q "$files/id_rsa")"
		} >"$files/config" &&
		chmod "$fmode" "$files/id_rsa.pub" "$files/authorized_keys" "$files/config" ||
		fail "cannot write the ssh files in $files"
fi

# The sshd: key logins only, for this user, with the task's search paths
# (an ssh session starts with a fresh environment; OpenPAI copied its
# variables to /etc/environment for the same reason).
{
	printf 'Port %s\nListenAddress %s\n' "$port" "$addr"
	printf 'HostKey %s\nPidFile %s\n' "$(q "$dir/host_key")" "$(q "$dir/sshd.pid")"
	# StrictModes checks an AuthorizedKeysFile's every parent directory,
	# which on Nomad (0777) and under /tmp (1777) fails: the keys come
	# from a command instead (root's cat, which sshd checks) reading them
	# in this private directory, which safe_parent keeps in place.
	printf 'AuthorizedKeysFile none\nAuthorizedKeysCommand %s %s\nAuthorizedKeysCommandUser %s\n' "$cat" "$(q "$dir/authorized_keys")" "$user"
	printf 'StrictModes yes\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n'
	printf 'PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nAllowUsers %s\n' "$user"
	printf 'PrintMotd no\nX11Forwarding no\nMaxStartups 100:30:200\nMaxSessions 100\n'
	for v in PATH LD_LIBRARY_PATH PYTHONPATH OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM; do
		eval "val=\${$v-}"
		# shellcheck disable=SC2154 # val is set by the eval
		case $val in
		'' | *'"'* | *'%'*) ;;
		*) printf 'SetEnv "%s=%s"\n' "$v" "$val" ;;
		esac
	done
} >"$dir/sshd_config"
if [ "$(id -u)" = 0 ]; then
	mkdir -p /run/sshd 2>/dev/null # privilege separation directory
fi

# Every MPIJob task's files, as the operator's ConfigMap held them.
if [ -n "${JOBSHIFT_MPI_HOSTFILE:-}" ]; then
	mdir=${JOBSHIFT_MPI_DIR:?}
	# private: only this user's tasks read it (Slurm made it 0700 already)
	own_dir "$mdir"
	marker=$(mktemp "$mdir/.task.$me.XXXXXX") || fail "cannot write in $mdir"
	# shellcheck disable=SC2015 # fail exits
	printf '%s\n' "$JOBSHIFT_MPI_HOSTFILE" | tr ',' '\n' >"$mdir/hostfile.tmp.$$" && mv -f "$mdir/hostfile.tmp.$$" "$mdir/hostfile" ||
		fail "cannot write $mdir/hostfile"
	# kubexec.sh was `kubectl exec <pod> -- /bin/sh -c "$*"`; ssh runs the
	# same command line on the same pod. The same text in every task (tasks
	# on one host share the directory): the ssh on PATH is each task's own.
	# shellcheck disable=SC2015 # fail exits
	printf '#!/bin/sh\nexec ssh "$@"\n' >"$mdir/kubexec.sh.tmp.$$" &&
		chmod 755 "$mdir/kubexec.sh.tmp.$$" && mv -f "$mdir/kubexec.sh.tmp.$$" "$mdir/kubexec.sh" ||
		fail "cannot write $mdir/kubexec.sh"
	chmod 644 "$mdir/hostfile"
fi

"$sshd" -t -f "$dir/sshd_config" || fail "sshd rejects its configuration $dir/sshd_config"
if [ "$idle" = 1 ]; then
	if [ -z "$marker" ]; then
		exec "$sshd" -D -e -f "$dir/sshd_config"
	fi
	# the sshd in the foreground, but this shell stays to release the
	# MPI directory when the target stops the task
	# the trap is set before the fork and a stop that came before $spid
	# was known is passed on after: no stop is lost (nor kills this shell
	# before it released the MPI directory)
	stop=0 spid=
	trap 'stop=1; [ -n "$spid" ] && kill "$spid" 2>/dev/null' TERM INT HUP
	"$sshd" -D -e -f "$dir/sshd_config" </dev/null &
	spid=$!
	[ "$stop" = 1 ] && kill "$spid" 2>/dev/null
	wait "$spid"
	rc=$?
	kill "$spid" 2>/dev/null && wait "$spid"
	mpi_release
	[ -z "$made" ] || rm -rf "$made"
	exit "$rc"
fi
# The sshd lives as long as the command: a watcher stops it once the
# process that becomes the command (this shell's pid) is gone, whatever
# the target's own clean-up does.
main=$$
(
	"$sshd" -D -e -f "$dir/sshd_config" 2>>"$dir/sshd.log" </dev/null &
	spid=$!
	# a stop signal to the task's process group ends the command, not the
	# watcher: it still stops the sshd and releases the MPI directory
	# (set after the sshd started: an ignored signal stays ignored in it)
	trap '' TERM INT HUP
	while kill -0 "$main" 2>/dev/null && kill -0 "$spid" 2>/dev/null; do
		sleep 1
	done
	kill "$spid" 2>/dev/null
	mpi_release
	[ -z "$made" ] || rm -rf "$made"
) </dev/null >/dev/null 2>&1 &

if [ -n "${JOBSHIFT_SSH_BARRIER:-}" ]; then
	end=$(($(date +%s) + JOBSHIFT_SSH_BARRIER))
	for h in $aliases; do
		until ssh -o ConnectTimeout=2 -o ConnectionAttempts=1 "$h" true </dev/null 2>/dev/null; do
			if [ "$(date +%s)" -ge "$end" ]; then
				printf 'jobshift ssh emulation: sshbarrier: %s does not answer after %ss\n' "$h" "$JOBSHIFT_SSH_BARRIER" >&2
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
	old_ifs=$IFS
	IFS=.
	# shellcheck disable=SC2086 # the address is split on purpose
	set -- $1
	IFS=$old_ifs
	[ $# = 4 ] || return 0
	le=$(($1 | ($2 << 8) | ($3 << 16) | ($4 << 24)))
	best='' bestm=-1
	while read -r dev dest gw _ _ _ _ mask _; do
		case $dest$gw$mask in *[!0-9A-Fa-f]*) continue ;; esac
		[ "$gw" = 00000000 ] || continue
		m=$((0x$mask))
		if [ $((le & m)) = $((0x$dest)) ] && [ "$m" -gt "$bestm" ]; then
			best=$dev bestm=$m
		fi
	done </proc/net/route 2>/dev/null
	printf '%s\n' "$best"
}

# ifaces names the interface of the task's address for Gloo and NCCL, as
# drivers/taskns does for a plain process (whose variables are set by
# now): a container in its node's network sees every interface of the
# node where a pod saw one. (OpenMPI's is the peers' network, above: a
# name would be passed on to every node's daemons, whose interface may be
# named otherwise.) Platform additions: never over what is set.
ifaces() {
	case $addr in 127.*) dev=lo ;; *) dev=$(ipv4_iface "$addr") ;; esac
	[ -n "$dev" ] || return 0
	for v in GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME; do
		eval "[ -n \"\${$v+x}\" ] || { $v=\$dev; export $v; }"
	done
}
ifaces
[ $# -gt 0 ] || { mpi_release; exit 0; }
[ -n "$marker" ] || exec "$@"
# A task holding the MPI directory runs its command as a child, so that it
# can release the directory when the command ends: an exec'd command's
# end is the task's, and the target kills what is left at once (Nomad's
# executor does). Stop signals are passed on; stdin stays the task's.
# (The trap is set before the fork, and a stop that came before $cpid was
# known is passed on after it.)
stop=0 cpid=
trap 'stop=1; [ -n "$cpid" ] && kill -TERM "$cpid" 2>/dev/null' TERM INT HUP
exec 3<&0
"$@" <&3 3<&- &
cpid=$!
exec 3<&-
[ "$stop" = 1 ] && kill -TERM "$cpid" 2>/dev/null
wait "$cpid"
rc=$?
while kill -0 "$cpid" 2>/dev/null; do
	wait "$cpid"
	rc=$?
done
mpi_release
exit "$rc"
