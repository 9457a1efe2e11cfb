# jobshift's mpirun under slurm { mpi = "pmix" }: the user's unchanged
# OpenMPI mpirun line becomes one `srun --mpi=pmix` step of the job, whose
# tasks are the ranks (Slurm's MPI guide, mode 1: Slurm launches the tasks
# and PMIx wires them up), placed on the nodes of the tasks the line names
# (-H master-0:2,worker-0:2, a hostfile, or the MPIJob default hostfile),
# by slot (default) or by node (--map-by node), as OpenMPI maps them.
# Anything it does not translate (an option it does not know, MPMD ':',
# a host that is no task of the job, more ranks than slots) runs OpenMPI's
# own mpirun over the ssh emulation instead, with a line saying why; so do
# --version and --help (horovodrun asks mpirun which MPI it is).
#
# Usage: sh mpirun.sh [mpirun options] program [args...]
# Environment: JOBSHIFT_PMIX_NODES (a file: "node alias..." per ssh task
# of the job, written by js_prepare), JOBSHIFT_MPIRUN_SKIP (the directory
# of this wrapper's `mpirun`, skipped when looking for OpenMPI's),
# SLURMD_NODENAME (the node this runs on), JOBSHIFT_SSH_DIR.

set -u

# real_mpirun REASON ARGS...: OpenMPI's own mpirun (the first on PATH that
# is not this wrapper), over ssh as without the opt-in.
real_mpirun() {
	_why=$1
	shift
	[ -n "$_why" ] && printf 'jobshift mpirun: %s; running OpenMPI'"'"'s mpirun over ssh instead of srun --mpi=pmix\n' "$_why" >&2
	_old_ifs=$IFS
	IFS=:
	for _d in $PATH; do
		[ "$_d" = "${JOBSHIFT_MPIRUN_SKIP:-}" ] && continue
		if [ -x "$_d/mpirun" ]; then
			IFS=$_old_ifs
			exec "$_d/mpirun" "$@"
		fi
	done
	IFS=$_old_ifs
	printf 'jobshift mpirun: no mpirun of OpenMPI on PATH\n' >&2
	exit 127
}

# node_of NAME: the Slurm node of the task that answers to NAME.
node_of() {
	case $1 in
	localhost | 127.0.0.1 | "$(hostname)")
		printf '%s\n' "${SLURMD_NODENAME:?}"
		return 0
		;;
	esac
	awk -v n="$1" '{ for (i = 2; i <= NF; i++) if ($i == n) { print $1; found = 1; exit } } END { exit !found }' "$JOBSHIFT_PMIX_NODES"
}

# hostfile_slots FILE: "name count" per line of an OpenMPI hostfile.
hostfile_slots() {
	sed 's/#.*//' "$1" | awk 'NF { n = 1; for (i = 2; i <= NF; i++) if ($i ~ /^slots=/) { n = substr($i, 7) } print $1, n }'
}

# A ':' anywhere separates MPMD programs (OpenMPI reads it so, even after
# the first program).
for a in "$@"; do
	[ "$a" = : ] && real_mpirun "MPMD (':') is not translated" "$@"
