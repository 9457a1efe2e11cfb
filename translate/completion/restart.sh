# In-place task restarts (translate/completion.TaskRestartDecision) in POSIX
# sh, run by each task's stage 1 after its user command ended. A task is
# reported ended (its exit code file written) only once no restart is due,
# which is what the completion rules expect.
#
# Data (rendered into the task program): _t_kind pai|tf|pytorch|volcano|none;
# _t_gang (PAI gang allocation: no task restarts); _t_tretry_R (PAI
# taskRetryCount of role R); _t_rs_R (Kubeflow restart policy of role R as
# 256 characters: the (code+1)th is 1 when exit code code restarts); _t_bl
# (Kubeflow backoffLimit, -1 = none); _t_classes (OpenPAI class of each raw
# exit code 0..255: t transient, p permanent, u unknown).
# Volcano (volcanoRestart): _t_vk_R (the pod's restartPolicy as 256
# characters, 1 = the kubelet restarts that code), _t_vtmax_R (the task's
# maxRetry for those, -1 = none), _t_vp_R (the PodFailed policy of that
# code that restarts in place: p RestartPod, t RestartTask, 0 none;
# completion.VolcanoRestartTarget), _t_vmax (the job's
# maxRetry for those); the kubelet's restarts count per role
# (restarts.role.R: cache.go TaskFailed sums the task's pods'), the
# policies' job-wide (restarts.job: RetryCount).
#
# _t_bo_init, _t_bo_max: the restart back-off in milliseconds
# (completion.Backoff, the kubelet's CrashLoopBackOff: 10000 300000).
#
# js_restart R CODE DIR I: 0 = restart the task. Counted restarts are kept
# in DIR: per task for PAI (restarts.R.I), job-wide for Kubeflow
# (restarts.job, whose backoffLimit counts every task's restarts), and for
# Volcano as completion.VolcanoRestartCounter says: restarts.job is then
# the job's RetryCount (completion.VolcanoRetryCount), which the driver
# seeds with the count of the earlier attempts (their RestartJob and
# policy restarts) and reads back for the RestartJob decision; _r_vpol is
# 1 after a restart that counted there, and _r_vtask 1 when that restart
# was a RestartTask's (every pod of the task restarts).

# No dollar-brace in this file: on Nomad it travels in a task's args, where Nomad
# would interpolate it. The callers set _k_stop (0, 1 once stopped) before
# calling js_sleep_ms; these two start empty here.
_s_frac=
_s_pid=

# js_lock FILE takes FILE's lock (js_unlock FILE gives it back): mkdir is
# atomic on shared file systems, so the tasks of every node can guard a
# read and a write of one file of the attempt directory; a lock held for
# about 10 s is taken as left by a task that died holding it.
js_lock() {
	_l_n=0
	until mkdir "$1.lock" 2>/dev/null; do
		sleep 0.05
		_l_n=$((_l_n + 1))
		[ "$_l_n" -gt 200 ] && rmdir "$1.lock" 2>/dev/null
	done
}

js_unlock() { rmdir "$1.lock"; }

js_counter_add() {
	js_lock "$1"
	_l_v=$(cat "$1" 2>/dev/null || echo 0)
	echo $((_l_v + 1)) >"$1"
	js_unlock "$1"
}

# js_nth_is STRING N C: the Nth character of STRING (from 1) is C. A
# pattern of N-1 '?' then C, so no process is started: every task asks this
# when its command ends, and on a loaded node a fork there delays the start
# of the tasks still starting (a cut per end cost ~4 ms of CPU per task).
js_nth_is() {
	_q_p=
	_q_k=1
	while [ "$_q_k" -lt "$2" ]; do
		_q_p="$_q_p?"
		_q_k=$((_q_k + 1))
	done
	# the '?'s unquoted (patterns), C quoted (a literal)
	case $1 in
	$_q_p"$3"*) return 0 ;;
	esac
	return 1
}

