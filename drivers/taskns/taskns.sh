# jobshift task namespace: what a pod or container gave each task besides
# its command, rebuilt for a plain process (Slurm step, Nomad raw_exec or
# exec task, local process):
#   - its own host name (hostname, gethostname(), $HOSTNAME), in a private
#     UTS namespace;
#   - an /etc/hosts where its own and its peers' platform names resolve to
#     their addresses (and, for tasks on other nodes, those of the ssh
#     emulation's peers, JOBSHIFT_SSH_HOSTS, and of every task
#     JOBSHIFT_PEER_HOSTS names), and data and platform files at the job's own paths,
#     in a private mount namespace (nothing reaches the host's mount table);
#   - the interface carrying the task's address, for the collective
#     libraries (OpenMPI, Gloo, NCCL), unless the job set them itself;
#     for OpenMPI lo when every task the ssh emulation reaches
#     (JOBSHIFT_SSH_HOSTS) is on this node.
# Then it execs the command with its arguments unchanged.
#
# Usage: sh taskns.sh SPEC -- command [args...]
# SPEC holds one item per line, fields separated by one TAB (drivers/taskns
# writes it and refuses values holding a TAB or a newline):
#   mode    root | user | none | auto
#                                  root: unshare the mount and UTS namespaces;
#                                  user: the same inside a user namespace
#                                  (unprivileged), the command then runs
#                                  under the caller's own uid and gid again;
#                                  none: only the interface variables;
#                                  auto: the first of root and user this
#                                  node allows, else none with a warning
#                                  (refused when the spec has a bind)
#                                  (a target that knows nothing of its
#                                  nodes when it renders: Nomad)
#   scratch DIR                   this start's private directory
#   hostname NAME
#   host    ADDR NAME...          an /etc/hosts line (names space-separated)
#   bind    ro|rw SRC DST [TREE [nolink]]
#                                 a directory or file at the job's path;
#                                 with TREE, SRC must stay inside TREE once
#                                 links are resolved (the resolved path is
#                                 mounted), and with nolink TREE must not be
#                                 a link itself (a user's own directory)
#   dir     rw SRC DST            a private directory of the task's (SRC,
#                                  made 0700 if missing) writable at DST
#   empty   disk|memory SIZE DST [DIR]
#                                 an emptyDir at DST: DIR (made if missing;
#                                 none: a fresh directory of the scratch
#                                 directory) for disk, or a tmpfs (memory)
#                                 of SIZE MiB (0: no size given)
#   addr    ADDR                  the task's own address (an IP, or a name
#                                  resolved with getent)
# Environment: JOBSHIFT_HOSTS (translate/contract HostsVar), entries
# "ADDR NAME VAR..." joined by ',': NAME resolves to ADDR in the task's
# /etc/hosts; without a namespace, ADDR replaces the NAME that starts the
# value of each VAR instead (the task reaches the peer by its address).
# Exit code 127 when the view cannot be built (the command never ran).

set -u
fail() {
	printf 'jobshift task namespace: %s\n' "$*" >&2
	exit 127
}
[ $# -ge 3 ] && [ "$2" = -- ] || fail "usage: taskns.sh SPEC -- command [args...]"
spec=$1
shift 2
tab=$(printf '\t')

# get KEY prints the first value of KEY (the rest of its line).
get() {
	while IFS= read -r line; do
		case $line in "$1$tab"*)
			printf '%s\n' "${line#*"$tab"}"
			return 0
			;;
		esac
	done <"$spec"
	return 1
}

mode=$(get mode) || fail "no mode in $spec"
inside=${JOBSHIFT_TASKNS_INSIDE:-}
if [ "$mode" = auto ] && [ -z "$inside" ]; then
	mode=none
	if [ "$(id -u)" = 0 ] && unshare --mount --uts --propagation private true 2>/dev/null; then
		mode=root
	elif unshare --user --map-root-user --mount --uts true 2>/dev/null; then
		mode=user
	elif [ -n "$(get hostname)" ]; then
		printf '%s\n' "jobshift: warning: this task keeps the node's host name, not $(get hostname) (no private UTS namespace: not root, and unprivileged user namespaces are not allowed); OpenMPI's shared-memory transport, NCCL and Horovod take tasks with one host name for one node; allow them on the nodes (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) or run the task in a container" >&2
	fi
	if [ "$mode" = none ] && { bind=$(get bind) || bind=$(get dir) || bind=$(get empty); }; then
		# data or a file the job needs at its path: never start without it
		bind=$(printf '%s\n' "$bind" | { IFS="$tab" read -r _ _ d _ && printf '%s' "$d"; })
		fail "the task needs $bind at the path the job names, which a plain process gets only through a private mount namespace, and this node allows none (not root, and unprivileged user namespaces are not allowed); allow them on the nodes (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0), run the job's tasks as root, or use a container driver (nomad.driver = \"docker\")"
	fi
	[ "$mode" = none ] || JOBSHIFT_TASKNS_MODE=$mode
