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
#     (JOBSHIFT_SSH_HOSTS) is on this node;
#   - with netns (root), a network of its own on a node the job's tasks
#     share, as each pod had: its own address, its peers' at theirs.
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
#                                 of SIZE MiB (0: no size given): with DIR,
#                                 the tmpfs mounted at DIR on the node (in
#                                 root mode, before the namespace is made,
#                                 if DIR is no mount point yet), shared by
#                                 every task naming it (an init task and
#                                 its main task); the caller unmounts it
#   addr    ADDR                  the task's own address (an IP, or a name
#                                  resolved with getent)
#   netns   KEY CIDR              a network of the task's own (root only), as
#                                  each pod had: an interface eth0 whose
#                                  address is the CIDR's (N+1)-th, N the task's
#                                  entry in JOBSHIFT_PEER_HOSTS (the one naming
#                                  its hostname), on a link shared by the
#                                  tasks of this node whose spec has KEY; every
#                                  entry's names resolve to theirs (see netns)
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
# The script's own variables all start with _jsn_ (reserved): a variable
# of the job's environment is exported, so one the script assigned under
# the job's own name would reach the command changed.

set -u
fail() {
	printf 'jobshift task namespace: %s\n' "$*" >&2
	exit 127
}
{ [ $# -ge 3 ] && [ "$2" = -- ]; } || fail "usage: taskns.sh SPEC -- command [args...]"
_jsn_spec=$1
shift 2
_jsn_tab='	'

# get KEY prints the first value of KEY (the rest of its line).
get() {
	while IFS= read -r _jsn_line; do
		case $_jsn_line in "$1$_jsn_tab"*)
			printf '%s\n' "${_jsn_line#*"$_jsn_tab"}"
			return 0
			;;
		esac
	done <"$_jsn_spec"
	return 1
}

# The first value of each key a start needs, read in one pass (get costs
# a subshell, a fork, each: with the execs, the dearest part of a start).
_jsn_mode='' _jsn_scratch='' _jsn_name='' _jsn_addr='' _jsn_ifaddrs='' _jsn_net='' _jsn_seen=' '
while IFS= read -r _jsn_line; do
	case $_jsn_line in *"$_jsn_tab"*) ;; *) continue ;; esac
	_jsn_k=${_jsn_line%%"$_jsn_tab"*}
	case $_jsn_seen in *" $_jsn_k "*) continue ;; esac
	_jsn_seen="$_jsn_seen$_jsn_k "
	_jsn_v=${_jsn_line#*"$_jsn_tab"}
	case $_jsn_k in
	mode) _jsn_mode=$_jsn_v ;;
	scratch) _jsn_scratch=$_jsn_v ;;
	hostname) _jsn_name=$_jsn_v ;;
	addr) _jsn_addr=$_jsn_v ;;
	ifaddrs) _jsn_ifaddrs=$_jsn_v ;;
	netns) _jsn_net=$_jsn_v ;;
	esac
done <"$_jsn_spec"
case $_jsn_seen in *" mode "*) ;; *) fail "no mode in $_jsn_spec" ;; esac
_jsn_inside=${JOBSHIFT_TASKNS_INSIDE:-}
if [ "$_jsn_mode" = auto ] && [ -z "$_jsn_inside" ]; then
	_jsn_mode=none
	if [ "$(id -u)" = 0 ] && unshare --mount --uts --propagation private true 2>/dev/null; then
		_jsn_mode=root
	elif unshare --user --map-root-user --mount --uts true 2>/dev/null; then
		_jsn_mode=user
	elif [ -n "$_jsn_name" ]; then
		printf '%s\n' "jobshift: warning: this task keeps the node's host name, not $_jsn_name (no private UTS namespace: not root, and unprivileged user namespaces are not allowed); OpenMPI's shared-memory transport, NCCL and Horovod take tasks with one host name for one node; allow them on the nodes (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) or run the task in a container" >&2
	fi
	if [ "$_jsn_mode" = none ] && { _jsn_bind=$(get bind) || _jsn_bind=$(get dir) || _jsn_bind=$(get empty); }; then
		# data or a file the job needs at its path: never start without it
		_jsn_bind=$(printf '%s\n' "$_jsn_bind" | { IFS="$_jsn_tab" read -r _ _ _jsn_d _ && printf '%s' "$_jsn_d"; })
		fail "the task needs $_jsn_bind at the path the job names, which a plain process gets only through a private mount namespace, and this node allows none (not root, and unprivileged user namespaces are not allowed); allow them on the nodes (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0), run the job's tasks as root, or use a container driver (nomad.driver = \"docker\")"
	fi
	[ "$_jsn_mode" = none ] || JOBSHIFT_TASKNS_MODE=$_jsn_mode
