# The completion decision (translate/completion.Decide) in POSIX sh.
#
# Decide replays task ends in the order they were observed and applies the
# platform's rules after each one; the first rule that fires is the verdict.
# js_end is that replay step: call it once per task end, in observed order
# (ties: role order, then index), and stop once _jsh_phase is not "running".
# Rules and messages follow translate/completion (pai.go, kubeflow.go,
# decide.go); decide_test.go runs this file under dash and bash against the Go
# engine on tables of task outcomes.
#
# Static data the batch script defines (rendered from the job):
#   _jsh_kind        pai | tf | pytorch | tf1 | pytorch1 | mpi | jobset |
#                    volcano | generic
#                    (tf1, pytorch1: the v1alpha1 rule, the chief MASTER 0
#                    decides; mpi: the MPIJob launcher decides; jobset: a
#                    TrainJob's JobSet success policy)
#   _jsh_tgt_R       jobset: 1 when role R is a success-policy target
#   _jsh_any         jobset: 1 with successPolicy operator Any
#   _jsh_vmin, _jsh_vminsucc, _jsh_vtaskmin, _jsh_vtmin_R, _jsh_vtc_R,
#   _jsh_vtf_R, _jsh_vpf_R
#                    volcano: the gang, minSuccess, the tasks' minAvailable
#                    and the action letters of each role's events (lower
#                    case: the policy has a timeout, its action waits;
#                    _jsh_vtct_R, _jsh_vtft_R, _jsh_vpft_R: the timeouts)
#                    (drivers/slurm volcano.go volcanoData)
#   _jsh_nroles      number of roles; roles are numbered 0.._jsh_nroles-1
#   _jsh_n_R         instances of role R
#   _jsh_rt_R        Kubeflow replica type of role R (lower case)
#   _jsh_minf_R      PAI minFailed of role R (0 = rule disabled)
#   _jsh_mins_R      PAI minSucceeded of role R (0 = rule disabled)
#   _jsh_rs_R        Kubeflow restart policy of role R as 256 characters:
#                    the (code+1)th is 1 when exit code code restarts
#   _jsh_bl          1 when Kubeflow backoffLimit is set
#   _jsh_dynworker   1 with TFJob enableDynamicWorker
#   _jsh_allworkers  1 with TFJob successPolicy AllWorkers
#   _jsh_elastic     1 when PyTorchJob elasticPolicy is set
#   _jsh_decider     pytorch: the replica type whose success ends the job
#                    (unset: master; scheduler for an MXJob)
#   _jsh_workers     pytorch: 1 (unset: 1) when, lacking the decider, every
#                    Worker succeeding ends the job (completion.WorkersDecide)
# Verdict: _jsh_phase (running|succeeded|failed), _jsh_vcode, _jsh_vwhy,
# _jsh_vtrig ("R I" of the deciding task).

js_decide_init() {
	_jsh_phase=running
	_jsh_vaction=
	_jsh_vh=
	_v_held=0
	_jsh_vcode=0
	_jsh_vwhy=
	_jsh_vtrig=
	_jsh_nended=0
	_jsh_total=0
	_d_r=0
	while [ "$_d_r" -lt "$_jsh_nroles" ]; do
		eval "_d_n=\$_jsh_n_$_d_r"
		eval "_jsh_ns_$_d_r=0 _jsh_nf_$_d_r=0"
		_d_i=0
		while [ "$_d_i" -lt "$_d_n" ]; do
			eval "_jsh_st_${_d_r}_$_d_i=p _jsh_rc_${_d_r}_$_d_i=0"
			_d_i=$((_d_i + 1))
		done
		_jsh_total=$((_jsh_total + _d_n))
		_d_r=$((_d_r + 1))
	done
}

