#!/usr/bin/env bash
# Test clusters of several hosts on one machine, for jobshift's multi-node integration tests.
#
#   scripts/cluster.sh up nomad|slurm [N]            # N >= 3 client hosts (default 3); prints export lines
#   scripts/cluster.sh down nomad|slurm              # stops everything it started; leaves nothing
#   scripts/cluster.sh hosts nomad|slurm             # one line per client host: NAME IP
#   scripts/cluster.sh kill-host nomad|slurm NAME|IP # power loss: agent + every task SIGKILLed, link cut
#   scripts/cluster.sh restart-agent nomad|slurm NAME|IP  # restart the Nomad client / slurmd only
#   scripts/cluster.sh restart-server nomad|slurm    # restart the Nomad server / slurmctld (state kept)
#   scripts/cluster.sh env nomad|slurm               # the export lines of a cluster that is up
#
# Why network namespaces (not containers): a host here must see the machine's files at the same
# paths (work trees, $TMPDIR, $HOME, the Go cache, the engines' binaries), as a cluster's shared file
# system does; processes in a network namespace share the file system and the engines installed on
# the machine, while getting their own interfaces, addresses and port space. Each host is a namespace
# named after the host, with a veth pair into a bridge in the root namespace (private subnet, only our
# own addresses) and its own UTS namespace (hostname = host name) for its daemons and their tasks.
# The root namespace holds the bridge's first address, so tests and `jobshift run` reach the servers.
#
# Nomad: one server (not -dev) in its own host, N clients, each with raw_exec, Docker and the fake GPU
# device plugin (4 GPUs), 64 declared cores (JOBSHIFT_CLUSTER_CPUS), its own data dir and cgroup
# parent (several clients share the machine's cgroup tree). Slurm: slurmctld + slurmdbd + MariaDB in a controller host, N slurmd hosts with
# NodeAddr = the host's address, 512 declared CPUs (JOBSHIFT_CLUSTER_CPUS; kept while the cluster is up)
# and 4 fake GPUs (gres, /dev/null symlinks as in slurm-up.sh); our own
# munged on its own socket, so the shared test cluster's munged is never needed nor touched.
#
# Nothing here collides with the single-host engines (nomad-dev-start.sh, slurm-up.sh): other
# subnets, ports only in our namespaces, own state directory, ClusterName, munge socket and database.
#
# Docker on the Nomad clients: each client host runs its own containerd and dockerd inside its
# network namespace (own sockets, data root, exec root, cgroup parent, bridge subnet), and its Nomad
# client's docker plugin talks to that socket. So a Docker task in bridge mode has its ports
# published on its client's address by its client's daemon, and a task in host mode shares its
# client's interfaces, as on a real host. The daemons use overlay2 on the machine's file system
# (nested in a container whose own daemon needs fuse-overlayfs, overlay2 on a plain ext4 directory
# still mounts), a runtime named nvidia that is runc (scripts/fake-nvidia-runtime.sh says why), and
# the images of $JOBSHIFT_CLUSTER_IMAGES present in the machine's daemon, moved with docker save |
# load (the saved archive is cached per image ID, so `up` after `down` only loads it).
#
# State: ${JOBSHIFT_CLUSTER_DIR:-/tmp/jsc}/<engine> (short: Nomad's Task API socket path is limited).
#
# Instances: JOBSHIFT_CLUSTER_ID=K (1..9) names a second, independent pair of clusters beside the
# default one (unset or 0), so a suite that kills hosts and restarts agents (integration/faults) never
# touches the clusters other tests share: subnets 10.87.2K/10.87.2K+1, bridges jsbrK-nomad/-slurm,
# hosts jsKn1.. / jsKs1.. (servers jsKnsrv, jsKsctl), state /tmp/jscK, ClusterName jsmultiK (own munged
# and database under the state dir as always), Docker bridges 172.(30-K).i.0/24. The default keeps
# its names and addresses exactly. JOBSHIFT_CLUSTER_DOCKER=0 at `up nomad`: clients without Docker
# (raw_exec only; remembered in the state dir), for suites whose jobs need no containers.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${JOBSHIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jobshift}
cid=${JOBSHIFT_CLUSTER_ID:-0}
[[ $cid =~ ^[0-9]$ ]] || { echo "cluster.sh: JOBSHIFT_CLUSTER_ID must be 0..9" >&2; exit 2; }
# the instance suffix of names (empty for the default instance: today's names)
sfx=${cid#0}
base=${JOBSHIFT_CLUSTER_DIR:-/tmp/jsc$sfx}
gpus=4

die() { echo "cluster.sh: $*" >&2; exit 1; }
usage() { sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# ---- per-engine naming: subnet, bridge, host names ----------------------------------------------
# setvars ENGINE: net (first three octets), br (bridge), pre (host name prefix), ctl (server host).
setvars() {
	case $1 in
	nomad) net=10.87.$((2 * cid)) br=jsbr$sfx-nomad pre=js${sfx}n ctl=js${sfx}nsrv ;;
	slurm) net=10.87.$((2 * cid + 1)) br=jsbr$sfx-slurm pre=js${sfx}s ctl=js${sfx}sctl ;;
	*) usage ;;
	esac
	D=$base/$1
	ctlip=$net.2
}
# client host i has name ${pre}i and address $net.(10+i)
hostip() { echo "$net.$((10 + $1))"; }