fi
_jsn_mode=${JOBSHIFT_TASKNS_MODE:-$_jsn_mode}
if [ -n "$_jsn_net" ] && [ "$_jsn_mode" != root ]; then
	# A link between two network namespaces is made by a process with
	# CAP_NET_ADMIN over both (veth_newlink: rtnl_link_get_net_capable);
	# each task's user namespace owns its own, so no task may link them.
	fail "the job's tasks share this host and each listens on the same port at its peers' names, as each pod had a network of its own; a task gets one here only as root (a link between the tasks' network namespaces needs root on the host: an unprivileged user namespace owns its network alone), and this task is not (mode $_jsn_mode); run the job's tasks as root, or on separate hosts (one task per host), or in containers (Nomad's docker driver)"
fi

# mounted DIR: DIR is a mount point (another device than its parent's).
mounted() {
	[ "$(stat -c %d "$1" 2>/dev/null)" != "$(stat -c %d "$1/.." 2>/dev/null)" ]
}

# node_tmpfs mounts, on the node, the tmpfs of each memory emptyDir with a
# DIR that is no mount point yet (the first of the tasks sharing it).
node_tmpfs() {
	while IFS="$_jsn_tab" read -r _jsn_kind _jsn_med _jsn_size _ _jsn_d; do
		{ [ "$_jsn_kind" = empty ] && [ "$_jsn_med" = memory ] && [ -n "$_jsn_d" ]; } || continue
		# never through a link (the allocation's tasks may write there)
		{ [ ! -L "$_jsn_d" ] && [ ! -L "${_jsn_d%/*}" ]; } || fail "$_jsn_d is a symbolic link; no tmpfs is mounted there"
		mounted "$_jsn_d" && continue
		_jsn_o=mode=1777
		[ "$_jsn_size" = 0 ] || _jsn_o=$_jsn_o,size=${_jsn_size}m
		{ mkdir -p "$_jsn_d" && mount -t tmpfs -o "$_jsn_o" jobshift-emptydir "$_jsn_d"; } || fail "cannot mount a tmpfs at $_jsn_d"
	done <"$_jsn_spec"
}

if [ "$_jsn_mode" != none ] && [ -z "$_jsn_inside" ]; then
	_jsn_unshare=$(command -v unshare) || fail "unshare (util-linux) not found on PATH"
	case $_jsn_mode in
	root)
		node_tmpfs
		JOBSHIFT_TASKNS_MODE=root JOBSHIFT_TASKNS_INSIDE=root exec "$_jsn_unshare" --mount --uts --propagation private /bin/sh "$0" "$_jsn_spec" -- "$@"
		;;
	user)
		JOBSHIFT_TASKNS_MODE=user JOBSHIFT_TASKNS_INSIDE="user $(id -u) $(id -g)" exec "$_jsn_unshare" --user --map-root-user --mount --uts --propagation private /bin/sh "$0" "$_jsn_spec" -- "$@"
		;;
	*) fail "unknown mode $_jsn_mode" ;;
	esac
fi
unset JOBSHIFT_TASKNS_INSIDE JOBSHIFT_TASKNS_MODE

if [ -n "$_jsn_scratch" ] && [ ! -d "$_jsn_scratch" ]; then
	mkdir -p "$_jsn_scratch" || fail "cannot make $_jsn_scratch"
fi
_jsn_root=''    # the new root when / had to be underlaid (then chroot)
_jsn_netpin=''  # the task's network namespace (netns), pinned in its view
_jsn_dev=''
_jsn_under=0