# js_end R I STATE CODE: task I of role R ended; STATE is s (succeeded) or f
# (failed). Applies the rules; sets _jsh_phase when one fires.
js_end() {
	[ "$_jsh_phase" = running ] || return 0
	eval "_e_old=\$_jsh_st_${1}_$2"
	[ "$_e_old" = p ] || return 0 # replayed already
	eval "_jsh_st_${1}_$2=$3 _jsh_rc_${1}_$2=$4"
	if [ "$3" = s ]; then
		eval "_jsh_ns_$1=\$((_jsh_ns_$1 + 1))"
	else
		eval "_jsh_nf_$1=\$((_jsh_nf_$1 + 1))"
	fi
	_jsh_nended=$((_jsh_nended + 1))
	case $_jsh_kind in
	pai) js_rule_pai "$@" ;;
	tf) js_rule_tf "$@" ;;
	pytorch) js_rule_pytorch "$@" ;;
	tf1 | pytorch1) js_rule_chief "$@" ;;
	mpi) js_rule_mpi "$@" ;;
	jobset) js_rule_jobset "$@" ;;
	volcano) js_rule_volcano "$@" ;;
	esac
	[ "$_jsh_phase" = running ] || return 0
	[ "$_jsh_nended" -eq "$_jsh_total" ] || return 0
	case $_jsh_kind in
	pai) js_verdict succeeded 0 "$1" "$2" "all tasks completed and no minFailed/minSucceeded rule was triggered" ;;
	tf | pytorch | tf1 | pytorch1 | mpi | jobset) js_verdict failed 1 "$1" "$2" "every task ended but no success rule fired" ;;
	volcano)
		if [ "$_v_held" = 1 ]; then
			js_fire_volcano
		else
			js_all_ended_volcano "$1" "$2"
		fi
		;;
	*) js_all_ended_generic "$1" "$2" ;;
	esac
}

js_verdict() {
	_jsh_phase=$1
	_jsh_vcode=$2
	_jsh_vtrig="$3 $4"
	_jsh_vwhy=$5
}

# js_failcode CODE: a failed verdict's code is the trigger's, never 0.
js_failcode() {
	if [ "$1" = 0 ]; then echo 1; else echo "$1"; fi
}

# js_first_failed: the first failed task in role order, then index, as
# _g_r (role), _g_i (index) and _g_c (its code); false when none failed.
js_first_failed() {
	_g_r=0
	while [ "$_g_r" -lt "$_jsh_nroles" ]; do
		eval "_g_n=\$_jsh_n_$_g_r"
		_g_i=0
		while [ "$_g_i" -lt "$_g_n" ]; do
			eval "_g_s=\$_jsh_st_${_g_r}_$_g_i _g_c=\$_jsh_rc_${_g_r}_$_g_i"
			[ "$_g_s" = f ] && return 0
			_g_i=$((_g_i + 1))
		done
		_g_r=$((_g_r + 1))
	done
	return 1
}

js_all_ended_generic() {
	if js_first_failed; then
		js_verdict failed "$(js_failcode "$_g_c")" "$_g_r" "$_g_i" "every task ended; a task failed"
		return 0
	fi
	js_verdict succeeded 0 "$1" "$2" "every task succeeded"
}

js_rule_pai() {
	eval "_p_minf=\$_jsh_minf_$1 _p_mins=\$_jsh_mins_$1 _p_nf=\$_jsh_nf_$1 _p_ns=\$_jsh_ns_$1"
	if [ "$3" = f ] && [ "$_p_minf" -ge 1 ] && [ "$_p_nf" -ge "$_p_minf" ]; then
		js_verdict failed "$(js_failcode "$4")" "$1" "$2" "FailedTaskCount $_p_nf has reached MinFailedTaskCount $_p_minf"
	elif [ "$3" = s ] && [ "$_p_mins" -ge 1 ] && [ "$_p_ns" -ge "$_p_mins" ]; then
		js_verdict succeeded 0 "$1" "$2" "SucceededTaskCount $_p_ns has reached MinSucceededTaskCount $_p_mins"
	fi
}

# js_restartable R CODE: role R's restart policy restarts exit code CODE.
js_restartable() {
	[ "$2" -ge 0 ] && [ "$2" -le 255 ] || return 1
	eval "_s_rs=\$_jsh_rs_$1"
	[ "$(printf '%s' "$_s_rs" | cut -c"$(($2 + 1))")" = 1 ]
}

