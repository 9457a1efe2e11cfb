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
# The script's own variables all start with _jsm_ (reserved): a variable
# of the job's environment is exported, so one the script assigned under
# the job's own name would reach the ranks changed. It sets for them only
# what the line asks (-x, --mca) and srun's SLURM_HOSTFILE and
# SLURM_LABELIO.

set -u

# real_mpirun REASON ARGS...: OpenMPI's own mpirun (the first on PATH that
# is not this wrapper), over ssh as without the opt-in.
real_mpirun() {
	_jsm_why=$1
	shift
	[ -n "$_jsm_why" ] && printf 'jobshift mpirun: %s; running OpenMPI'"'"'s mpirun over ssh instead of srun --mpi=pmix\n' "$_jsm_why" >&2
	_jsm_old_ifs=$IFS
	IFS=:
	for _jsm_d in $PATH; do
		[ "$_jsm_d" = "${JOBSHIFT_MPIRUN_SKIP:-}" ] && continue
		if [ -x "$_jsm_d/mpirun" ]; then
			IFS=$_jsm_old_ifs
			exec "$_jsm_d/mpirun" "$@"
		fi
	done
	IFS=$_jsm_old_ifs
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
for _jsm_a in "$@"; do
	[ "$_jsm_a" = : ] && real_mpirun "MPMD (':') is not translated" "$@"
done
# Options, as OpenMPI 4.1's mpirun reads them; values consumed by `want`.
_jsm_np='' _jsm_hosts='' _jsm_hostfile='' _jsm_npernode='' _jsm_mapby=slot _jsm_wdir='' _jsm_label=0 _jsm_over=0 _jsm_want='' _jsm_prog=0 _jsm_i=0 _jsm_mca_k=''
for _jsm_a in "$@"; do
	_jsm_i=$((_jsm_i + 1))
	if [ -n "$_jsm_want" ]; then
		case $_jsm_want in
		np) _jsm_np=$_jsm_a ;;
		host) _jsm_hosts=${_jsm_hosts:+$_jsm_hosts,}$_jsm_a ;;
		hostfile) _jsm_hostfile=$_jsm_a ;;
		x) case $_jsm_a in *=*) export "${_jsm_a?}" ;; esac ;;
		mca) _jsm_mca_k=$_jsm_a _jsm_want=mca2 && continue ;;
		mca2) export "OMPI_MCA_$_jsm_mca_k=$_jsm_a" ;;
		mapby) _jsm_mapby=$_jsm_a ;;
		npernode) _jsm_npernode=$_jsm_a ;;
		wdir) _jsm_wdir=$_jsm_a ;;
		esac
		_jsm_want=''
		continue
	fi
	case $_jsm_a in
	-np | --np | -n | --n | -c) _jsm_want=np ;;
	--np=* | --n=*) _jsm_np=${_jsm_a#*=} ;;
	-H | -host | --host) _jsm_want=host ;;
	--host=*) _jsm_hosts=${_jsm_hosts:+$_jsm_hosts,}${_jsm_a#*=} ;;
	-hostfile | --hostfile | -machinefile | --machinefile | -default-hostfile | --default-hostfile) _jsm_want=hostfile ;;
	--hostfile=*) _jsm_hostfile=${_jsm_a#*=} ;;
	-x) _jsm_want=x ;;
	-mca | --mca | -gmca | --gmca) _jsm_want=mca ;;
	-map-by | --map-by) _jsm_want=mapby ;;
	--map-by=*) _jsm_mapby=${_jsm_a#*=} ;;
	-bynode | --bynode) _jsm_mapby=node ;;
	-byslot | --byslot | -bycore | --bycore) _jsm_mapby=slot ;;
	-N | -npernode | --npernode) _jsm_want=npernode ;;
	-wdir | --wdir | -wd | --wd) _jsm_want=wdir ;;
	-bind-to | --bind-to | -rank-by | --rank-by | -prefix | --prefix | -launch-agent | --launch-agent) _jsm_want=ignore ;;
	-tag-output | --tag-output) _jsm_label=1 ;;
	-oversubscribe | --oversubscribe) _jsm_over=1 ;;
	-allow-run-as-root | --allow-run-as-root | -nooversubscribe | --nooversubscribe | -q | --quiet | -v | --verbose | \
		-display-map | --display-map | -display-allocation | --display-allocation | -report-bindings | --report-bindings | \
		-timestamp-output | --timestamp-output | -noprefix | --noprefix | -bind-to-core | --bind-to-core | \
		-bind-to-socket | --bind-to-socket | -use-hwthread-cpus | --use-hwthread-cpus) ;;
	-V | --version | -h | -help | --help) real_mpirun '' "$@" ;;
	-*) real_mpirun "option $_jsm_a is not translated" "$@" ;;
	*)
		_jsm_prog=$_jsm_i
		break
		;;
	esac
done
[ "$_jsm_prog" -gt 0 ] || real_mpirun 'no program to run' "$@"
case $_jsm_mapby in
ppr:*:node) _jsm_npernode=${_jsm_mapby#ppr:} _jsm_npernode=${_jsm_npernode%%:*} _jsm_mapby=slot ;;
node | node:*) _jsm_mapby=node ;;
*) _jsm_mapby=slot ;;
esac

# The hosts and their slots, in the order OpenMPI fills them.
if [ -z "$_jsm_hosts" ] && [ -z "$_jsm_hostfile" ] && [ -n "${OMPI_MCA_orte_default_hostfile:-}" ] && [ -r "$OMPI_MCA_orte_default_hostfile" ]; then
	_jsm_hostfile=$OMPI_MCA_orte_default_hostfile