# ---- hosts: network namespaces on a bridge -------------------------------------------------------
tag() { echo "jobshift-cluster-$br"; }

net_up() {
	if ! ip link show "$br" >/dev/null 2>&1; then
		ip link add "$br" type bridge
		ip addr add "$net.1/24" dev "$br"
	fi
	ip link set "$br" up
	# Docker loads br_netfilter and sets FORWARD to DROP: bridged traffic between our hosts passes
	# through FORWARD, so accept it for our bridge only.
	if ! iptables -w -C FORWARD -i "$br" -o "$br" -j ACCEPT -m comment --comment "$(tag)" 2>/dev/null; then
		iptables -w -I FORWARD 1 -i "$br" -o "$br" -j ACCEPT -m comment --comment "$(tag)"
	fi
	# The machine's DNS server is out of the hosts' reach (no route out of the bridge), and a query
	# dropped on the way costs a lookup the resolver's whole timeout (10 s: mpirun looks up every
	# hostfile name). A site's resolver answers at once; refusing the query at once is the nearest.
	for proto in udp tcp; do
		if ! iptables -w -C FORWARD -i "$br" ! -o "$br" -p "$proto" --dport 53 -j REJECT -m comment --comment "$(tag)" 2>/dev/null; then
			iptables -w -I FORWARD 1 -i "$br" ! -o "$br" -p "$proto" --dport 53 -j REJECT -m comment --comment "$(tag)"
		fi
	done
}

# host_up NAME IP: the namespace, its link and its /etc/hosts line (idempotent).
host_up() {
	local name=$1 ip=$2 veth=jsv-$1
	[[ -e /run/netns/$name ]] || ip netns add "$name"
	if ! ip link show "$veth" >/dev/null 2>&1; then
		ip netns exec "$name" ip link del eth0 2>/dev/null || true
		ip link add "$veth" type veth peer name eth0 netns "$name"
		ip link set "$veth" master "$br"
	fi
	ip link set "$veth" up
	ip -n "$name" link set lo up
	ip -n "$name" addr replace "$ip/24" dev eth0
	ip -n "$name" link set eth0 up
	ip -n "$name" route replace default via "$net.1"
	hosts_line "$name" "$ip"
}

# /etc/hosts: every host resolves every other host's name (a site's DNS). Edits hold a lock: two
# instances (JOBSHIFT_CLUSTER_ID) coming up at once would otherwise lose each other's lines.
hosts_line() {
	local name=$1 ip=$2
	(
		flock 9
		grep -q "^$ip $name # $(tag)\$" /etc/hosts 2>/dev/null && exit 0
		sed_hosts_locked "/ $name # $(tag)\$/d"
		echo "$ip $name # $(tag)" >>/etc/hosts
	) 9>>/tmp/jobshift-cluster-hosts.lock
}
sed_hosts() {
	(
		flock 9
		sed_hosts_locked "$1"
	) 9>>/tmp/jobshift-cluster-hosts.lock
}
# /etc/hosts may be a bind mount (containers): edit it in place, never replace the file.
sed_hosts_locked() {
	local t
	t=$(mktemp)
	sed "$1" /etc/hosts >"$t"
	cat "$t" >/etc/hosts
	rm -f "$t"
}

# start NAME PIDFILE LOG CMD...: start a daemon (in the foreground, in the background) in host NAME's
# network namespace with hostname NAME. nsenter, not `ip netns exec`: that remounts /sys and so hides
# the cgroup tree the Nomad client needs. The daemon gets the system PATH, as a service on a host
# does, not the caller's (raw_exec tasks inherit their client's, and a developer's pyenv python3
# first in PATH is not the one Debian's python3-torch is installed for).
# shellcheck disable=SC2016 # $0/$@ expand in the inner sh
start() {
	local name=$1 pidf=$2 log=$3
	shift 3
	nohup setsid env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		nsenter --net="/run/netns/$name" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$name" "$@" \
		>>"$log" 2>&1 </dev/null &
	echo $! >"$pidf"
}

alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pid PIDFILE [SIG]: signal, wait up to 10 s, then SIGKILL.
stop_pid() {
	local f=$1 sig=${2:-TERM} p
	[[ -f $f ]] || return 0
	p=$(cat "$f")
	if [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null; then
		kill "-$sig" "$p" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "$p" 2>/dev/null || break
			[[ $(ps -o stat= -p "$p" 2>/dev/null) == Z* ]] && break
			sleep 0.1
		done
		kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null || true
	fi
	rm -f "$f"
}

# kill_netns NAME: SIGKILL every process in the namespace at once (agent, tasks, helpers).
kill_netns() {
	local pids
	[[ -e /run/netns/$1 ]] || return 0
	for _ in 1 2 3 4 5; do
		pids=$(ip netns pids "$1" 2>/dev/null | tr '\n' ' ')
		[[ -z ${pids// /} ]] && return 0
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null || true
		sleep 0.2
	done
}

# unmount_under DIR: every mount point below DIR, deepest first (Nomad's secrets tmpfs).
unmount_under() {
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}

host_down() {
	local name=$1
	kill_netns "$name"
	ip link del "jsv-$name" 2>/dev/null || true
	[[ -e /run/netns/$name ]] && ip netns del "$name" 2>/dev/null || true
	sed_hosts "/ $name # $(tag)\$/d"
}

net_down() {
	ip link del "$br" 2>/dev/null || true
	while iptables -w -D FORWARD -i "$br" -o "$br" -j ACCEPT -m comment --comment "$(tag)" 2>/dev/null; do :; done
	for proto in udp tcp; do
		while iptables -w -D FORWARD -i "$br" ! -o "$br" -p "$proto" --dport 53 -j REJECT -m comment --comment "$(tag)" 2>/dev/null; do :; done
	done
}

# resolve NAME|IP to a client host name.
resolve() {
	local want=$1 i
	for ((i = 1; i <= $(nhosts); i++)); do
		if [[ $want == "$pre$i" || $want == "$(hostip "$i")" ]]; then
			echo "$pre$i"
			return 0
		fi
	done
	die "no host $want in the $engine cluster (see: cluster.sh hosts $engine)"
}
nhosts() { cat "$D/nhosts" 2>/dev/null || echo 0; }

print_env() {
	[[ -f $D/env ]] || die "no $engine cluster is up (run: cluster.sh up $engine)"
	cat "$D/env"
}

# ---- Nomad ---------------------------------------------------------------------------------------
nomad_bin() {
	local b=${NOMAD_BIN:-$cache/nomad/bin/nomad}
	[[ -x $b ]] || b=$repo/.cache/nomad/bin/nomad
	[[ -x $b ]] || b=$(command -v nomad || true)
	[[ -n $b && -x $b ]] || die "no nomad binary; run scripts/install-nomad.sh"
	echo "$b"
}

nomad_plugin() {
	local plugin=$D/plugins/fake-gpu src=$repo/integration/fakegpu
	mkdir -p "$D/plugins"
	if [[ ! -x $plugin || -n $(find "$src" -newer "$plugin" \( -name '*.go' -o -name go.mod \) | head -1) ]]; then
		(cd "$src" && CGO_ENABLED=0 go build -o "$plugin.tmp" . && mv "$plugin.tmp" "$plugin")
	fi
}

# The jobshift binaries the tasks run on every client (the in-job finisher's, nomad-env's) (the shared file system makes one
# path valid everywhere; a real site installs it on every client at one path).
jobshift_helper() {
	mkdir -p "$D/bin"
	local b
	for b in jobshift jobshift-env; do
		(cd "$repo" && CGO_ENABLED=0 go build -o "$D/bin/$b.tmp" ./cmd/$b && mv "$D/bin/$b.tmp" "$D/bin/$b")
	done
}

# ---- Docker per Nomad client host ---------------------------------------------------------------
# The images every client's daemon gets from the machine's (those the machine's daemon has): the
# torch image, and the MPI image built on it (integration/nomad/build-mpi-image.sh: sshd, OpenMPI
# and mpi4py, for the MPI jobs on Docker across hosts).
images=${JOBSHIFT_CLUSTER_IMAGES:-jobshift/torch:bookworm jobshift/mpi:bookworm}
loads=() # PIDs of the image loads under way

have_docker() {
	[[ -f $D/nodocker ]] && return 1
	command -v dockerd >/dev/null && command -v containerd >/dev/null && command -v docker >/dev/null &&
		docker info >/dev/null 2>&1
}
# a client host's daemon directory (short: containerd's socket path is limited to 107 bytes)
ddir() { echo "$D/$1/d"; }
dk() {
	local name=$1
	shift
	docker --host "unix://$(ddir "$name")/docker.sock" "$@"
}

# docker_conf NAME I: containerd and dockerd configs. Own bridge subnet per host (the hosts'
# container networks never overlap, so a packet's source says which host it came from); own cgroup
# parent so kill-host finds every container process of the host.
docker_conf() {
	local name=$1 i=$2 dd
	dd=$(ddir "$name")
	cat >"$dd/containerd.toml" <<TOML
version = 2
root  = "$dd/containerd/root"
state = "$dd/containerd/state"
[grpc]
  address = "$dd/containerd.sock"
[ttrpc]
  address = "$dd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
TOML
	cat >"$dd/daemon.json" <<JSON
{
  "hosts": ["unix://$dd/docker.sock"],
  "containerd": "$dd/containerd.sock",
  "data-root": "$dd/data",
  "exec-root": "$dd/exec",
  "pidfile": "$dd/dockerd.pid",
  "storage-driver": "overlay2",
  "cgroup-parent": "/jsd-$name",
  "bip": "172.$((30 - cid)).$i.1/24",
  "mtu": 1400,
  "log-driver": "json-file",
  "runtimes": { "nvidia": { "path": "$(command -v runc || echo /usr/sbin/runc)" } }
}
JSON
}

# docker_up NAME I: containerd and dockerd in the host's network namespace (idempotent).
docker_up() {
	local name=$1 i=$2 dd
	dd=$(ddir "$name")
	mkdir -p "$dd"
	docker_conf "$name" "$i"
	if ! alive "$dd/containerd.pid.ours"; then
		start "$name" "$dd/containerd.pid.ours" "$dd/containerd.log" containerd --config "$dd/containerd.toml"
	fi
	if ! alive "$dd/dockerd.pid.ours"; then
		for _ in $(seq 1 100); do [[ -S $dd/containerd.sock ]] && break; sleep 0.1; done
		start "$name" "$dd/dockerd.pid.ours" "$dd/dockerd.log" dockerd --config-file "$dd/daemon.json"
	fi
}

docker_wait() {
	local name=$1
	for _ in $(seq 1 240); do
		dk "$name" info >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	die "dockerd of $name not up after 120s; see $(ddir "$name")/dockerd.log"
}

# image_tar IMAGE: the machine daemon's image saved once per image ID (a rebuilt image is saved
# again, replacing the old archive).
image_tar() {
	local img=$1 id dir=$cache/cluster-images f
	id=$(docker image inspect -f '{{.Id}}' "$img")
	f=$dir/${img//[^a-zA-Z0-9._-]/_}
	mkdir -p "$dir"
	if [[ ! -s $f.tar || $(cat "$f.id" 2>/dev/null) != "$id" ]]; then
		docker save -o "$f.tar.tmp" "$img" && mv "$f.tar.tmp" "$f.tar"
		echo "$id" >"$f.id"
	fi
	echo "$f.tar"
}

# docker_images NAME: the host's daemon gets the images it lacks (loaded in the background, so
# the hosts load theirs at the same time; docker_images_wait collects them).
docker_images() {
	local name=$1 img tar
	for img in $images; do
		docker image inspect "$img" >/dev/null 2>&1 || continue
		[[ $(dk "$name" image inspect -f '{{.Id}}' "$img" 2>/dev/null) == "$(docker image inspect -f '{{.Id}}' "$img")" ]] && continue
		tar=$(image_tar "$img")
		dk "$name" load -q -i "$tar" >"$(ddir "$name")/load.log" 2>&1 &
		loads+=($!)
	done
}

# images_wait N: every host's image loads ended well.
images_wait() {
	local i
	# only the loads: the daemons started here are children of this shell too
	((${#loads[@]} == 0)) || wait "${loads[@]}" || true
	have_docker || return 0
	for ((i = 1; i <= $1; i++)); do
		for img in $images; do
			docker image inspect "$img" >/dev/null 2>&1 || continue
			dk "$pre$i" image inspect "$img" >/dev/null 2>&1 ||
				die "$pre$i: image $img not loaded; see $(ddir "$pre$i")/load.log"
		done
	done
}

# cgroup_kill PARENT: SIGKILL every process under the cgroup PARENT (all containers of a host at
# once, as a power loss); repeated while some remain (a fork racing the first pass).
cgroup_kill() {
	local d=/sys/fs/cgroup/pids$1 pids
	[[ -d $d ]] || d=/sys/fs/cgroup$1
	[[ -d $d ]] || return 0
	for _ in 1 2 3 4 5; do
		pids=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | tr '\n' ' ')
		[[ -z ${pids// /} ]] && return 0
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null || true
		sleep 0.2
	done
}

# docker_down NAME: containers removed through the daemon when it answers (their mounts and
# network namespaces released), then the daemons stopped; whatever a killed host left (container
# processes, overlay and netns mounts) is killed and unmounted.
docker_down() {
	local name=$1 dd ids
	dd=$(ddir "$name")
	[[ -d $dd ]] || return 0
	if [[ -S $dd/docker.sock ]] && alive "$dd/dockerd.pid.ours"; then
		ids=$(dk "$name" ps -aq 2>/dev/null || true)
		# shellcheck disable=SC2086
		[[ -n $ids ]] && dk "$name" rm -f $ids >/dev/null 2>&1 || true
	fi
	cgroup_kill "/jsd-$name"
	stop_pid "$dd/dockerd.pid.ours"
	stop_pid "$dd/containerd.pid.ours"
	unmount_under "$dd"
	cgroups_rm "/jsd-$name"
}

nomad_server_conf() {
	cat >"$D/$ctl/agent.hcl" <<HCL
name       = "$ctl"
datacenter = "dc1"
data_dir   = "$D/$ctl/data"
bind_addr  = "0.0.0.0"
log_level  = "INFO"
advertise {
  http = "$ctlip"
  rpc  = "$ctlip"
  serf = "$ctlip"
}
server {
  enabled          = true
  bootstrap_expect = 1
  # spread allocations over the clients (binpack would put a small job on one host), as
  # OpenPAI/Kubernetes spread a job's containers
  default_scheduler_config {
    scheduler_algorithm = "spread"
  }
}
client { enabled = false }
HCL
}

# nomad_cpus: the cores each client declares. 64 unless JOBSHIFT_CLUSTER_CPUS says otherwise at `up`
# (integration/multihost TestNomadThousandTasks needs 1,000 one-core tasks on the 3 clients a job is
# spread over: JOBSHIFT_CLUSTER_CPUS=512, as the Slurm nodes declare). A client that is up keeps the
# count it was started with (its agent.hcl is written only when it starts).
nomad_cpus() {
	local c=${JOBSHIFT_CLUSTER_CPUS:-64}
	[[ $c =~ ^[1-9][0-9]*$ ]] || die "JOBSHIFT_CLUSTER_CPUS must be a number of CPUs"
	echo "$c"
}

nomad_client_conf() {
	local name=$1 ip=$2 docker=""
	if have_docker; then
		# the host's own daemon (endpoint); the capabilities OpenPAI gave its containers must be
		# allowed (as nomad-dev-start.sh)
		docker="plugin \"docker\" {
  config {
    endpoint   = \"unix://$(ddir "$name")/docker.sock\"
    allow_caps = [\"audit_write\", \"chown\", \"dac_override\", \"fowner\", \"fsetid\", \"kill\", \"mknod\",
      \"net_bind_service\", \"setfcap\", \"setgid\", \"setpcap\", \"setuid\", \"sys_chroot\",
      \"sys_admin\", \"ipc_lock\", \"dac_read_search\", \"net_raw\"]
    volumes { enabled = true }
    gc { image = false }
  }
}"
	fi
	cat >"$D/$name/agent.hcl" <<HCL
name       = "$name"
datacenter = "dc1"
data_dir   = "$D/$name/data"
plugin_dir = "$D/plugins"
bind_addr  = "0.0.0.0"
log_level  = "INFO"
advertise {
  http = "$ip"
  rpc  = "$ip"
  serf = "$ip"
}
server { enabled = false }
client {
  enabled           = true
  servers           = ["$ctlip:4647"]
  network_interface = "eth0"
  # several clients share this machine's cgroup tree: each its own parent
  cgroup_parent     = "/jsc-$name"
  # declared sizes, not the machine's (the clients share it), as slurm-up.sh declares its nodes:
  # $(nomad_cpus) cores of 1000 MHz (the site config's cpu_mhz_per_core) and 250 GiB per client
  cpu_total_compute = $(($(nomad_cpus) * 1000))
  memory_total_mb   = 256000
  options = {
    "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean"
  }
}
plugin "raw_exec" {
  config { enabled = true }
}
plugin "fake-gpu" {
  config {
    count      = $gpus
    model      = "FakeH100"
    memory_mib = 81920
  }
}
$docker
HCL
}

nomad_up() {
	local n=$1 nomad i name
	nomad=$(nomad_bin)
	nomad_cpus >/dev/null # a bad JOBSHIFT_CLUSTER_CPUS stops `up` here (agent.hcl uses it in a $(...))
	nomad_plugin
	jobshift_helper
	net_up
	mkdir -p "$D/$ctl"
	echo "$n" >"$D/nhosts"
	[[ ${JOBSHIFT_CLUSTER_DOCKER:-1} == 0 ]] && : >"$D/nodocker"
	host_up "$ctl" "$ctlip"
	if ! alive "$D/$ctl/pid"; then
		nomad_server_conf
		start "$ctl" "$D/$ctl/pid" "$D/$ctl/agent.log" "$nomad" agent -config="$D/$ctl/agent.hcl"
	fi
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$D/$pre$i"
		host_up "$pre$i" "$(hostip "$i")"
	done
	if have_docker; then
		for ((i = 1; i <= n; i++)); do docker_up "$pre$i" "$i"; done
		for ((i = 1; i <= n; i++)); do docker_wait "$pre$i" && docker_images "$pre$i"; done
	fi
	for ((i = 1; i <= n; i++)); do
		name=$pre$i
		alive "$D/$name/pid" && continue
		nomad_client_conf "$name" "$(hostip "$i")"
		start "$name" "$D/$name/pid" "$D/$name/agent.log" "$nomad" agent -config="$D/$name/agent.hcl"
	done
	images_wait "$n"
	nomad_wait "$n"
	cat >"$D/jobshift.hcl" <<HCL
# Site config of the cluster.sh Nomad cluster ($n clients on $net.0/24).
nomad {
  address     = "http://$ctlip:4646"
  datacenters = ["dc1"]
  # raw_exec by default (tasks run the repository's programs with the machine's tools); every
  # client also has Docker on its own daemon (driver = "docker", or a role rule, picks it)
  driver      = "raw_exec"
  # the clients declare 64 cores of 1000 MHz (cpu_total_compute)
  cpu_mhz_per_core = 1000
  helper      = "$D/bin/jobshift"
  # nomad-env alone, for the raw_exec tasks' environment (starts in half the time of jobshift)
  env_helper  = "$D/bin/jobshift-env"
  # at most ceil(tasks/3) allocations of a job per client: a job covers the 3 clients (the
  # spread algorithm alone counts per group and put a 3-task job of two groups on 2 clients)
  spread_nodes = 3
}
HCL
	printf 'export NOMAD_ADDR=http://%s:4646\nexport JOBSHIFT_CONFIG=%s\n' "$ctlip" "$D/jobshift.hcl" >"$D/env"
	cat "$D/env"
}

# node_ready NAME < /v1/nodes JSON: that client is ready, raw_exec (and Docker when the machine has it)
# healthy, its GPUs fingerprinted.
node_ready() {
	python3 -c '
import json, sys
name, gpus, docker = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
for n in json.load(sys.stdin):
    if n["Name"] != name or n["Status"] != "ready":
        continue
    if not n["Drivers"].get("raw_exec", {}).get("Healthy"):
        continue
    if docker and not n["Drivers"].get("docker", {}).get("Healthy"):
        continue
    devs = (n.get("NodeResources") or {}).get("Devices") or []
    if sum(len(d.get("Instances") or []) for d in devs) >= gpus:
        sys.exit(0)
sys.exit(1)' "$1" "$gpus" "$(have_docker && echo 1 || echo 0)" 2>/dev/null
}

# Ready: n clients ready with raw_exec healthy and the GPUs fingerprinted.
nomad_wait() {
	local n=$1 addr=http://$ctlip:4646 nodes ready i
	for _ in $(seq 1 240); do
		nodes=$(curl -sf "$addr/v1/nodes?resources=true" 2>/dev/null || true)
		ready=0
		for ((i = 1; i <= n; i++)); do
			# one node object per client; check its own fields
			if node_ready "$pre$i" <<<"$nodes"; then ready=$((ready + 1)); fi
		done
		[[ $ready == "$n" ]] && return 0
		sleep 0.5
	done
	die "nomad: $n clients not ready after 120s; see $D/*/agent.log"
}

nomad_down() {
	local i name downs=()
	for ((i = 1; i <= $(nhosts); i++)); do
		name=$pre$i
		# the client first (it would restart the containers removed under it), then its daemons;
		# the hosts at the same time (stopping dockerd and removing its data root takes a while)
		(
			stop_pid "$D/$name/pid" KILL
			docker_down "$name"
		) &
		downs+=($!)
	done
	((${#downs[@]} == 0)) || wait "${downs[@]}"
	for ((i = 1; i <= $(nhosts); i++)); do
		name=$pre$i
		host_down "$name"
		rm -f "$D/$name/pid"
		unmount_under "$D/$name/data"
		cgroups_rm "/jsc-$name"
	done
	host_down "$ctl"
	net_down
	unmount_under "$D"
	rm -rf "$D"
	rmdir "$base" 2>/dev/null || true # the other engine may still use it
}

# cgroups_rm PARENT: the client's cgroup subtree in every v1 hierarchy (or under cgroup v2).
cgroups_rm() {
	local d
	for d in /sys/fs/cgroup/*"$1" /sys/fs/cgroup"$1"; do
		[[ -d $d ]] || continue
		find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || true
	done
}

nomad_restart() {
	local name=$1 nomad
	nomad=$(nomad_bin)
	# SIGTERM: a client leaves its tasks running (leave_on_terminate is off for clients); the new
	# agent re-attaches to them from its data dir.
	stop_pid "$D/$name/pid" TERM
	start "$name" "$D/$name/pid" "$D/$name/agent.log" "$nomad" agent -config="$D/$name/agent.hcl"
	for _ in $(seq 1 120); do
		node_ready "$name" <<<"$(curl -sf "http://$ctlip:4646/v1/nodes?resources=true" 2>/dev/null || true)" && return 0
		sleep 0.5
	done
	die "nomad: $name not ready after restart; see $D/$name/agent.log"
}

# The server: SIGTERM (a server does not leave the cluster on it: leave_on_terminate is off), then
# the same agent on the same data dir, which replays its Raft state; the clients reconnect.
nomad_restart_server() {
	local nomad
	nomad=$(nomad_bin)
	stop_pid "$D/$ctl/pid" TERM
	start "$ctl" "$D/$ctl/pid" "$D/$ctl/agent.log" "$nomad" agent -config="$D/$ctl/agent.hcl"
	nomad_wait "$(nhosts)"
}

# ---- Slurm ---------------------------------------------------------------------------------------
slurm_conf() {
	local n=$1 i acct cpus
	cpus=$(slurm_cpus)
	acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$ctlip
AccountingStoragePort=6819
# the munge socket of the slurmctld -> slurmdbd connection: without it slurmctld uses the machine's
# default socket (/run/munge/munge.socket.2), i.e. the shared cluster's munged, and dies when that
# one is not running (fatal: we have no TRES; seen on a fresh machine)
AccountingStoragePass=$D/munge/munge.socket
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=0"
	cat >"$D/etc/slurm.conf" <<CONF
# cluster.sh multi-host Slurm cluster ($n nodes on $net.0/24); settings as scripts/slurm-up.sh
ClusterName=jsmulti$sfx
SlurmctldHost=$ctl($ctlip)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# our own munged (its socket), and a short credential lifetime so a requeued job restarts soon
AuthInfo=cred_expire=10,socket=$D/munge/munge.socket
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
# per host, as a real node's /tmp: the hosts share the machine's /tmp, where the slurmstepds of an
# srun --mpi=pmix step on several hosts each make TmpFS/spmix_appdir_<uid>_<job>.<step> (EEXIST)
TmpFS=$D/tmp/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
$acct
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
KillWait=5
# a killed host is declared DOWN quickly (default 300 s)
SlurmdTimeout=20
MailProg=/bin/true
CONF
	for ((i = 1; i <= n; i++)); do
		echo "NodeName=$pre$i NodeHostname=$pre$i NodeAddr=$(hostip "$i") CPUs=$cpus RealMemory=256000 Gres=gpu:v100:$gpus State=UNKNOWN" >>"$D/etc/slurm.conf"
	done
	echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$D/etc/slurm.conf"
	# GPU lines need File= (file-less gpu records are dropped); /dev/null symlinks are accepted
	echo "NodeName=${pre}[1-$n] Name=gpu Type=v100 File=$D/dev/nvidia[0-$((gpus - 1))]" >"$D/etc/gres.conf"
	cat >"$D/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket
DbdHost=$ctl
DbdAddr=$ctlip
DbdPort=6819
SlurmUser=root
LogFile=$D/log/slurmdbd.log
PidFile=$D/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3306
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
CONF
	chmod 600 "$D/etc/slurmdbd.conf"
}

# slurm_cpus: the CPUs each node declares. 512 (JOBSHIFT_CLUSTER_CPUS), so that a 1,000-task job of one
# CPU per task fits on the 3 nodes a job is spread over (integration/multihost TestSlurmThousandTasks);
# the machine has far fewer, slurmd takes the declared count (config_overrides). A cluster that is up keeps
# the count it was started with: changing it needs slurmctld and every slurmd restarted, so `up` again
# must not rewrite it.
slurm_cpus() {
	local c
	if [[ -f $D/etc/slurm.conf ]] && c=$(grep -m1 -o ' CPUs=[0-9]*' "$D/etc/slurm.conf"); then
		echo "${c#*=}"
		return
	fi
	c=${JOBSHIFT_CLUSTER_CPUS:-512}
	[[ $c =~ ^[1-9][0-9]*$ ]] || die "JOBSHIFT_CLUSTER_CPUS must be a number of CPUs"
	echo "$c"
}

# our own munged (shared key, own socket): the shared cluster's munged may stop at any time.
munge_up() {
	alive "$D/munge/munged.pid" && return 0
	install -d -o munge -g munge -m 0755 "$D/munge"
	runuser -u munge -- /usr/sbin/munged --socket="$D/munge/munge.socket" --pid-file="$D/munge/munged.pid" \
		--log-file="$D/munge/munged.log" --seed-file="$D/munge/seed"
	for _ in $(seq 1 50); do munge -n -S "$D/munge/munge.socket" >/dev/null 2>&1 && return 0; sleep 0.1; done
	die "munged did not start; see $D/munge/munged.log"
}

mariadb_up() {
	local sock=$D/mysql/mysqld.sock
	alive "$D/mysql/mariadbd.pid" && return 0
	if [[ ! -d $D/mysql/mysql ]]; then
		install -d -o mysql -g mysql "$D/mysql"
		mariadb-install-db --user=mysql --datadir="$D/mysql" --auth-root-authentication-method=socket >"$D/log/mariadb-install.log" 2>&1
	fi
	# in the controller host: its 127.0.0.1:3306 is not the machine's
	nohup nsenter --net="/run/netns/$ctl" runuser -u mysql -- /usr/sbin/mariadbd --datadir="$D/mysql" \
		--socket="$sock" --bind-address=127.0.0.1 --port=3306 --pid-file="$D/mysql/mariadbd.pid" \
		--log-error="$D/mysql/mariadbd.err" >/dev/null 2>&1 &
	for _ in $(seq 1 200); do mariadb --socket="$sock" -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
	mariadb --socket="$sock" -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw'; CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
}

slurm_up() {
	local n=$1 i name
	command -v slurmctld >/dev/null || die "no slurmctld; run scripts/install-slurm.sh"
	export SLURM_CONF=$D/etc/slurm.conf
	mkdir -p "$D"/{etc,state,log,run,dev}
	for ((i = 0; i < gpus; i++)); do ln -sfn /dev/null "$D/dev/nvidia$i"; done
	for ((i = 1; i <= n; i++)); do mkdir -p "$D/spool/$pre$i" "$D/tmp/$pre$i"; done
	echo "$n" >"$D/nhosts"
	slurm_conf "$n"
	net_up
	host_up "$ctl" "$ctlip"
	for ((i = 1; i <= n; i++)); do host_up "$pre$i" "$(hostip "$i")"; done
	munge_up
	mariadb_up
	if ! alive "$D/run/slurmdbd.pid.ours"; then
		start "$ctl" "$D/run/slurmdbd.pid.ours" "$D/log/slurmdbd.out" slurmdbd -D
		for _ in $(seq 1 100); do timeout 2 sacctmgr -n show cluster >/dev/null 2>&1 && break; sleep 0.2; done
	fi
	if ! alive "$D/run/slurmctld.pid.ours"; then
		start "$ctl" "$D/run/slurmctld.pid.ours" "$D/log/slurmctld.out" slurmctld -D
		for _ in $(seq 1 100); do timeout 2 scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
	else
		scontrol reconfigure >/dev/null 2>&1 || true
	fi
	# slurmd after slurmctld answers: slurmd retrying registration ignores SIGTERM (slurm-up.sh)
	for ((i = 1; i <= n; i++)); do
		name=$pre$i
		alive "$D/run/slurmd-$name.pid.ours" && continue
		start "$name" "$D/run/slurmd-$name.pid.ours" "$D/log/slurmd-$name.out" slurmd -D -N "$name"
	done
	slurm_wait "$n"
	cat >"$D/jobshift.hcl" <<HCL
# Site config of the cluster.sh Slurm cluster ($n nodes on $net.0/24).
slurm {
  partition = "debug"
  address   = "nodeaddr"
  # a job's tasks over (up to) 3 hosts, as OpenPAI/Kubernetes spread containers
  spread_nodes = 3
}
HCL
	printf 'export SLURM_CONF=%s\nexport JOBSHIFT_CONFIG=%s\n' "$SLURM_CONF" "$D/jobshift.hcl" >"$D/env"
	cat "$D/env"
}

slurm_wait() {
	local n=$1 c
	for _ in $(seq 1 300); do
		c=$(timeout 2 sinfo -h -N -o '%N %T' 2>/dev/null | grep -c '^'"$pre"'[0-9]* idle$' || true)
		[[ $c == "$n" ]] && return 0
		# a host killed and brought back is DOWN until told otherwise
		for d in $(timeout 2 sinfo -h -N -t down,drain -o '%N' 2>/dev/null); do
			timeout 2 scontrol update nodename="$d" state=resume >/dev/null 2>&1 || true
		done
		sleep 0.5
	done
	sinfo -N >&2 || true
	die "slurm: $n nodes not idle after 150s; see $D/log"
}

slurm_down() {
	local i
	export SLURM_CONF=$D/etc/slurm.conf
	for ((i = 1; i <= $(nhosts); i++)); do host_down "$pre$i"; done
	host_down "$ctl"
	stop_pid "$D/munge/munged.pid"
	net_down
	rm -rf "$D"
	rmdir "$base" 2>/dev/null || true # the other engine may still use it
}

slurm_restart() {
	local name=$1
	export SLURM_CONF=$D/etc/slurm.conf
	# slurmd exits on SIGTERM and leaves its job steps (slurmstepd) running
	stop_pid "$D/run/slurmd-$name.pid.ours" TERM
	start "$name" "$D/run/slurmd-$name.pid.ours" "$D/log/slurmd-$name.out" slurmd -D -N "$name"
	for _ in $(seq 1 100); do
		[[ $(timeout 2 sinfo -h -n "$name" -o '%T' 2>/dev/null) =~ ^(idle|mixed|allocated|completing)$ ]] && return 0
		sleep 0.2
	done
	die "slurm: $name not back after restart; see $D/log"
}

# slurmctld: SIGTERM saves its state; started again without -c it recovers the jobs (slurmd and the
# jobs' steps never stop).
slurm_restart_server() {
	export SLURM_CONF=$D/etc/slurm.conf
	stop_pid "$D/run/slurmctld.pid.ours" TERM
	start "$ctl" "$D/run/slurmctld.pid.ours" "$D/log/slurmctld.out" slurmctld -D
	for _ in $(seq 1 100); do timeout 2 scontrol ping >/dev/null 2>&1 && return 0; sleep 0.2; done
	die "slurm: slurmctld not back after restart; see $D/log"
}

# ---- commands ------------------------------------------------------------------------------------
[[ $# -ge 2 ]] || usage
cmd=$1 engine=$2
setvars "$engine"
[[ $(id -u) == 0 ]] || die "must run as root (network namespaces)"

case $cmd in
up)
	n=${3:-3}
	[[ $n =~ ^[0-9]+$ ]] && ((n >= 3 && n <= 200)) || die "N must be a number >= 3"
	if [[ -f $D/nhosts && $(nhosts) != "$n" ]]; then
		die "a $engine cluster of $(nhosts) hosts is up; run: cluster.sh down $engine"
	fi
	"${engine}_up" "$n"
	;;
down) "${engine}_down" ;;
env) print_env ;;
hosts)
	[[ -f $D/nhosts ]] || die "no $engine cluster is up"
	for ((i = 1; i <= $(nhosts); i++)); do echo "$pre$i $(hostip "$i")"; done
	;;
kill-host)
	[[ $# -ge 3 ]] || usage
	name=$(resolve "$3")
	# everything at once, as at a power loss: the link goes first so nothing more leaves the host
	ip link set "jsv-$name" down 2>/dev/null || true
	[[ $engine == nomad ]] && cgroup_kill "/jsd-$name" # its containers (own pid namespaces)
	kill_netns "$name"
	rm -f "$D/$name/pid" "$D/run/slurmd-$name.pid.ours"
	echo "cluster.sh: $name killed"
	;;
restart-agent)
	[[ $# -ge 3 ]] || usage
	name=$(resolve "$3")
	"${engine}_restart" "$name"
	echo "cluster.sh: $name agent restarted"
	;;
restart-server)
	[[ -f $D/nhosts ]] || die "no $engine cluster is up"
	"${engine}_restart_server"
	echo "cluster.sh: $ctl restarted"
	;;
*) usage ;;
esac