# js_kf_failure R I STATE CODE IGNORE: the failure rules TFJob and PyTorchJob
# share (backoff limit, then a failed replica).
js_kf_failure() {
	if [ "$_jsh_bl" = 1 ] && js_restartable "$1" "$4"; then
		js_verdict failed "$(js_failcode "$4")" "$1" "$2" "BackoffLimitExceeded"
		return 0
	fi
	if [ "$3" = f ] && [ "$5" != 1 ]; then
		eval "_k_rt=\$_jsh_rt_$1"
		js_verdict failed "$(js_failcode "$4")" "$1" "$2" "a $_k_rt replica failed"
		return 0
	fi
	return 1
}

# js_all_succeeded TYPE...: every task of roles of these replica types has
# succeeded (so far). _a_any is set to 1 when such tasks exist.
js_all_succeeded() {
	_a_all=1
	_a_any=0
	_a_r=0
	while [ "$_a_r" -lt "$_jsh_nroles" ]; do
		eval "_a_rt=\$_jsh_rt_$_a_r _a_n=\$_jsh_n_$_a_r _a_ns=\$_jsh_ns_$_a_r"
		for _a_t in "$@"; do
			if [ "$_a_rt" = "$_a_t" ] && [ "$_a_n" -gt 0 ]; then
				_a_any=1
				[ "$_a_ns" -eq "$_a_n" ] || _a_all=0
			fi
		done
		_a_r=$((_a_r + 1))
	done
	[ "$_a_any" = 1 ] && [ "$_a_all" = 1 ]
}

js_rule_tf() {
	eval "_t_rt=\$_jsh_rt_$1"
	_t_ign=0
	[ "$_jsh_dynworker" = 1 ] && [ "$_t_rt" = worker ] && _t_ign=1
	js_kf_failure "$1" "$2" "$3" "$4" "$_t_ign" && return 0
	[ "$3" = s ] || return 0
	if js_all_succeeded chief master; then
		js_verdict succeeded 0 "$1" "$2" "every Chief/Master replica succeeded"
		return 0
	fi
	[ "$_a_any" = 1 ] && return 0
	if js_all_succeeded worker; then
		js_verdict succeeded 0 "$1" "$2" "every Worker replica succeeded"
		return 0
	fi
	[ "$_a_any" = 0 ] && return 0
	[ "$_jsh_allworkers" = 1 ] && return 0
	# worker 0: task 0 of the first role of type worker
	_t_r=0
	while [ "$_t_r" -lt "$_jsh_nroles" ]; do
		eval "_t_x=\$_jsh_rt_$_t_r _t_n=\$_jsh_n_$_t_r"
		if [ "$_t_x" = worker ] && [ "$_t_n" -gt 0 ]; then
			eval "_t_s=\$_jsh_st_${_t_r}_0 _t_c=\$_jsh_rc_${_t_r}_0"
			if [ "$_t_s" = s ] && [ "$_t_c" = 0 ]; then
				js_verdict succeeded 0 "$1" "$2" "Worker 0 succeeded"
			fi
			return 0
		fi
		_t_r=$((_t_r + 1))
	done
}

# js_rule_mpi: the launcher's end decides (completion mpiRules); workers
# only feed counters (a dead worker fails mpirun in the launcher).
js_rule_mpi() {
	eval "_m_rt=\$_jsh_rt_$1"
	[ "$_m_rt" = launcher ] || return 0
	js_kf_failure "$1" "$2" "$3" "$4" 0 && return 0
	[ "$3" = s ] && js_verdict succeeded 0 "$1" "$2" "the Launcher succeeded"
	return 0
}

# js_rule_jobset: translate/completion jobset.go — a task that failed for
# good fails the JobSet; it succeeds once every target role (operator
# Any: one of them) has all its tasks succeeded.
js_rule_jobset() {
	if [ "$3" = f ]; then
		eval "_j_rt=\$_jsh_rt_$1"
		js_verdict failed "$(js_failcode "$4")" "$1" "$2" "replicated job $_j_rt failed"
		return 0
	fi
	[ "$3" = s ] || return 0
	_j_r=0
	_j_all=1
	_j_one=0
	while [ "$_j_r" -lt "$_jsh_nroles" ]; do
		eval "_j_t=\${_jsh_tgt_$_j_r:-0} _j_n=\$_jsh_n_$_j_r _j_ns=\$_jsh_ns_$_j_r"
		if [ "$_j_t" = 1 ]; then
			if [ "$_j_ns" -ge "$_j_n" ]; then
				_j_one=1
			else
				_j_all=0
			fi
		fi
		_j_r=$((_j_r + 1))
	done
	if [ "${_jsh_any:-0}" = 1 ]; then
		[ "$_j_one" = 1 ] || return 0
	else
		[ "$_j_all" = 1 ] || return 0
	fi
	js_verdict succeeded 0 "$1" "$2" "the success policy holds"
}