# underlay DIR makes DIR writable in this namespace only: a tmpfs holding
# the same entries (directories and files bound, links copied) is mounted
# over it, so a missing mount point can be made without touching the host.
underlay() {
	[ -n "$_jsn_scratch" ] || fail "no scratch directory to build $1 in"
	_jsn_under=$((_jsn_under + 1))
	_jsn_u=$_jsn_scratch/underlay-$_jsn_under
	{ mkdir -p "$_jsn_u" && mount -t tmpfs -o mode=755 jobshift-underlay "$_jsn_u"; } || fail "cannot mount a tmpfs on $_jsn_u"
	for _jsn_e in "$_jsn_root$1"/* "$_jsn_root$1"/.[!.]* "$_jsn_root$1"/..?*; do
		[ -e "$_jsn_e" ] || [ -L "$_jsn_e" ] || continue
		_jsn_b=${_jsn_e##*/}
		if [ -L "$_jsn_e" ]; then
			ln -s "$(readlink "$_jsn_e")" "$_jsn_u/$_jsn_b"
		elif [ -d "$_jsn_e" ]; then
			mkdir "$_jsn_u/$_jsn_b" && mount --rbind "$_jsn_e" "$_jsn_u/$_jsn_b"
		else
			: >"$_jsn_u/$_jsn_b" && mount --bind "$_jsn_e" "$_jsn_u/$_jsn_b"
		fi || fail "cannot show $_jsn_e in the task's view of $1"
	done
	if [ "$1" = / ]; then
		_jsn_root=$_jsn_u
	else
		mount --rbind "$_jsn_u" "$_jsn_root$1" || fail "cannot mount the task's view of $1"
	fi
}

# mountpoint DST SRC makes DST (a directory when SRC is one, else a file).
mountpoint() {
	[ -e "$_jsn_root$1" ] && return 0
	_jsn_a=$1
	while [ ! -e "$_jsn_root$_jsn_a" ] && [ ! -L "$_jsn_root$_jsn_a" ]; do
		_jsn_a=$(dirname "$_jsn_a")
	done
	[ -d "$_jsn_root$_jsn_a" ] || fail "$_jsn_a is not a directory, so $1 cannot be made"
	underlay "$_jsn_a"
	if [ -d "$2" ]; then
		mkdir -p "$_jsn_root$1"
	else
		mkdir -p "$_jsn_root$(dirname "$1")" && : >"$_jsn_root$1"
	fi || fail "cannot make $1 in the task's view"
}

