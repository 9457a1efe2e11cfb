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
#   ifaddrs DEV ADDR...           this node's addresses and their interfaces,
#                                  as `ip -o addr show` lists them (inet and
#                                  inet6), space-separated pairs: what a
#                                  caller that knows them already (nomad-env,
#                                  in Go) writes to spare the task ip's runs
# Environment: JOBSHIFT_HOSTS (translate/contract HostsVar), entries
# "ADDR NAME VAR..." joined by ',': NAME resolves to ADDR in the task's
# /etc/hosts; without a namespace, ADDR replaces the NAME that starts the
# value of each VAR instead (the task reaches the peer by its address).
# Exit code 127 when the view cannot be built (the command never ran).
# JOBSHIFT_TASKNS_INSIDE=root and JOBSHIFT_TASKNS_MODE=root: the caller
# has made the private mount (propagation private) and UTS namespaces
# itself, as unshare(1) would (drivers/taskns ExecRoot).

set -u
fail() {
	printf 'jobshift task namespace: %s\n' "$*" >&2
	exit 127
}
{ [ $# -ge 3 ] && [ "$2" = -- ]; } || fail "usage: taskns.sh SPEC -- command [args...]"
spec=$1
shift 2
tab='	'

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

# The first value of each key a start needs, read in one pass (get costs
# a subshell, a fork, each: with the execs, the dearest part of a start).
mode='' scratch='' name='' addr='' ifaddrs='' seen=' '
while IFS= read -r line; do
	case $line in *"$tab"*) ;; *) continue ;; esac
	k=${line%%"$tab"*}
	case $seen in *" $k "*) continue ;; esac
	seen="$seen$k "
	v=${line#*"$tab"}
	case $k in
	mode) mode=$v ;;
	scratch) scratch=$v ;;
	hostname) name=$v ;;
	addr) addr=$v ;;
	ifaddrs) ifaddrs=$v ;;
	esac
done <"$spec"
case $seen in *" mode "*) ;; *) fail "no mode in $spec" ;; esac
inside=${JOBSHIFT_TASKNS_INSIDE:-}
if [ "$mode" = auto ] && [ -z "$inside" ]; then
	mode=none
	if [ "$(id -u)" = 0 ] && unshare --mount --uts --propagation private true 2>/dev/null; then
		mode=root
	elif unshare --user --map-root-user --mount --uts true 2>/dev/null; then
		mode=user
	elif [ -n "$name" ]; then
		printf '%s\n' "jobshift: warning: this task keeps the node's host name, not $name (no private UTS namespace: not root, and unprivileged user namespaces are not allowed); OpenMPI's shared-memory transport, NCCL and Horovod take tasks with one host name for one node; allow them on the nodes (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) or run the task in a container" >&2
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

if [ -n "$scratch" ] && [ ! -d "$scratch" ]; then
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
	{ mkdir -p "$u" && mount -t tmpfs -o mode=755 jobshift-underlay "$u"; } || fail "cannot mount a tmpfs on $u"
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
	{ top=$(readlink -f -- "$2") && real=$(readlink -f -- "$1"); } || fail "cannot resolve $1 or $2"
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

# resolve ADDR sets resolved to ADDR, or to the first address a name
# resolves to ("" if none; only a name costs a subshell).
resolve() {
	case $1 in
	*[!0-9.:a-fA-F]*) resolved=$(getent ahosts "$1" 2>/dev/null | { read -r x _ && printf '%s\n' "$x"; }) ;;
	*) resolved=$1 ;;
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
	resolve "$1"
	[ -n "$resolved" ] && printf '%s\t%s\n' "$resolved" "$2"
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

# given calls $pair_fn DEV ADDR for each pair of the spec's ifaddrs (this
# node's addresses: nomad-env lists them, sparing the task ip's runs)
# until it returns non-zero.
given() {
	g_ifs=$IFS
	IFS=' '
	set -f
	# shellcheck disable=SC2086 # the pairs are split on purpose
	set -- $ifaddrs
	set +f
	IFS=$g_ifs
	while [ $# -ge 2 ]; do
		"$pair_fn" "$1" "$2" || break
		shift 2
	done
}

# here sets node_addrs to this node's addresses (inet and inet6), each
# between spaces.
node_addrs='' here_done=''
here() {
	[ -z "$here_done" ] || return 0
	here_done=1
	if [ -n "$ifaddrs" ]; then
		pair_fn=here_one
		given
		return 0
	fi
	node_addrs=$(ip -o addr show 2>/dev/null | while read -r _ _ fam cidr _; do
		case $fam in inet | inet6) printf ' %s ' "${cidr%/*}" ;; esac
	done)
}
here_one() { node_addrs="$node_addrs $2 "; }