js_rule_pytorch() {
	js_kf_failure "$1" "$2" "$3" "$4" 0 && return 0
	[ "$3" = s ] || return 0
	if js_all_succeeded "${_jsh_decider:-master}"; then
		js_verdict succeeded 0 "$1" "$2" "the ${_jsh_decider:-master} succeeded"
		return 0
	fi
	[ "$_a_any" = 1 ] && return 0
	if [ "${_jsh_workers:-1}" = 1 ] && js_all_succeeded worker; then
		js_verdict succeeded 0 "$1" "$2" "every Worker succeeded"
		return 0
	fi
	eval "_y_rt=\$_jsh_rt_$1"
	if [ "$_jsh_elastic" = 1 ] && [ "$_y_rt" = worker ]; then
		js_verdict succeeded 0 "$1" "$2" "a Worker succeeded and elasticPolicy is set"
	fi
}

# js_rule_chief: v1alpha1 (completion chiefRules). Only task 0 of the master
# role decides: exit 0 succeeds the job; a failure fails it, for TFJob only
# with a permanent code (1-127).
js_rule_chief() {
	eval "_c_rt=\$_jsh_rt_$1"
	[ "$_c_rt" = master ] && [ "$2" = 0 ] || return 0
	if [ "$3" = s ]; then
		js_verdict succeeded 0 "$1" "$2" "the chief (MASTER 0) exited with 0"
	elif [ "$_jsh_kind" = pytorch1 ] || { [ "$4" -ge 1 ] && [ "$4" -le 127 ]; }; then
		js_verdict failed "$(js_failcode "$4")" "$1" "$2" "the chief (MASTER 0) failed"
	fi
}

# js_rule_volcano: translate/completion volcano.go onEnd — the event the
# end raises (TaskCompleted when role R's last task succeeded; PodFailed
# with the code under restartPolicy Never, else TaskFailed) matched by its
# action letter (C CompleteJob, A AbortJob, T TerminateJob, R RestartJob:
# failed, and js_retry requeues while maxRetry allows, P RestartPod or
# RestartTask whose in-place restarts maxRetry refused: failed, - none),
# then minSuccess.
js_rule_volcano() {
	_v_a=-
	if [ "$3" = s ]; then
		eval "_v_n=\$_jsh_n_$1 _v_ns=\$_jsh_ns_$1"
		[ "$_v_ns" -eq "$_v_n" ] && eval "_v_a=\$_jsh_vtc_$1"
	else
		eval "_v_tf=\$_jsh_vtf_$1 _v_pf=\$_jsh_vpf_$1"
		if [ -n "$_v_pf" ]; then
			if [ "$4" -ge 0 ] && [ "$4" -le 255 ]; then
				_v_a=$(printf '%s' "$_v_pf" | cut -c"$(($4 + 1))")
			fi
		else
			_v_a=$_v_tf
		fi
	fi
	_v_held=0
	case $_v_a in
	[catrp])
		# a policy with a timeout: the action waits, this end gets no sync
		# (translate/completion delayed.go); held ends are kept in end
		# order with their timeout (js_vtimeout), for js_fire_due
		_v_held=1
		_jsh_vh="$_jsh_vh$_v_a $1 $2 $4 $(js_vtimeout "$1" "$3" "$4");"
		return 0
		;;
	[CATRP]) js_act_volcano "$_v_a" "$1" "$2" "$4" && return 0 ;;
	esac
	js_count_succeeded
	if [ "$_jsh_vminsucc" -ge 0 ] && [ "$_v_all" -ge "$_jsh_vminsucc" ]; then
		js_verdict succeeded 0 "$1" "$2" "$_v_all pods succeeded, minSuccess $_jsh_vminsucc"
	fi
}