# intree SRC TREE [nolink] prints SRC with its links resolved, failing
# when that leaves TREE (resolved too), or, with nolink, when TREE is a
# link: nothing outside a mapped tree becomes visible to the task.
intree() {
	if [ "${3:-}" = nolink ] && [ -L "$2" ]; then
		fail "$2 is a symbolic link, which would show the task another tree than the one mapped; $1 is not mounted"
	fi
	{ _jsn_top=$(readlink -f -- "$2") && _jsn_real=$(readlink -f -- "$1"); } || fail "cannot resolve $1 or $2"
	case $_jsn_real/ in
	"$_jsn_top"/*) printf '%s\n' "$_jsn_real" ;;
	*) fail "$1 leads to $_jsn_real, outside the mapped tree $2; it is not mounted" ;;
	esac
}

# empty MEDIUM SIZE DST [DIR] makes the emptyDir at DST (empties: how many).
_jsn_empties=0
empty() {
	_jsn_empties=$((_jsn_empties + 1))
	_jsn_d=${4:-}
	if [ "$1" = memory ] && [ -n "$_jsn_d" ]; then
		# the node's tmpfs (node_tmpfs), shared with the other tasks
		# naming it; where no root made it, their common directory
		if ! mounted "$_jsn_d"; then
			printf '%s\n' "jobshift: warning: the memory emptyDir at $3 is a directory on disk, not a tmpfs: only a task running as root can mount one that its init containers share" >&2
			{ mkdir -p "$_jsn_d" && chmod 0777 "$_jsn_d"; } || fail "cannot make $_jsn_d for $3"
		fi
		mountpoint "$3" "$_jsn_d"
		mount --bind "$_jsn_d" "$_jsn_root$3" || fail "cannot mount $_jsn_d at $3"
		return 0
	fi
	if [ -z "$_jsn_d" ]; then
		[ -n "$_jsn_scratch" ] || fail "no scratch directory to make the emptyDir $3 in"
		_jsn_d=$_jsn_scratch/emptydir-$_jsn_empties
	fi
	# Writable by every user, as the kubelet makes an emptyDir (perm 0777;
	# a tmpfs's root 1777, tmpfs's default, which it leaves:
	# pkg/volume/emptydir/empty_dir.go setupDir, setupTmpfs, v1.29): the
	# image's user need not be the one that made it.
	{ mkdir -p "$_jsn_d" && chmod 0777 "$_jsn_d"; } || fail "cannot make $_jsn_d for $3"
	mountpoint "$3" "$_jsn_d"
	if [ "$1" = memory ]; then
		_jsn_o=mode=1777
		[ "$2" = 0 ] || _jsn_o=$_jsn_o,size=${2}m
		mount -t tmpfs -o "$_jsn_o" jobshift-emptydir "$_jsn_root$3" || fail "cannot mount a tmpfs at $3"
	else
		mount --bind "$_jsn_d" "$_jsn_root$3" || fail "cannot mount $_jsn_d at $3"
	fi
}

binds() {
	while IFS="$_jsn_tab" read -r _jsn_kind _jsn_ro _jsn_src _jsn_dst _jsn_tree _jsn_flag; do
		case $_jsn_kind in
		empty)
			empty "$_jsn_ro" "$_jsn_src" "$_jsn_dst" "$_jsn_tree"
			continue
			;;
		bind)
			[ -e "$_jsn_src" ] || fail "$_jsn_src (for $_jsn_dst) does not exist"
			if [ -n "$_jsn_tree" ]; then
				_jsn_src=$(intree "$_jsn_src" "$_jsn_tree" "$_jsn_flag") || exit 127
			fi
			;;
		dir)
			[ -e "$_jsn_src" ] || [ -L "$_jsn_src" ] || (umask 077 && mkdir -p "$_jsn_src") || fail "cannot make $_jsn_src (for $_jsn_dst)"
			{ [ ! -L "$_jsn_src" ] && [ -d "$_jsn_src" ]; } || fail "$_jsn_src (for $_jsn_dst) is not a directory"
			;;
		*) continue ;;
		esac
		mountpoint "$_jsn_dst" "$_jsn_src"
		mount --bind "$_jsn_src" "$_jsn_root$_jsn_dst" || fail "cannot mount $_jsn_src at $_jsn_dst"
		if [ "$_jsn_ro" = ro ]; then
			mount -o remount,bind,ro "$_jsn_root$_jsn_dst" || fail "cannot make $_jsn_dst read-only"
		fi
	done <"$_jsn_spec"
}

# resolve ADDR sets resolved to ADDR, or to the first address a name
# resolves to ("" if none; only a name costs a subshell).
resolve() {
	case $1 in
	*[!0-9.:a-fA-F]*) _jsn_resolved=$(getent ahosts "$1" 2>/dev/null | { read -r _jsn_x _ && printf '%s\n' "$_jsn_x"; }) ;;
	*) _jsn_resolved=$1 ;;
	esac
}

# peers calls FN ADDR NAME VAR... for each entry of $JOBSHIFT_HOSTS whose
# fields are an address, a host name and variable names.
peers() {
	[ -n "${JOBSHIFT_HOSTS:-}" ] || return 0
	_jsn_p_ifs=$IFS
	IFS=,
	for _jsn_p_e in $JOBSHIFT_HOSTS; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $_jsn_p_e
		IFS=,
		[ $# -ge 2 ] || continue
		case $1$2 in *[!A-Za-z0-9.:_-]*) continue ;; esac
		"$_jsn_peer_fn" "$@"
	done
	IFS=$_jsn_p_ifs
}

# peer_host prints the /etc/hosts line of a peer's name.
peer_host() {
	resolve "$1"
	[ -n "$_jsn_resolved" ] && printf '%s\t%s\n' "$_jsn_resolved" "$2"
}

# peer_addr puts the peer's address in place of its name at the start of
# each variable's value (no namespace: the name resolves nowhere).
peer_addr() {
	_jsn_a=$1 _jsn_n=$2
	shift 2
	for _jsn_v in "$@"; do
		case $_jsn_v in '' | [0-9]* | *[!A-Za-z0-9_]*) continue ;; esac
		eval "_jsn_val=\${$_jsn_v-}"
		# shellcheck disable=SC2154 # val is set by the eval
		case $_jsn_val in "$_jsn_n"*)
			eval "$_jsn_v=\$_jsn_a\${_jsn_val#\"\$_jsn_n\"}"
			export "${_jsn_v?}"
			;;
		esac
	done
}

# given calls $_jsn_pair_fn DEV ADDR for each pair of the spec's ifaddrs (this
# node's addresses: nomad-env lists them, sparing the task ip's runs)
# until it returns non-zero.
given() {
	_jsn_g_ifs=$IFS
	IFS=' '
	set -f
	# shellcheck disable=SC2086 # the pairs are split on purpose
	set -- $_jsn_ifaddrs
	set +f
	IFS=$_jsn_g_ifs
	while [ $# -ge 2 ]; do
		"$_jsn_pair_fn" "$1" "$2" || break
		shift 2
	done
}

# here sets node_addrs to this node's addresses (inet and inet6), each
# between spaces.
_jsn_node_addrs='' _jsn_here_done=''
here() {
	[ -z "$_jsn_here_done" ] || return 0
	_jsn_here_done=1
	if [ -n "$_jsn_ifaddrs" ]; then
		_jsn_pair_fn=here_one
		given
		return 0
	fi
	_jsn_node_addrs=$(ip -o addr show 2>/dev/null | while read -r _ _ _jsn_fam _jsn_cidr _; do
		case $_jsn_fam in inet | inet6) printf ' %s ' "${_jsn_cidr%/*}" ;; esac
	done)
}
here_one() { _jsn_node_addrs="$_jsn_node_addrs $2 "; }

# iface ADDR sets dev to the interface that holds ADDR ("" if none).
iface() {
	resolve "$1"
	_jsn_dev=''
	[ -n "$_jsn_resolved" ] || return 1
	if [ -n "$_jsn_ifaddrs" ]; then
		_jsn_pair_fn=iface_one
		given
		return 0
	fi
	command -v ip >/dev/null 2>&1 || return 1
	_jsn_dev=$(ip -o addr show 2>/dev/null | while read -r _ _jsn_d _jsn_fam _jsn_cidr _; do
		case $_jsn_fam in inet | inet6) ;; *) continue ;; esac
		if [ "${_jsn_cidr%/*}" = "$_jsn_resolved" ]; then
			printf '%s\n' "${_jsn_d%%@*}"
			break
		fi
	done)
}
iface_one() {
	[ "$2" = "$_jsn_resolved" ] || return 0
	_jsn_dev=$1
	return 1
}

# host_entries LIST SKIP calls $_jsn_ssh_fn ADDR NAME... per entry of LIST
# (entries "<addr> [SKIP fields] <name>..." joined by ','), ADDR numeric
# (resolve; one that resolves to none drops out, its first name taking its
# place, as from a line "ADDR NAME..." read back), until it returns
# non-zero (then so does host_entries). An entry with a field outside the
# name grammar is skipped.
host_entries() {
	_jsn_list=$1 _jsn_skip=$2
	_jsn_old_ifs=$IFS
	IFS=,
	for _jsn_e in $_jsn_list; do
		IFS=' '
		# shellcheck disable=SC2086 # the entry is split on purpose
		set -- $_jsn_e
		IFS=,
		[ $# -ge $((_jsn_skip + 2)) ] || continue
		for _jsn_f in "$@"; do
			case $_jsn_f in *[!A-Za-z0-9.:_-]*) continue 2 ;; esac
		done
		resolve "$1"
		shift $((_jsn_skip + 1))
		IFS=' '
		# shellcheck disable=SC2086 # an empty address drops out
		set -- $_jsn_resolved "$@"
		"$_jsn_ssh_fn" "$@" || {
			IFS=$_jsn_old_ifs
			return 1
		}
		IFS=,
	done
	IFS=$_jsn_old_ifs
}

# ssh_hosts: the tasks the ssh emulation reaches (JOBSHIFT_SSH_HOSTS:
# "<addr> <port> <alias>..."; the tasks mpirun starts OpenMPI's daemons
# and ranks on), through host_entries.
ssh_hosts() { host_entries "${JOBSHIFT_SSH_HOSTS:-}" 1; }

# peer_hosts: every task's platform names (JOBSHIFT_PEER_HOSTS,
# translate/contract PeerHostsVar: "<addr> <name>..."), through
# host_entries.
peer_hosts() { host_entries "${JOBSHIFT_PEER_HOSTS:-}" 0; }

# ssh_peers_here: every task the ssh emulation reaches is at an address of
# this node.
ssh_peers_here() {
	[ -n "${JOBSHIFT_SSH_HOSTS:-}" ] || return 1
	here
	_jsn_ssh_fn=ssh_peer_here
	ssh_hosts
}
ssh_peer_here() {
	case $_jsn_node_addrs in *" $1 "*) return 0 ;; esac
	return 1
}

# hosts writes the task's /etc/hosts: its own and its peers' names first
# (the first match wins), then the host's own entries.
hosts() {
	{
		# the task's own network: every task's names at its own address,
		# in place of the spec's lines (the node's address, which getaddrinfo
		# would sort first for the task's own names: RFC 6724 rule 2)
		[ -z "$_jsn_netpin" ] || netns_hosts
		while IFS="$_jsn_tab" read -r _jsn_kind _jsn_a _jsn_names; do
			[ "$_jsn_kind" = host ] && [ -z "$_jsn_netpin" ] && printf '%s\t%s\n' "$_jsn_a" "$_jsn_names"
		done <"$_jsn_spec"
		_jsn_peer_fn=peer_host
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
			_jsn_ssh_fn=ssh_host_line
			ssh_hosts
			[ -n "$_jsn_netpin" ] || peer_hosts
		fi
	} >"$_jsn_scratch/hosts"
	[ -s "$_jsn_scratch/hosts" ] || return 0
	if [ -f /etc/hosts ]; then
		cat /etc/hosts >>"$_jsn_scratch/hosts"
	fi
	mountpoint /etc/hosts "$_jsn_scratch/hosts"
	mount --bind "$_jsn_scratch/hosts" "$_jsn_root/etc/hosts" || fail "cannot mount the task's /etc/hosts"
}
ssh_host_line() {
	_jsn_a=$1
	shift
	case $_jsn_node_addrs in *" $_jsn_a "*) return 0 ;; esac
	case $_jsn_a in '' | *[!0-9.:a-fA-F]*) return 0 ;; esac
	printf '%s\t%s\n' "$_jsn_a" "$*"
}

# netns: the task's own network (spec netns KEY CIDR), as each pod had
# one: a network namespace holding lo and eth0, whose address is the
# CIDR's (N+1)-th (N: the task's entry in JOBSHIFT_PEER_HOSTS, netns_index),
# one end of a veth pair whose other end is on the bridge br0 of the job's
# hub namespace on this node. Both are pinned in the task's own view (bind
# mounts of its private mount namespace: scratch/net, scratch/jobshift-hub-K),
# so the task's namespace goes with its last process and the hub, its
# bridge and its links with the last task of the job on this node, however
# they end (killed included): nothing is left on the host to remove. The
# bridge is in the hub, not in the host's namespace, whose FORWARD chain
# would filter it (Docker's policy DROP, with br_netfilter loaded); the
# hub's chains are empty. The host sees one device per hub, the anchor
# jsnK (K: the cksum of KEY in hex), a veth whose peer is in the hub, so it
# goes with the hub. Its name claims the hub for the key (one device per
# name: of tasks racing to make it, one wins and the others join), and its
# alias lists pids of tasks whose view pins the hub, where a later task
# finds it (/proc/PID/mountinfo names the pin, /proc/PID/root reaches it).
netns() {
	_jsn_nk=${_jsn_net%%"$_jsn_tab"*}
	_jsn_ncidr=${_jsn_net#*"$_jsn_tab"}
	[ "$_jsn_ncidr" != "$_jsn_net" ] || fail "the spec's netns line needs a key and an address range"
	[ -n "$_jsn_scratch" ] || fail "no scratch directory to pin the task's network namespace in"
	{ command -v nsenter && command -v ip; } >/dev/null 2>&1 || fail "the task's own network needs ip (iproute2) and nsenter (util-linux)"
	netns_index || fail "the task's host name ${_jsn_name:-(none)} is not among its peers' (JOBSHIFT_PEER_HOSTS), so it has no address of its own"
	netns_addr "$_jsn_netn"
	_jsn_nk=$(printf '%s' "$_jsn_nk" | cksum)
	_jsn_nk=jsn$(printf '%08x' "${_jsn_nk%% *}")
	_jsn_hub=$_jsn_scratch/jobshift-hub-$_jsn_nk
	{ : >"$_jsn_hub" && : >"$_jsn_scratch/net"; } || fail "cannot make the pins of the task's network in $_jsn_scratch"
	_jsn_try=0
	until netns_hub; do
		_jsn_try=$((_jsn_try + 1))
		[ "$_jsn_try" -lt 100 ] || fail "the job's link on this host ($_jsn_nk) exists, but no task that holds it was found (/proc/PID/mountinfo of the pids its alias lists)"
		sleep 0.1
	done
	netns_register
	unshare --net="$_jsn_scratch/net" true || fail "cannot make the task's network namespace"
	_jsn_nv=t${_jsn_netn}p$$
	ip link add "$_jsn_nv" netns "$_jsn_hub" type veth peer name eth0 netns "$_jsn_scratch/net" ||
		fail "cannot link the task's network namespace to the job's link $_jsn_nk"
	printf 'link set lo up\naddr add %s/%s dev eth0\nlink set eth0 up\n' "$_jsn_naddr" "${_jsn_ncidr#*/}" |
		nsenter --net="$_jsn_scratch/net" ip -batch - || fail "cannot give the task its address $_jsn_naddr"
	printf 'link set %s master br0\nlink set %s up\n' "$_jsn_nv" "$_jsn_nv" |
		nsenter --net="$_jsn_hub" ip -batch - || fail "cannot put the task on the job's link $_jsn_nk"
	_jsn_netpin=$_jsn_scratch/net
}

