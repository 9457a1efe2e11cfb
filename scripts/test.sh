#!/usr/bin/env bash
# Runs jobshift's whole test suite on this machine: unit, golden, corpus,
# end-to-end (real processes, real training with python3-torch) and
# integration tests against a real Nomad agent and a real Slurm cluster.
#
# On a fresh Debian machine, as root, it first installs what the tests need
# (Debian packages; Nomad v1.11.3 built from the Go module proxy into .cache/)
# and starts a Nomad dev agent and a Slurm test cluster, stopping both (by
# PID, nothing else) when it ends. Without root or apt it runs what it can:
# integration tests skip when their engine is absent, except under CI=true,
# where a missing engine is a failure.
#
# Usage: scripts/test.sh [go test flags...]     e.g. scripts/test.sh -run Nomad
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# Built engines (Nomad) are cached outside the work tree, so a fresh clone on
# the same machine (CI) reuses them.
export JOBSHIFT_CACHE=${JOBSHIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jobshift}

log() { printf '== %s\n' "$*" >&2; }

if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
	# openmpi-bin, python3-mpi4py, openssh-*: the MPI allreduce tests (the ssh emulation's sshd);
	# tmux: the live status line test (cmd/jobshift)
	pkgs=(python3-torch python3-xgboost shellcheck dash bash curl jq debootstrap openmpi-bin python3-mpi4py openssh-server openssh-client tmux)
	missing=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if ((${#missing[@]})); then
		log "installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
	log "installing Slurm"
	bash scripts/install-slurm.sh
fi

log "building Nomad (cached)"
bash scripts/install-nomad.sh

# Every process this suite starts inherits this mark (go test, the tasks the
# tests run, the Nomad agent with its executors and tasks, the Slurm daemons
# and, through sbatch, their jobs): after the engines are stopped, a process
# still carrying it was left behind, and the suite fails.
JOBSHIFT_TEST_SUITE="$$-$(date +%s%N)"
export JOBSHIFT_TEST_SUITE

# ours PID: PID is this shell or one of its descendants (the grep below).
ours() {
	local p=$1
	while [[ -n $p && $p != 0 && $p != 1 ]]; do
		[[ $p == "$$" ]] && return 0
		p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) || return 0
	done
	return 1
}

# leftovers: PID and command of every live marked process not ours.
leftovers() {
	local e p
	grep -lzxF "JOBSHIFT_TEST_SUITE=$JOBSHIFT_TEST_SUITE" /proc/[0-9]*/environ 2>/dev/null | while read -r e; do
		p=${e#/proc/}
		p=${p%/environ}
		if [[ ! -e /proc/$p ]] || ours "$p"; then continue; fi
		printf '%s %s\n' "$p" "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)"
	done
	return 0
}

cleanup() {
	local rc=$? left
	log "stopping test engines"
	bash scripts/nomad-dev-stop.sh || rc=1
	if [[ -n ${SLURM_UP:-} ]]; then bash scripts/slurm-down.sh || rc=1; fi
	# the multi-host clusters (integration/multihost): down leaves nothing
	if [[ -n ${CLUSTERS_UP:-} ]]; then
		bash scripts/cluster.sh down nomad || rc=1
		bash scripts/cluster.sh down slurm || rc=1
	fi
	# the fault suite's own clusters, should its TestMain not have taken them down (killed)
	if [[ -n ${CLUSTERS_UP:-} ]]; then
		for e in nomad slurm; do
			if JOBSHIFT_CLUSTER_ID=1 bash scripts/cluster.sh env "$e" >/dev/null 2>&1; then
				JOBSHIFT_CLUSTER_ID=1 bash scripts/cluster.sh down "$e" || rc=1
			fi
		done
	fi
	sleep 1 # processes killed just now are still being reaped
	left=$(leftovers)
	if [[ -n $left ]]; then
		log "processes the test suite started are still running:"
		printf '%s\n' "$left" >&2
		rc=1
	fi
	exit "$rc"
}
trap cleanup EXIT

if [[ $(id -u) == 0 ]] && command -v slurmctld >/dev/null; then
	log "starting the Slurm test cluster"
	bash scripts/slurm-down.sh >/dev/null 2>&1 || true
	bash scripts/slurm-up.sh
	SLURM_UP=1
	# shellcheck disable=SC1091
	. "${D:-/tmp/jobshift-slurm}/env"
fi

log "starting the Nomad dev agent"
# GPU tasks on Docker need a dockerd runtime named "nvidia" (what a GPU client has).
[[ $(id -u) == 0 ]] && bash scripts/fake-nvidia-runtime.sh
eval "$(bash scripts/nomad-dev-start.sh | grep '^NOMAD_ADDR=')"
export NOMAD_ADDR

# The Docker tests' image (debootstrap + python3-torch, ~10 min once, cached): built before the
# multi-host clusters start, because `cluster.sh up` copies it into every client host's daemon.
if [[ $(id -u) == 0 ]] && command -v docker >/dev/null && docker info >/dev/null 2>&1; then
	log "building the Docker test image (cached)"
	bash integration/nomad/build-torch-image.sh
	log "building the MPI Docker test image (cached by recipe)"
	bash integration/nomad/build-mpi-image.sh
fi

# Multi-host clusters (network namespaces, scripts/cluster.sh) for integration/multihost; the tests
# read their addresses from `cluster.sh env`, so the single-host engines' variables above stay.
if [[ $(id -u) == 0 ]] && command -v slurmctld >/dev/null && command -v ip >/dev/null; then
	log "starting the multi-host test clusters (3 Nomad clients, 4 slurmd hosts)"
	CLUSTERS_UP=1
	bash scripts/cluster.sh up nomad 3 >/dev/null
	# 4 nodes: the LeinaoPAI seed runs one task per node (ps x2, worker x2)
	bash scripts/cluster.sh up slurm 4 >/dev/null
fi

log "go vet"
go vet ./...
log "go test"
# the fault suite (integration/faults) runs alone afterwards: it kills hosts and restarts servers of
# its own clusters (JOBSHIFT_CLUSTER_ID=1, brought up by its TestMain under CI) and checks stop
# times of a few seconds, which the other packages' load on 2 cores must not blur
mapfile -t pkgs < <(go list ./... | grep -v '/integration/faults$')
go test -count=1 -timeout 45m "$@" "${pkgs[@]}"
log "go test (integration/faults: the fault suite, both engines at once, ~8 min + clusters up)"
go test -count=1 -timeout 40m "$@" ./integration/faults
log "go test (integration/contracttmpl: the Nomad template under consul-template)"
(cd integration/contracttmpl && go test -count=1 "$@" ./...)
log "go vet (integration/fakegpu)"
(cd integration/fakegpu && go vet ./...)