# iface ADDR sets dev to the interface that holds ADDR ("" if none).
iface() {
	resolve "$1"
	dev=''
	[ -n "$resolved" ] || return 1
	if [ -n "$ifaddrs" ]; then
		pair_fn=iface_one
		given
		return 0
	fi
	command -v ip >/dev/null 2>&1 || return 1
	dev=$(ip -o addr show 2>/dev/null | while read -r _ d fam cidr _; do
		case $fam in inet | inet6) ;; *) continue ;; esac
		if [ "${cidr%/*}" = "$resolved" ]; then
			printf '%s\n' "${d%%@*}"
			break
		fi
	done)
}
iface_one() {
	[ "$2" = "$resolved" ] || return 0
	dev=$1
	return 1
}

# ssh_hosts calls $ssh_fn ADDR ALIAS... per task the ssh emulation reaches
# (JOBSHIFT_SSH_HOSTS: "<addr> <port> <alias>..." entries joined by ','; the
# tasks mpirun starts OpenMPI's daemons and ranks on), ADDR numeric
# (resolve; one that resolves to none drops out, its first alias taking its
# place, as from a line "ADDR ALIAS..." read back), until it returns
# non-zero (then so does ssh_hosts).
ssh_hosts() {
	old_ifs=$IFS
	IFS=,
	for e in ${JOBSHIFT_SSH_HOSTS:-}; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $e
		IFS=,
		[ $# -ge 3 ] || continue
		resolve "$1"
		shift 2
		IFS=' '
		# shellcheck disable=SC2086 # an empty address drops out
		set -- $resolved "$@"
		"$ssh_fn" "$@" || {
			IFS=$old_ifs
			return 1
		}
		IFS=,
	done
	IFS=$old_ifs
}

# peer_hosts calls $ssh_fn ADDR NAME... per entry of JOBSHIFT_PEER_HOSTS
# (translate/contract PeerHostsVar: entries joined by ','), ADDR numeric
# (resolve), as ssh_hosts does; an entry with a field outside the name
# grammar is skipped.
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
		resolve "$1"
		shift
		IFS=' '
		# shellcheck disable=SC2086 # an empty address drops out
		set -- $resolved "$@"
		"$ssh_fn" "$@" || {
			IFS=$old_ifs
			return 1
		}
		IFS=,
	done
	IFS=$old_ifs
}

# ssh_peers_here: every task the ssh emulation reaches is at an address of
# this node.
ssh_peers_here() {
	[ -n "${JOBSHIFT_SSH_HOSTS:-}" ] || return 1
	here
	ssh_fn=ssh_peer_here
	ssh_hosts
}
ssh_peer_here() {
	case $node_addrs in *" $1 "*) return 0 ;; esac
	return 1
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
		# The names of the peers the ssh emulation reaches on other nodes,
		# as the platform's DNS resolved them: a program that looks one up
		# (mpirun does each hostfile name, to find its own node) gets its
		# address at once, not after a DNS server's answer or timeout. A
		# peer on this node is left out: its address is this node's, so
		# mpirun would take it for its own node and start its ranks here
		# (on the platform each pod had an address of its own).
		# Likewise every task's platform names (JOBSHIFT_PEER_HOSTS: the
		# names Volcano's svc plugin writes, which its headless service
		# resolved).
		if [ -n "${JOBSHIFT_SSH_HOSTS:-}${JOBSHIFT_PEER_HOSTS:-}" ]; then
			here
			ssh_fn=ssh_host_line
			ssh_hosts
			peer_hosts
		fi
	} >"$scratch/hosts"
	[ -s "$scratch/hosts" ] || return 0
	if [ -f /etc/hosts ]; then
		cat /etc/hosts >>"$scratch/hosts"
	fi
	mountpoint /etc/hosts "$scratch/hosts"
	mount --bind "$scratch/hosts" "$root/etc/hosts" || fail "cannot mount the task's /etc/hosts"
}
ssh_host_line() {
	a=$1
	shift
	case $node_addrs in *" $a "*) return 0 ;; esac
	case $a in '' | *[!0-9.:a-fA-F]*) return 0 ;; esac
	printf '%s\t%s\n' "$a" "$*"
}

if [ "$mode" != none ]; then
	if [ -n "$name" ]; then
		# The namespace's name through /proc/sys/kernel/hostname (no exec)
		# as root, where it is not read-only (a container's); else
		# sethostname(2) through hostname(1): /proc/sys/kernel/hostname
		# belongs to the host's root, not to a user namespace's.
		{ [ "$mode" = root ] && { printf '%s' "$name" >/proc/sys/kernel/hostname; } 2>/dev/null; } ||
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
if [ -n "$addr" ] && iface "$addr" && [ -n "$dev" ]; then
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
# namespace, and unshare(1) enters it after making one. Neither: the
# command replaces the shell at once.
if [ "$mode" != user ] && [ -z "$root" ]; then
	exec "$@"
fi
set -- --wd="$(pwd)" -- "$@"
if [ -n "$root" ]; then
	set -- --root="$root" "$@"
fi
if [ "$mode" = user ]; then
	ids=${inside#user }
	set -- --user --map-user="${ids% *}" --map-group="${ids#* }" "$@"
fi
exec "$(command -v unshare)" "$@"