fi
if [ -n "$_jsm_hosts" ]; then
	_jsm_slots=$(printf '%s\n' "$_jsm_hosts" | tr ',' '\n' | awk -F: 'NF { print $1, ($2 == "" ? 1 : $2) }')
elif [ -n "$_jsm_hostfile" ]; then
	[ -r "$_jsm_hostfile" ] || real_mpirun "cannot read the hostfile $_jsm_hostfile" "$@"
	_jsm_slots=$(hostfile_slots "$_jsm_hostfile")
else
	_jsm_slots="localhost ${_jsm_np:-$(nproc)}"
fi
[ -n "$_jsm_npernode" ] && _jsm_slots=$(printf '%s\n' "$_jsm_slots" | awk -v n="$_jsm_npernode" '{ print $1, n }')
# name -> node, keeping the order and the counts
_jsm_table=''
while read -r _jsm_h _jsm_c; do
	[ -n "$_jsm_h" ] || continue
	_jsm_nd=$(node_of "$_jsm_h") || real_mpirun "host $_jsm_h is not a task of this job" "$@"
	_jsm_table="$_jsm_table$_jsm_nd $_jsm_c
"
done <<EOF
$_jsm_slots
EOF
_jsm_total=$(printf '%s' "$_jsm_table" | awk '{ s += $2 } END { print s + 0 }')
[ -n "$_jsm_np" ] || _jsm_np=$_jsm_total
case $_jsm_np in '' | *[!0-9]*) real_mpirun "rank count '$_jsm_np' is not a number" "$@" ;; esac
[ "$_jsm_np" -gt 0 ] || real_mpirun 'no slots' "$@"
[ "$_jsm_np" -le "$_jsm_total" ] || [ "$_jsm_over" = 1 ] || real_mpirun "$_jsm_np ranks but $_jsm_total slots" "$@"

# One node per rank, as SLURM_HOSTFILE for --distribution=arbitrary.
_jsm_out=${JOBSHIFT_SSH_DIR:-${TMPDIR:-/tmp}}/mpirun.$$.hosts
printf '%s' "$_jsm_table" | awk -v np="$_jsm_np" -v by="$_jsm_mapby" '
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
' >"$_jsm_out" || real_mpirun "cannot write $_jsm_out" "$@"

# srun reads these as its own options; the launcher's step set them for
# itself, not for the ranks.
unset SLURM_CPU_BIND SLURM_CPUS_PER_GPU SLURM_CPUS_PER_TASK SLURM_DISTRIBUTION SLURM_EXACT SLURM_EXCLUSIVE \
	SLURM_GPUS SLURM_GPUS_PER_NODE SLURM_GPUS_PER_TASK SLURM_GRES SLURM_HOSTFILE SLURM_JOB_NAME \
	SLURM_JOB_NUM_NODES SLURM_KILL_BAD_EXIT SLURM_LABELIO SLURM_MEM_PER_CPU SLURM_MEM_PER_GPU \
	SLURM_MEM_PER_NODE SLURM_MPI_TYPE SLURM_NNODES SLURM_NPROCS SLURM_NTASKS SLURM_NTASKS_PER_GPU \
	SLURM_NTASKS_PER_NODE SLURM_OPEN_MODE SLURM_OVERCOMMIT SLURM_OVERLAP SLURM_SPREAD_JOB SLURM_STEP_GRES
SLURM_HOSTFILE=$_jsm_out
export SLURM_HOSTFILE
[ "$_jsm_label" = 1 ] && export SLURM_LABELIO=1 # --tag-output: each line says its rank
shift $((_jsm_prog - 1))
# mpirun exits with the code of the first rank that failed; srun with the
# highest of all, which is the SIGTERM (143) of the ranks it killed after
# that one: each rank records a failing code, the first line is the one.
_jsm_rcs=$_jsm_out.rc
rm -f "$_jsm_rcs"
# --overlap: the ranks share the CPUs, memory and GPUs of the job's tasks
# on their nodes (the launcher and workers hold them in their own steps);
# --overcommit: more ranks than CPUs on a node, as mpirun's slots allowed;
# --kill-on-bad-exit: one failing rank ends the others, as mpirun does.
# a stop reaches the ranks through srun, as it reached mpirun's (the trap
# is set before the fork, so no stop is lost)
_jsm_stop=0 _jsm_spid=
trap '_jsm_stop=1; [ -n "$_jsm_spid" ] && kill -TERM "$_jsm_spid" 2>/dev/null' TERM INT HUP
# shellcheck disable=SC2016 # the rank's shell expands them
srun --mpi=pmix --overlap --overcommit --kill-on-bad-exit=1 --job-name=mpirun \
	--ntasks="$_jsm_np" --cpus-per-task=1 --distribution=arbitrary --chdir="${_jsm_wdir:-$PWD}" \
	/bin/sh -c '"$@"; _jsm_rc=$?; [ "$_jsm_rc" = 0 ] || echo "$_jsm_rc" >>"$0"; exit "$_jsm_rc"' "$_jsm_rcs" "$@" &
_jsm_spid=$!
# a stop that came before $_jsm_spid was known is passed on now
[ "$_jsm_stop" = 1 ] && kill -TERM "$_jsm_spid" 2>/dev/null
wait "$_jsm_spid"
_jsm_rc=$?
while kill -0 "$_jsm_spid" 2>/dev/null; do
	wait "$_jsm_spid"
	_jsm_rc=$?
done
if [ "$_jsm_rc" != 0 ] && [ -s "$_jsm_rcs" ]; then
	_jsm_rc=$(head -n 1 "$_jsm_rcs")
fi
rm -f "$_jsm_rcs" "$_jsm_out"
exit "$_jsm_rc"