# netns_hub pins the job's hub at $_jsn_hub: joins the one the anchor
# names, else makes it; non-zero to try again (the hub is being made, or
# another task made it first).
netns_hub() {
	[ -e "/sys/class/net/$_jsn_nk" ] && {
		netns_join
		return
	}
	unshare --net="$_jsn_hub" true || fail "cannot make the job's link namespace"
	if ! ip link add "$_jsn_nk" type veth peer name up0 netns "$_jsn_hub" 2>/dev/null; then
		umount "$_jsn_hub"
		return 1
	fi
	printf 'link set lo up\nlink add br0 type bridge\nlink set br0 up\n' |
		nsenter --net="$_jsn_hub" ip -batch - || fail "cannot make the job's bridge"
}

netns_join() {
	read -r _jsn_pids <"/sys/class/net/$_jsn_nk/ifalias" 2>/dev/null || _jsn_pids=''
	for _jsn_p in $_jsn_pids; do
		case $_jsn_p in *[!0-9]*) continue ;; esac
		[ -r "/proc/$_jsn_p/mountinfo" ] || continue
		while read -r _ _ _ _ _jsn_mp _; do
			case $_jsn_mp in */jobshift-hub-"$_jsn_nk") ;; *) continue ;; esac
			# -c: mount(8) would resolve /proc/PID/root to / (this view's)
			mount -c --bind "/proc/$_jsn_p/root$_jsn_mp" "$_jsn_hub" 2>/dev/null && return 0
		done <"/proc/$_jsn_p/mountinfo"
	done
	return 1
}