js_restart() {
	case $_t_kind in
	pai)
		[ "$_t_gang" = 1 ] && return 1
		[ "$2" = 0 ] && return 1
		if [ "$2" -ge 0 ] && [ "$2" -le 255 ]; then
			js_nth_is "$_t_classes" $(($2 + 1)) t && return 0
			js_nth_is "$_t_classes" $(($2 + 1)) p && return 1
		fi
		eval "_r_max=\$_t_tretry_$1"
		_r_f=$3/restarts.$1.$4
		_r_so=$(cat "$_r_f" 2>/dev/null || echo 0)
		if [ "$_r_max" = -1 ] || [ "$_r_so" -lt "$_r_max" ]; then
			js_counter_add "$_r_f"
			return 0
		fi
		return 1
		;;
	tf | pytorch)
		[ "$2" -ge 0 ] && [ "$2" -le 255 ] || return 1
		eval "_r_rs=\$_t_rs_$1"
		js_nth_is "$_r_rs" $(($2 + 1)) 1 || return 1
		_r_f=$3/restarts.job
		if [ "$_t_bl" -ge 0 ]; then
			_r_so=$(cat "$_r_f" 2>/dev/null || echo 0)
			[ $((_r_so + 1)) -ge "$_t_bl" ] && return 1
		fi
		js_counter_add "$_r_f"
		return 0
		;;
	volcano)
		_r_vpol=0
		_r_vtask=0
		[ "$2" -ge 0 ] && [ "$2" -le 255 ] || return 1
		eval "_r_k=\$_t_vk_$1 _r_p=\$_t_vp_$1 _r_max=\$_t_vtmax_$1"
		if js_nth_is "$_r_k" $(($2 + 1)) 1; then
			_r_f=$3/restarts.role.$1
			_r_so=$(cat "$_r_f" 2>/dev/null || echo 0)
			[ "$_r_max" -ge 0 ] && [ "$_r_so" -ge "$_r_max" ] && return 1
		else
			js_nth_is "$_r_p" $(($2 + 1)) 0 && return 1
			_r_f=$3/restarts.job
			_r_so=$(cat "$_r_f" 2>/dev/null || echo 0)
			[ $((_r_so + 1)) -ge "$_t_vmax" ] && return 1
			_r_vpol=1
			js_nth_is "$_r_p" $(($2 + 1)) t && _r_vtask=1
		fi
		js_counter_add "$_r_f"
		return 0
		;;
	esac
	return 1
}

# js_backoff STREAK RAN_MS sets _b_wait (milliseconds to wait before the
# restart) and _b_streak, as completion.Backoff.Next: the first restart of a
# streak at once; then _t_bo_init, doubling, capped at _t_bo_max; a run of
# more than 2 x _t_bo_max since its start begins a new streak.
js_backoff() {
	if [ "$1" -le 0 ] || [ "$2" -gt $((2 * _t_bo_max)) ]; then
		_b_wait=0
		_b_streak=1
		return
	fi
	_b_wait=$_t_bo_init
	_b_n=1
	while [ "$_b_n" -lt "$1" ] && [ "$_b_wait" -lt "$_t_bo_max" ]; do
		_b_wait=$((_b_wait * 2))
		_b_n=$((_b_n + 1))
	done
	[ "$_b_wait" -gt "$_t_bo_max" ] && _b_wait=$_t_bo_max
	_b_streak=$(($1 + 1))
}

# js_vdelay R CODE raises _b_wait (after js_backoff) to the timeout of
# the Volcano policy that restarts role R's task for CODE: a RestartPod or
# RestartTask with a timeout waits for it (completion.VolcanoRestartDelay;
# _t_vd_R holds CODE_MS pairs joined by _). Other kinds: nothing.
js_vdelay() {
	[ "$_t_kind" = volcano ] || return 0
	_d_c=$2
	eval "_d_l=\$_t_vd_$1"
	_d_ifs=$IFS
	IFS=_
	# shellcheck disable=SC2086 # the pairs split at _
	set -- $_d_l
	IFS=$_d_ifs
	while [ $# -ge 2 ]; do
		if [ "$1" = "$_d_c" ] && [ "$2" -gt "$_b_wait" ]; then
			_b_wait=$2
		fi
		shift 2
	done
	return 0
}

# js_now_ms: milliseconds since the epoch; whole seconds where date has no
# %N (some images' date prints it literally).
js_now_ms() {
	_n_ns=$(date +%s%N)
	case $_n_ns in
	'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;
	*) echo $((_n_ns / 1000000)) ;;
	esac
}

# js_sleep_ms MS: sleep in the background and wait for it, so a stop (the
# caller's trap sets _k_stop=1 and kills $_s_pid) ends the wait at once. A
# sleep without fractions sleeps whole seconds rounded up (never shorter
# than the back-off). The sleep is a direct child, so killing it ends it.
# It is killed with SIGKILL, never SIGTERM: until the forked child has
# exec'd sleep it is still a copy of this shell with the caller's TERM
# trap handler, which only records a TERM (the trap is reset before exec),
# so a stop that came just before or after the fork lost its kill and the
# loop slept out the whole back-off (TestRestartLoopStopDuringBackoff, 1
# run in 10 under load: the trap ran, the 1 h sleep lived on).
js_sleep_ms() {
	[ "$_k_stop" = 1 ] && return 0
	if [ -z "$_s_frac" ]; then
		_s_frac=0
		sleep 0.001 2>/dev/null && _s_frac=1
	fi
	if [ "$_s_frac" = 1 ]; then
		sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))" &
	else
		sleep $((($1 + 999) / 1000)) &
	fi
	_s_pid=$!
	# a stop that came before $_s_pid was known
	[ "$_k_stop" = 1 ] && kill -KILL "$_s_pid" 2>/dev/null
	wait "$_s_pid"
	kill -KILL "$_s_pid" 2>/dev/null
	wait "$_s_pid" 2>/dev/null
	_s_pid=
	return 0
}