fi
mode=${JOBSHIFT_TASKNS_MODE:-$mode}
if [ "$mode" != none ] && [ -z "$inside" ]; then
	unshare=$(command -v unshare) || fail "unshare (util-linux) not found on PATH"
	case $mode in
	root)
		JOBSHIFT_TASKNS_MODE=root JOBSHIFT_TASKNS_INSIDE=root exec "$unshare" --mount --uts --propagation private /bin/sh "$0" "$spec" -- "$@"
		;;
	user)
		JOBSHIFT_TASKNS_MODE=user JOBSHIFT_TASKNS_INSIDE="user $(id -u) $(id -g)" exec "$unshare" --user --map-root-user --mount --uts --propagation private /bin/sh "$0" "$spec" -- "$@"
		;;
	*) fail "unknown mode $mode" ;;
	esac
fi
unset JOBSHIFT_TASKNS_INSIDE JOBSHIFT_TASKNS_MODE

scratch=$(get scratch) || scratch=''
if [ -n "$scratch" ]; then
	mkdir -p "$scratch" || fail "cannot make $scratch"
fi
root=''    # the new root when / had to be underlaid (then chroot)
under=0

# underlay DIR makes DIR writable in this namespace only: a tmpfs holding
# the same entries (directories and files bound, links copied) is mounted
# over it, so a missing mount point can be made without touching the host.
underlay() {
	[ -n "$scratch" ] || fail "no scratch directory to build $1 in"
	under=$((under + 1))
	u=$scratch/underlay-$under
	mkdir -p "$u" && mount -t tmpfs -o mode=755 jobshift-underlay "$u" || fail "cannot mount a tmpfs on $u"
	for e in "$root$1"/* "$root$1"/.[!.]* "$root$1"/..?*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		b=${e##*/}
		if [ -L "$e" ]; then
			ln -s "$(readlink "$e")" "$u/$b"
		elif [ -d "$e" ]; then
			mkdir "$u/$b" && mount --rbind "$e" "$u/$b"
		else
			: >"$u/$b" && mount --bind "$e" "$u/$b"
		fi || fail "cannot show $e in the task's view of $1"
	done
	if [ "$1" = / ]; then
		root=$u
	else
		mount --rbind "$u" "$root$1" || fail "cannot mount the task's view of $1"
	fi
}

# mountpoint DST SRC makes DST (a directory when SRC is one, else a file).
mountpoint() {
	[ -e "$root$1" ] && return 0
	a=$1
	while [ ! -e "$root$a" ] && [ ! -L "$root$a" ]; do
		a=$(dirname "$a")
	done
	[ -d "$root$a" ] || fail "$a is not a directory, so $1 cannot be made"
	underlay "$a"
	if [ -d "$2" ]; then
		mkdir -p "$root$1"
	else
		mkdir -p "$root$(dirname "$1")" && : >"$root$1"
	fi || fail "cannot make $1 in the task's view"
}