# netns_register adds this task's pid to the anchor's alias (255 bytes:
# the pids of ended tasks go first, then the oldest), checking it stayed:
# tasks joining at once may each write over the others'.
netns_register() {
	_jsn_i=0
	while [ "$_jsn_i" -lt 5 ]; do
		read -r _jsn_pids <"/sys/class/net/$_jsn_nk/ifalias" 2>/dev/null || _jsn_pids=''
		case " $_jsn_pids " in *" $$ "*) return 0 ;; esac
		_jsn_keep=''
		for _jsn_p in $_jsn_pids; do
			[ ! -d "/proc/$_jsn_p" ] || _jsn_keep="$_jsn_keep$_jsn_p "
		done
		_jsn_keep=$_jsn_keep$$
		while [ "${#_jsn_keep}" -gt 240 ]; do _jsn_keep=${_jsn_keep#* }; done
		ip link set "$_jsn_nk" alias "$_jsn_keep" || fail "cannot register the task on the job's link $_jsn_nk"
		_jsn_i=$((_jsn_i + 1))
	done
}

# netns_index sets netn to the position of the task's entry (the one
# naming its host name) in JOBSHIFT_PEER_HOSTS.
netns_index() {
	[ -n "$_jsn_name" ] || return 1
	_jsn_netn=-1
	_jsn_i=0
	_jsn_ssh_fn=netns_index_one
	peer_hosts
	[ "$_jsn_netn" -ge 0 ]
}
netns_index_one() {
	shift
	for _jsn_x in "$@"; do
		[ "$_jsn_x" != "$_jsn_name" ] || [ "$_jsn_netn" -ge 0 ] || _jsn_netn=$_jsn_i
	done
	_jsn_i=$((_jsn_i + 1))
	return 0
}

