#!/bin/bash
# Install the Debian packages of the throw-away Slurm test cluster (spec/slurm.md §7.1).
#
# Idempotent: packages already installed are not touched, so re-running costs one dpkg query.
# Runs as root (CI). ACCOUNTING=1 (default) also installs slurmdbd + MariaDB, because `sacct`
# needs a slurmdbd: jobshift's watcher falls back to sacct once `scontrol` forgets a job, and
# the integration tests read per-step states (parameter-server step CANCELLED) from sacct.
# ACCOUNTING=0 installs only what `sbatch`/`srun` need.
#
# Then start the cluster with scripts/slurm-up.sh and stop it with scripts/slurm-down.sh.
set -euo pipefail

ACCOUNTING=${ACCOUNTING:-1}
# libpmix-dev: Debian's Slurm ships mpi_pmix, which dlopens the unversioned libpmix.so that only
# the -dev package installs; without it `srun --mpi=list` lacks pmix and the site option
# slurm { mpi = "pmix" } cannot run. slurmd loads its MPI plugins when it starts, so install this
# before slurm-up.sh / cluster.sh start the daemons.
pkgs=(munge slurmctld slurmd slurm-client libpmix-dev)
if [[ $ACCOUNTING == 1 ]]; then pkgs+=(slurmdbd mariadb-server mariadb-client); fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if ((${#missing[@]} == 0)); then
	echo "install-slurm: already installed: ${pkgs[*]}"
	exit 0
fi
if [[ $(id -u) != 0 ]]; then
	echo "install-slurm: must run as root to install: ${missing[*]}" >&2
	exit 1
fi
echo "install-slurm: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# No systemd in CI containers: keep package scripts from trying to start services
# (slurm-up.sh starts every daemon by hand, with its own config).
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-slurm: done"