# intree SRC TREE [nolink] prints SRC with its links resolved, failing
# when that leaves TREE (resolved too), or, with nolink, when TREE is a
# link: nothing outside a mapped tree becomes visible to the task.
intree() {
	if [ "${3:-}" = nolink ] && [ -L "$2" ]; then
		fail "$2 is a symbolic link, which would show the task another tree than the one mapped; $1 is not mounted"
	fi
	top=$(readlink -f -- "$2") && real=$(readlink -f -- "$1") || fail "cannot resolve $1 or $2"
	case $real/ in
	"$top"/*) printf '%s\n' "$real" ;;
	*) fail "$1 leads to $real, outside the mapped tree $2; it is not mounted" ;;
	esac
}

# empty MEDIUM SIZE DST [DIR] makes the emptyDir at DST (empties: how many).
empties=0
empty() {
	empties=$((empties + 1))
	d=${4:-}
	if [ -z "$d" ]; then
		[ -n "$scratch" ] || fail "no scratch directory to make the emptyDir $3 in"
		d=$scratch/emptydir-$empties
	fi
	mkdir -p "$d" || fail "cannot make $d for $3"
	mountpoint "$3" "$d"
	if [ "$1" = memory ]; then
		o=mode=1777
		[ "$2" = 0 ] || o=$o,size=${2}m
		mount -t tmpfs -o "$o" jobshift-emptydir "$root$3" || fail "cannot mount a tmpfs at $3"
	else
		mount --bind "$d" "$root$3" || fail "cannot mount $d at $3"
	fi
}

binds() {
	while IFS="$tab" read -r kind ro src dst tree flag; do
		case $kind in
		empty)
			empty "$ro" "$src" "$dst" "$tree"
			continue
			;;
		bind)
			[ -e "$src" ] || fail "$src (for $dst) does not exist"
			if [ -n "$tree" ]; then
				src=$(intree "$src" "$tree" "$flag") || exit 127
			fi
			;;
		dir)
			[ -e "$src" ] || [ -L "$src" ] || (umask 077 && mkdir -p "$src") || fail "cannot make $src (for $dst)"
			{ [ ! -L "$src" ] && [ -d "$src" ]; } || fail "$src (for $dst) is not a directory"
			;;
		*) continue ;;
		esac
		mountpoint "$dst" "$src"
		mount --bind "$src" "$root$dst" || fail "cannot mount $src at $dst"
		if [ "$ro" = ro ]; then
			mount -o remount,bind,ro "$root$dst" || fail "cannot make $dst read-only"
		fi
	done <"$spec"
}

# ip_of ADDR prints ADDR, or the first address a name resolves to.
ip_of() {
	case $1 in
	*[!0-9.:a-fA-F]*) getent ahosts "$1" 2>/dev/null | { read -r x _ && printf '%s\n' "$x"; } ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# peers calls FN ADDR NAME VAR... for each entry of $JOBSHIFT_HOSTS whose
# fields are an address, a host name and variable names.
peers() {
	[ -n "${JOBSHIFT_HOSTS:-}" ] || return 0
	p_ifs=$IFS
	IFS=,
	for p_e in $JOBSHIFT_HOSTS; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $p_e
		IFS=,
		[ $# -ge 2 ] || continue
		case $1$2 in *[!A-Za-z0-9.:_-]*) continue ;; esac
		"$peer_fn" "$@"
	done
	IFS=$p_ifs
}

# peer_host prints the /etc/hosts line of a peer's name.
peer_host() {
	a=$(ip_of "$1") && [ -n "$a" ] && printf '%s\t%s\n' "$a" "$2"
}

# peer_addr puts the peer's address in place of its name at the start of
# each variable's value (no namespace: the name resolves nowhere).
peer_addr() {
	a=$1 n=$2
	shift 2
	for v in "$@"; do
		case $v in '' | [0-9]* | *[!A-Za-z0-9_]*) continue ;; esac
		eval "val=\${$v-}"
		# shellcheck disable=SC2154 # val is set by the eval
		case $val in "$n"*)
			eval "$v=\$a\${val#\"\$n\"}"
			export "${v?}"
			;;
		esac
	done
}

# here prints this node's addresses, each between spaces.
here() {
	ip -o addr show 2>/dev/null | while read -r _ _ fam cidr _; do
		case $fam in inet | inet6) printf ' %s ' "${cidr%/*}" ;; esac
	done
}

# iface ADDR prints the interface that holds ADDR.
iface() {
	a=$(ip_of "$1")
	[ -n "$a" ] || return 1
	command -v ip >/dev/null 2>&1 || return 1
	ip -o addr show 2>/dev/null | while read -r _ dev fam cidr _; do
		case $fam in inet | inet6) ;; *) continue ;; esac
		if [ "${cidr%/*}" = "$a" ]; then
			printf '%s\n' "${dev%%@*}"
			break
		fi
	done
}

# ssh_hosts prints "ADDR ALIAS..." per task the ssh emulation reaches
# (JOBSHIFT_SSH_HOSTS: "<addr> <port> <alias>..." entries joined by ','; the
# tasks mpirun starts OpenMPI's daemons and ranks on), ADDR numeric (ip_of).
ssh_hosts() {
	old_ifs=$IFS
	IFS=,
	for e in ${JOBSHIFT_SSH_HOSTS:-}; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $e
		IFS=,
		[ $# -ge 3 ] || continue
		a=$(ip_of "$1")
		shift 2
		IFS=' '
		printf '%s %s\n' "$a" "$*"
		IFS=,
	done
	IFS=$old_ifs
}

# peer_hosts prints "ADDR NAME..." per entry of JOBSHIFT_PEER_HOSTS
# (translate/contract PeerHostsVar: entries joined by ','), ADDR numeric.
peer_hosts() {
	old_ifs=$IFS
	IFS=,
	for e in ${JOBSHIFT_PEER_HOSTS:-}; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $e
		IFS=,
		[ $# -ge 2 ] || continue
		for f in "$@"; do
			case $f in *[!A-Za-z0-9.:_-]*) continue 2 ;; esac
		done
		a=$(ip_of "$1")
		shift
		IFS=' '
		printf '%s %s\n' "$a" "$*"
		IFS=,
	done
	IFS=$old_ifs
}

# ssh_peers_here: every task the ssh emulation reaches is at an address of
# this node.
ssh_peers_here() {
	[ -n "${JOBSHIFT_SSH_HOSTS:-}" ] || return 1
	h=$(here)
	ssh_hosts | {
		while read -r a _; do
			case $h in *" $a "*) ;; *) exit 1 ;; esac
		done
	}
}

# hosts writes the task's /etc/hosts: its own and its peers' names first
# (the first match wins), then the host's own entries.
hosts() {
	{
		while IFS="$tab" read -r kind a names; do
			[ "$kind" = host ] && printf '%s\t%s\n' "$a" "$names"
		done <"$spec"
		peer_fn=peer_host
		peers
	} >"$scratch/hosts"
	# The names of the peers the ssh emulation reaches on other nodes, as
	# the platform's DNS resolved them: a program that looks one up
	# (mpirun does each hostfile name, to find its own node) gets its
	# address at once, not after a DNS server's answer or timeout. A peer on
	# this node is left out: its address is this node's, so mpirun would take
	# it for its own node and start its ranks here (on the platform each pod
	# had an address of its own).
	# Likewise every task's platform names (JOBSHIFT_PEER_HOSTS: the
	# names Volcano's svc plugin writes, which its headless service
	# resolved).
	h=$(here)
	{
		ssh_hosts
		peer_hosts
	} | while read -r a names; do
		case $h in *" $a "*) continue ;; esac
		case $a in '' | *[!0-9.:a-fA-F]*) continue ;; esac
		printf '%s\t%s\n' "$a" "$names"
	done >>"$scratch/hosts"
	[ -s "$scratch/hosts" ] || return 0
	if [ -f /etc/hosts ]; then
		cat /etc/hosts >>"$scratch/hosts"
	fi
	mountpoint /etc/hosts "$scratch/hosts"
	mount --bind "$scratch/hosts" "$root/etc/hosts" || fail "cannot mount the task's /etc/hosts"
}

if [ "$mode" != none ]; then
	name=$(get hostname) || name=''
	if [ -n "$name" ]; then
		# sethostname(2) through hostname(1): /proc/sys/kernel/hostname
		# belongs to the host's root, not to a user namespace's.
		{ command -v hostname >/dev/null 2>&1 && hostname "$name"; } ||
			{ printf '%s' "$name" >/proc/sys/kernel/hostname; } 2>/dev/null ||
			fail "cannot set the host name $name"
		HOSTNAME=$name
		export HOSTNAME
	fi
	binds
	hosts
fi

if [ "$mode" = none ]; then
	peer_fn=peer_addr
	peers
fi

# Platform additions, like the hostfile variables: never over what is set.
if addr=$(get addr) && dev=$(iface "$addr") && [ -n "$dev" ]; then
	# OpenMPI's ranks all on this node: their traffic goes through lo
	# whatever address it is sent to, and its source may not stay the
	# address's (Docker masquerades 172.17.0.0/16 leaving by another
	# interface than docker0, lo included: a Nomad client whose
	# network_interface is docker0), which OpenMPI's TCP transport drops as
	# an unknown peer's. Gloo and NCCL check no source: the address's.
	mpidev=$dev
	if [ "$dev" != lo ] && ssh_peers_here; then
		# shellcheck disable=SC2034 # read by the eval below
		mpidev=lo
	fi
	for v in OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include; do
		eval "[ -n \"\${$v+x}\" ] || { $v=\$mpidev; export $v; }"
	done
	for v in GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME; do
		eval "[ -n \"\${$v+x}\" ] || { $v=\$dev; export $v; }"
	done
fi

# A user namespace's root goes back to the caller's own uid and gid for
# the command (a nested user namespace mapping them onto ours). The new
# root, if any, is entered last: a chrooted process may not make a user
# namespace, and unshare(1) enters it after making one.
set -- --wd="$(pwd)" -- "$@"
if [ -n "$root" ]; then
	set -- --root="$root" "$@"
fi
if [ "$mode" = user ]; then
	ids=${inside#user }
	set -- --user --map-user="${ids% *}" --map-group="${ids#* }" "$@"
fi
exec "$(command -v unshare)" "$@"
