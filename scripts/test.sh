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
	pkgs=(python3-torch shellcheck dash bash curl debootstrap)
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

cleanup() {
	log "stopping test engines"
	bash scripts/nomad-dev-stop.sh || true
	[[ -n ${SLURM_UP:-} ]] && bash scripts/slurm-down.sh || true
	# the multi-host clusters (integration/multihost): down leaves nothing
	if [[ -n ${CLUSTERS_UP:-} ]]; then
		bash scripts/cluster.sh down nomad || true
		bash scripts/cluster.sh down slurm || true
	fi
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
eval "$(bash scripts/nomad-dev-start.sh | grep '^NOMAD_ADDR=')"
export NOMAD_ADDR

# Multi-host clusters (network namespaces, scripts/cluster.sh) for integration/multihost; the tests
# read their addresses from `cluster.sh env`, so the single-host engines' variables above stay.
if [[ $(id -u) == 0 ]] && command -v slurmctld >/dev/null && command -v ip >/dev/null; then
	log "starting the multi-host test clusters (3 Nomad clients, 3 slurmd hosts)"
	CLUSTERS_UP=1
	bash scripts/cluster.sh up nomad 3 >/dev/null
	bash scripts/cluster.sh up slurm 3 >/dev/null
fi

log "go vet"
go vet ./...
log "go test"
go test -count=1 -timeout 45m "$@" ./...
log "go test (integration/contracttmpl: the Nomad template under consul-template)"
(cd integration/contracttmpl && go test -count=1 "$@" ./...)
log "go vet (integration/fakegpu)"
(cd integration/fakegpu && go vet ./...)