# netns_addr N sets naddr to the CIDR's (N+1)-th address (IPv4).
netns_addr() {
	_jsn_o=$IFS
	IFS=.
	# shellcheck disable=SC2086 # the address is split on purpose
	set -- ${_jsn_ncidr%/*} "$1"
	IFS=$_jsn_o
	[ $# = 5 ] || fail "the task network's range $_jsn_ncidr is not an IPv4 CIDR"
	_jsn_x=$(((($1 * 256 + $2) * 256 + $3) * 256 + $4 + $5 + 1))
	[ "$(($5 + 2))" -lt "$((1 << (32 - ${_jsn_ncidr#*/})))" ] || fail "the task network's range $_jsn_ncidr holds fewer addresses than the job's tasks"
	_jsn_naddr=$((_jsn_x >> 24 & 255)).$((_jsn_x >> 16 & 255)).$((_jsn_x >> 8 & 255)).$((_jsn_x & 255))
}

# netns_hosts prints an /etc/hosts line per entry of JOBSHIFT_PEER_HOSTS,
# its names at its task's own address (the task's own included).
netns_hosts() {
	_jsn_i=0
	_jsn_ssh_fn=netns_host
	peer_hosts
}
netns_host() {
	shift
	netns_addr "$_jsn_i"
	printf '%s\t%s\n' "$_jsn_naddr" "$*"
	_jsn_i=$((_jsn_i + 1))
}