done
# Options, as OpenMPI 4.1's mpirun reads them; values consumed by `want`.
np='' hosts='' hostfile='' npernode='' mapby=slot wdir='' label=0 over=0 want='' prog=0 i=0 mca_k=''
for a in "$@"; do
	i=$((i + 1))
	if [ -n "$want" ]; then
		case $want in
		np) np=$a ;;
		host) hosts=${hosts:+$hosts,}$a ;;
		hostfile) hostfile=$a ;;
		x) case $a in *=*) export "${a?}" ;; esac ;;
		mca) mca_k=$a want=mca2 && continue ;;
		mca2) export "OMPI_MCA_$mca_k=$a" ;;
		mapby) mapby=$a ;;
		npernode) npernode=$a ;;
		wdir) wdir=$a ;;
		esac
		want=''
		continue
	fi
	case $a in
	-np | --np | -n | --n | -c) want=np ;;
	--np=* | --n=*) np=${a#*=} ;;
	-H | -host | --host) want=host ;;
	--host=*) hosts=${hosts:+$hosts,}${a#*=} ;;
	-hostfile | --hostfile | -machinefile | --machinefile | -default-hostfile | --default-hostfile) want=hostfile ;;
	--hostfile=*) hostfile=${a#*=} ;;
	-x) want=x ;;
	-mca | --mca | -gmca | --gmca) want=mca ;;
	-map-by | --map-by) want=mapby ;;
	--map-by=*) mapby=${a#*=} ;;
	-bynode | --bynode) mapby=node ;;
	-byslot | --byslot | -bycore | --bycore) mapby=slot ;;
	-N | -npernode | --npernode) want=npernode ;;
	-wdir | --wdir | -wd | --wd) want=wdir ;;
	-bind-to | --bind-to | -rank-by | --rank-by | -prefix | --prefix | -launch-agent | --launch-agent) want=ignore ;;
	-tag-output | --tag-output) label=1 ;;
	-oversubscribe | --oversubscribe) over=1 ;;
	-allow-run-as-root | --allow-run-as-root | -nooversubscribe | --nooversubscribe | -q | --quiet | -v | --verbose | \
		-display-map | --display-map | -display-allocation | --display-allocation | -report-bindings | --report-bindings | \
		-timestamp-output | --timestamp-output | -noprefix | --noprefix | -bind-to-core | --bind-to-core | \
		-bind-to-socket | --bind-to-socket | -use-hwthread-cpus | --use-hwthread-cpus) ;;
	-V | --version | -h | -help | --help) real_mpirun '' "$@" ;;
	-*) real_mpirun "option $a is not translated" "$@" ;;
	*)
		prog=$i
		break
		;;
	esac
done
[ "$prog" -gt 0 ] || real_mpirun 'no program to run' "$@"
case $mapby in
ppr:*:node) npernode=${mapby#ppr:} npernode=${npernode%%:*} mapby=slot ;;
node | node:*) mapby=node ;;
*) mapby=slot ;;
esac

# The hosts and their slots, in the order OpenMPI fills them.
if [ -z "$hosts" ] && [ -z "$hostfile" ] && [ -n "${OMPI_MCA_orte_default_hostfile:-}" ] && [ -r "$OMPI_MCA_orte_default_hostfile" ]; then
	hostfile=$OMPI_MCA_orte_default_hostfile
fi
if [ -n "$hosts" ]; then
	slots=$(printf '%s\n' "$hosts" | tr ',' '\n' | awk -F: 'NF { print $1, ($2 == "" ? 1 : $2) }')
elif [ -n "$hostfile" ]; then
	[ -r "$hostfile" ] || real_mpirun "cannot read the hostfile $hostfile" "$@"
	slots=$(hostfile_slots "$hostfile")
else
	slots="localhost ${np:-$(nproc)}"
fi
[ -n "$npernode" ] && slots=$(printf '%s\n' "$slots" | awk -v n="$npernode" '{ print $1, n }')
# name -> node, keeping the order and the counts
table=''
while read -r h c; do
	[ -n "$h" ] || continue
	nd=$(node_of "$h") || real_mpirun "host $h is not a task of this job" "$@"
	table="$table$nd $c
"
done <<EOF
$slots
EOF
total=$(printf '%s' "$table" | awk '{ s += $2 } END { print s + 0 }')
[ -n "$np" ] || np=$total
case $np in '' | *[!0-9]*) real_mpirun "rank count '$np' is not a number" "$@" ;; esac
[ "$np" -gt 0 ] || real_mpirun 'no slots' "$@"
[ "$np" -le "$total" ] || [ "$over" = 1 ] || real_mpirun "$np ranks but $total slots" "$@"

