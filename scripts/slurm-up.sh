#!/bin/bash
# Bring up a throw-away Slurm 22.05 cluster on one Debian host (spec/slurm.md §7.2, verified recipe):
# munged (unless one already answers), optionally MariaDB+slurmdbd (for sacct), slurmctld and
# NNODES slurmd "nodes" n1..nN (Debian's slurmd is built with --enable-multiple-slurmd, so each
# `slurmd -N nX` is its own node), each with 4 fake v100 GPUs (symlinks to /dev/null: char devices,
# which gres.conf accepts; count-only GPU lines are dropped by slurmd).
# Node sizes are declared generously (64 CPUs, 250 GiB, 8 GPUs) so that real job files, which ask for
# production-sized tasks, pass `sbatch --test-only`.
#
# Usage (root): [D=/tmp/jobshift-slurm] [NNODES=4] [ACCOUNTING=1] scripts/slurm-up.sh
# Afterwards:   . $D/env      (exports SLURM_CONF; sbatch passes it into jobs)
# Stop with:    scripts/slurm-down.sh (stops only what this script started, by PID file)
#
# NNODES defaults to 4 because a heterogeneous job needs one node per component (backfill
# limitation, §1.3) and a TFJob chief/ps/worker/evaluator job has four components.
# CPUS/MEM per node are declared (SlurmdParameters=config_overrides), not the host's: the nodes
# share the host, and the benchmark needs 64 one-CPU tasks.
# With config_overrides slurmd reports the declared sizes; nothing checks them against the host.
set -euo pipefail
D=${D:-/tmp/jobshift-slurm}
NNODES=${NNODES:-4}
ACCOUNTING=${ACCOUNTING:-1}
CPUS=${CPUS:-64}
MEM=${MEM:-256000}
GPUS=${GPUS:-8}
# ports of slurmctld and of the first slurmd (the others follow): another instance beside the
# shared one (D=... ACCOUNTING=0 CTLD_PORT=6917 NODE_PORT=17101) must not take the shared ports
CTLD_PORT=${CTLD_PORT:-6817}
NODE_PORT=${NODE_PORT:-17001}
export SLURM_CONF=$D/etc/slurm.conf

if [[ -f $D/run/slurmctld.pid ]] && kill -0 "$(cat "$D/run/slurmctld.pid")" 2>/dev/null; then
	echo "slurm-up: a cluster is already running under $D (run slurm-down.sh first)" >&2
	exit 1
fi
rm -rf "$D"
mkdir -p "$D"/{etc,state,log,run,dev,jobs}
for n in $(seq 1 "$NNODES"); do mkdir -p "$D/spool/n$n" "$D/tmp/n$n"; done
for i in $(seq 0 $((GPUS - 1))); do ln -s /dev/null "$D/dev/nvidia$i"; done

if [[ $ACCOUNTING == 1 ]]; then
	ACCT="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=6819
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=0"
else
	# AccountingStorageTRES=gres/gpu is fatal without slurmdbd (§7.4 item 3).
	ACCT="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
fi
cat >"$D/etc/slurm.conf" <<CONF
ClusterName=ci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# a requeued job waits cred_expire+1 s before it may start again (default 121 s)
AuthInfo=cred_expire=10
SlurmctldPort=$CTLD_PORT
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
# per node, as on real nodes: the nodes share this host's /tmp, where srun --mpi=pmix steps
# spanning several of them collided (each slurmstepd makes TmpFS/spmix_appdir_<uid>_<job>.<step>
# and fails with EEXIST when another node's made it first)
TmpFS=$D/tmp/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
$ACCT
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
SchedulerType=sched/backfill
# het jobs are started only by the backfill loop: poll it every second; the main loop every
# 2 s (default 60), so a requeued job starts soon after cred_expire
SchedulerParameters=bf_interval=1,sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
MpiDefault=none
# accept the CPU/memory counts below although the host is smaller
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
KillWait=5
MailProg=/bin/true
NodeName=n[1-$NNODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$NODE_PORT-$((NODE_PORT + NNODES - 1))] CPUs=$CPUS RealMemory=$MEM Gres=gpu:v100:$GPUS State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$D/etc/gres.conf" <<CONF
# GPU lines need File= (file-less gpu records are dropped by slurmd); /dev/null symlinks are accepted
NodeName=n[1-$NNODES] Name=gpu Type=v100 File=$D/dev/nvidia[0-$((GPUS - 1))]
CONF
printf 'export SLURM_CONF=%s\n' "$SLURM_CONF" >"$D/env"

t0=$(date +%s%N)
if ! munge -n >/dev/null 2>&1; then
	install -d -o munge -g munge -m 0755 /run/munge
	runuser -u munge -- /usr/sbin/munged # forks; pid in /run/munge/munged.pid
	cp /run/munge/munged.pid "$D/run/munged.pid" # marks munged as ours for slurm-down.sh
fi
if [[ $ACCOUNTING == 1 ]]; then
	install -d -o mysql -g mysql "$D/mysql" /run/mysqld
	mariadb-install-db --user=mysql --datadir="$D/mysql" --auth-root-authentication-method=socket >"$D/log/mariadb-install.log" 2>&1
	# logs inside the datadir: mariadbd fails silently when it cannot write its log (§7.4 item 7)
	runuser -u mysql -- /usr/sbin/mariadbd --datadir="$D/mysql" --socket=/run/mysqld/mysqld.sock \
		--bind-address=127.0.0.1 --port=3306 --pid-file="$D/mysql/mariadbd.pid" --log-error="$D/mysql/mariadbd.err" >/dev/null 2>&1 &
	for _ in $(seq 1 200); do mariadb -e 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
	mariadb -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
	cat >"$D/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
DbdHost=localhost
DbdPort=6819
SlurmUser=root
LogFile=$D/log/slurmdbd.log
PidFile=$D/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StoragePort=3306
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
CONF
	chmod 600 "$D/etc/slurmdbd.conf"
	slurmdbd # forks
	for _ in $(seq 1 100); do timeout 2 sacctmgr -n show cluster >/dev/null 2>&1 && break; sleep 0.1; done
fi
slurmctld -c # forks; -c: clean state
for _ in $(seq 1 100); do timeout 2 scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
# slurmd after slurmctld answers: slurmd retrying registration ignores SIGTERM (§7.4 item 4)
for n in $(seq 1 "$NNODES"); do slurmd -N "n$n"; done
ok=0
for _ in $(seq 1 300); do
	c=$(timeout 2 sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$' || true)
	if [[ $c == "$NNODES" ]]; then ok=1; break; fi
	sleep 0.1
done
sinfo -N -o '%N %T %G %c %m'
if [[ $ok != 1 ]]; then
	echo "slurm-up: nodes not idle; see $D/log" >&2
	exit 1
fi
echo "slurm-up: up in $((($(date +%s%N) - t0) / 1000000)) ms; . $D/env  (export SLURM_CONF=$SLURM_CONF)"