if [ "$_jsn_mode" != none ]; then
	if [ -n "$_jsn_name" ]; then
		# The namespace's name through /proc/sys/kernel/hostname (no exec)
		# as root, where it is not read-only (a container's); else
		# sethostname(2) through hostname(1): /proc/sys/kernel/hostname
		# belongs to the host's root, not to a user namespace's.
		{ [ "$_jsn_mode" = root ] && { printf '%s' "$_jsn_name" >/proc/sys/kernel/hostname; } 2>/dev/null; } ||
			{ command -v hostname >/dev/null 2>&1 && hostname "$_jsn_name"; } ||
			{ printf '%s' "$_jsn_name" >/proc/sys/kernel/hostname; } 2>/dev/null ||
			fail "cannot set the host name $_jsn_name"
		HOSTNAME=$_jsn_name
		export HOSTNAME
	fi
	[ -z "$_jsn_net" ] || netns
	binds
	hosts
fi

if [ "$_jsn_mode" = none ]; then
	_jsn_peer_fn=peer_addr
	peers
fi

# Platform additions, like the hostfile variables: never over what is set.
if [ -n "$_jsn_netpin" ]; then
	# the task's own network: its peers are all reached through eth0
	_jsn_dev=eth0 _jsn_mpidev=eth0
elif [ -n "$_jsn_addr" ] && iface "$_jsn_addr" && [ -n "$_jsn_dev" ]; then
	# OpenMPI's ranks all on this node: their traffic goes through lo
	# whatever address it is sent to, and its source may not stay the
	# address's (Docker masquerades 172.17.0.0/16 leaving by another
	# interface than docker0, lo included: a Nomad client whose
	# network_interface is docker0), which OpenMPI's TCP transport drops as
	# an unknown peer's. Gloo and NCCL check no source: the address's.
	_jsn_mpidev=$_jsn_dev
	if [ "$_jsn_dev" != lo ] && ssh_peers_here; then
		# shellcheck disable=SC2034 # read by the eval below
		_jsn_mpidev=lo
	fi
fi
if [ -n "$_jsn_dev" ]; then
	for _jsn_v in OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include; do
		eval "[ -n \"\${$_jsn_v+x}\" ] || { $_jsn_v=\$_jsn_mpidev; export $_jsn_v; }"
	done
	for _jsn_v in GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME; do
		eval "[ -n \"\${$_jsn_v+x}\" ] || { $_jsn_v=\$_jsn_dev; export $_jsn_v; }"
	done
fi

# A user namespace's root goes back to the caller's own uid and gid for
# the command (a nested user namespace mapping them onto ours). The new
# root, if any, is entered last: a chrooted process may not make a user
# namespace, and unshare(1) enters it after making one. Neither: the
# command replaces the shell at once.
# In its own network (netns), the command enters it last of all.
_jsn_nsenter=''
[ -z "$_jsn_netpin" ] || _jsn_nsenter=$(command -v nsenter)
if [ "$_jsn_mode" != user ] && [ -z "$_jsn_root" ]; then
	[ -z "$_jsn_netpin" ] || exec "$_jsn_nsenter" --net="$_jsn_netpin" -- "$@"
	exec "$@"
fi
set -- --wd="$(pwd)" -- "$@"
if [ -n "$_jsn_root" ]; then
	set -- --root="$_jsn_root" "$@"
fi
if [ "$_jsn_mode" = user ]; then
	_jsn_ids=${_jsn_inside#user }
	set -- --user --map-user="${_jsn_ids% *}" --map-group="${_jsn_ids#* }" "$@"
fi
[ -z "$_jsn_netpin" ] || exec "$_jsn_nsenter" --net="$_jsn_netpin" -- "$(command -v unshare)" "$@"
exec "$(command -v unshare)" "$@"