# js_act_volcano LETTER R I CODE: volcano.go volcanoAct, the action of
# LETTER for the end of task I of role R with CODE.
js_act_volcano() {
	case $1 in
	C) js_verdict succeeded 0 "$2" "$3" "CompleteJob" ;;
	A) js_verdict failed "$(js_failcode "$4")" "$2" "$3" "AbortJob: the job Aborted" ;;
	T) js_verdict failed "$(js_failcode "$4")" "$2" "$3" "TerminateJob: the job Terminated" ;;
	R)
		js_verdict failed "$(js_failcode "$4")" "$2" "$3" "RestartJob: the job Restarting"
		_jsh_vaction=R
		;;
	P) js_verdict failed "$(js_failcode "$4")" "$2" "$3" "RestartPod/RestartTask: maxRetry is reached" ;;
	esac
}

# js_fire_volcano: every pod ended and the last end's action is held: no
# event can come before the held actions fire, and the first held one (in
# end order) is the verdict (delayed.go step).
js_fire_volcano() {
	# shellcheck disable=SC2086 # "letter R I code secs", split on purpose
	set -- ${_jsh_vh%%;*}
	js_act_volcano "$(printf '%s' "$1" | tr catrp CATRP)" "$2" "$3" "$4"
}

# js_vtimeout R STATE CODE: the timeout in whole seconds (rounded up) of
# the policy role R's end matched (_jsh_vtct_R TaskCompleted, _jsh_vtft_R
# TaskFailed, _jsh_vpft_R PodFailed by exit code, 256 numbers).
js_vtimeout() {
	if [ "$2" = s ]; then
		eval "echo \$_jsh_vtct_$1"
		return 0
	fi
	eval "_t_pf=\$_jsh_vpft_$1 _t_tf=\$_jsh_vtft_$1"
	if [ -n "$_t_pf" ]; then
		printf '%s' "$_t_pf" | cut -d' ' -f"$(($3 + 1))"
	else
		echo "$_t_tf"
	fi
}

# js_count_succeeded: _v_all, the succeeded tasks of every role.
js_count_succeeded() {
	_v_all=0
	_v_r=0
	while [ "$_v_r" -lt "$_jsh_nroles" ]; do
		eval "_v_all=\$((_v_all + _jsh_ns_$_v_r))"
		_v_r=$((_v_r + 1))
	done
}

# js_all_ended_volcano R I: volcano.go onAllEnded (running.go SyncJob once
# every pod ended): a task below its minAvailable (when the job's
# minAvailable covers their sum), then minSuccess, fail the job; enough
# Succeeded for the gang completes it. A failure names the first failed
# task (role order, then index) and its code, else code 1 and task R I.
js_all_ended_volcano() {
	js_count_succeeded
	_v_fail=0
	if [ "$_jsh_vtaskmin" = 1 ]; then
		_v_r=0
		while [ "$_v_r" -lt "$_jsh_nroles" ]; do
			eval "_v_ns=\$_jsh_ns_$_v_r _v_tm=\$_jsh_vtmin_$_v_r"
			[ "$_v_ns" -ge "$_v_tm" ] || _v_fail=1
			_v_r=$((_v_r + 1))
		done
	fi
	if [ "$_jsh_vminsucc" -ge 0 ] && [ "$_v_all" -lt "$_jsh_vminsucc" ]; then
		_v_fail=1
	fi
	if [ "$_v_fail" = 0 ] && [ "$_v_all" -ge "$_jsh_vmin" ]; then
		js_verdict succeeded 0 "$1" "$2" "every pod ended, $_v_all Succeeded (minAvailable $_jsh_vmin)"
		return 0
	fi
	_v_why="every pod ended: $_v_all Succeeded, below a task's minAvailable, minSuccess or the job's minAvailable $_jsh_vmin"
	if js_first_failed; then
		js_verdict failed "$(js_failcode "$_g_c")" "$_g_r" "$_g_i" "$_v_why"
		return 0
	fi
	js_verdict failed 1 "$1" "$2" "$_v_why"
}