# One node per rank, as SLURM_HOSTFILE for --distribution=arbitrary.
out=${JOBSHIFT_SSH_DIR:-${TMPDIR:-/tmp}}/mpirun.$$.hosts
printf '%s' "$table" | awk -v np="$np" -v by="$mapby" '
	{ node[NR] = $1; cnt[NR] = $2 }
	END {
		left = np
		for (pass = 0; left > 0; pass++) {
			for (k = 1; k <= NR && left > 0; k++) {
				if (by == "node") {
					if (pass < cnt[k] || pass >= maxc()) { print node[k]; left-- }
				} else {
					for (j = 0; j < cnt[k] && left > 0; j++) { print node[k]; left-- }
				}
			}
		}
	}
	function maxc(   m, k) { m = 0; for (k = 1; k <= NR; k++) if (cnt[k] > m) m = cnt[k]; return m }
' >"$out" || real_mpirun "cannot write $out" "$@"

# srun reads these as its own options; the launcher's step set them for
# itself, not for the ranks.
unset SLURM_CPU_BIND SLURM_CPUS_PER_GPU SLURM_CPUS_PER_TASK SLURM_DISTRIBUTION SLURM_EXACT SLURM_EXCLUSIVE \
	SLURM_GPUS SLURM_GPUS_PER_NODE SLURM_GPUS_PER_TASK SLURM_GRES SLURM_HOSTFILE SLURM_JOB_NAME \
	SLURM_JOB_NUM_NODES SLURM_KILL_BAD_EXIT SLURM_LABELIO SLURM_MEM_PER_CPU SLURM_MEM_PER_GPU \
	SLURM_MEM_PER_NODE SLURM_MPI_TYPE SLURM_NNODES SLURM_NPROCS SLURM_NTASKS SLURM_NTASKS_PER_GPU \
	SLURM_NTASKS_PER_NODE SLURM_OPEN_MODE SLURM_OVERCOMMIT SLURM_OVERLAP SLURM_SPREAD_JOB SLURM_STEP_GRES
SLURM_HOSTFILE=$out
export SLURM_HOSTFILE
[ "$label" = 1 ] && export SLURM_LABELIO=1 # --tag-output: each line says its rank
shift $((prog - 1))
# mpirun exits with the code of the first rank that failed; srun with the
# highest of all, which is the SIGTERM (143) of the ranks it killed after
# that one: each rank records a failing code, the first line is the one.
rcs=$out.rc
rm -f "$rcs"
# --overlap: the ranks share the CPUs, memory and GPUs of the job's tasks
# on their nodes (the launcher and workers hold them in their own steps);
# --overcommit: more ranks than CPUs on a node, as mpirun's slots allowed;
# --kill-on-bad-exit: one failing rank ends the others, as mpirun does.
# a stop reaches the ranks through srun, as it reached mpirun's (the trap
# is set before the fork, so no stop is lost)
stop=0 spid=
trap 'stop=1; [ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null' TERM INT HUP
# shellcheck disable=SC2016 # the rank's shell expands them
srun --mpi=pmix --overlap --overcommit --kill-on-bad-exit=1 --job-name=mpirun \
	--ntasks="$np" --cpus-per-task=1 --distribution=arbitrary --chdir="${wdir:-$PWD}" \
	/bin/sh -c '"$@"; rc=$?; [ "$rc" = 0 ] || echo "$rc" >>"$0"; exit "$rc"' "$rcs" "$@" &
spid=$!
# a stop that came before $spid was known is passed on now
[ "$stop" = 1 ] && kill -TERM "$spid" 2>/dev/null
wait "$spid"
rc=$?
while kill -0 "$spid" 2>/dev/null; do
	wait "$spid"
	rc=$?
done
if [ "$rc" != 0 ] && [ -s "$rcs" ]; then
	rc=$(head -n 1 "$rcs")
fi
rm -f "$rcs" "$out"
exit "$rc"
