# The batch program: runs once per attempt on the first node of the
# allocation. Computes where every task runs, starts one srun step per role,
# records every task's own exit code, applies the completion rules
# (decide.sh), stops the roles that never end by themselves with SIGTERM, and
# exits with the verdict or requeues itself.
#
# Data the script defines before calling js_main (render.go):
#   _jsh_layout het|packed|single, _jsh_nroles, _jsh_n_R, _jsh_np_R (window
#   ports per task of role R), _jsh_fname_R (role name for file names),
#   _jsh_address nodeaddr|hostname, _jsh_nodein 1 (set when the contract
#   names the tasks' nodes), _jsh_pbase/_jsh_pspan/_jsh_pslots (port
#   window), _jsh_one_per_node 0|1 (LeinaoPAI: no node may hold two tasks),
#   _jsh_uai_ps 0|1 (UAI: every task also runs a parameter server),
#   _jsh_statedir, _jsh_poll, _jsh_deadline (s, 0 = none),
#   _jsh_retry_* (retry policy), _jsh_task (the task program),
#   _jsh_insh_prog_R (role R's in-shell program, insh.go),
#   _jsh_contract_shared and _jsh_contract_task (the two stages of the
#   contract, contract.ShellStages), all written to files by js_main,
#   _jsh_ports_R (role R's port labels, see js_contract_inputs),
#   _jsh_srun_R (role R's srun with every option but the command and the
#   output files, each word quoted; see js_srun).

# js_srun R COMMAND...: role R's step. _jsh_srun_R holds srun and its
# options as quoted words (render.go quotes each one, so eval gives back
# exactly those words; --container-mounts names $_jsh_adir, expanded here);
# the step's output goes to the attempt directory as <role>-<task>.out/.err.
js_srun() {
	eval "_s_opts=\$_jsh_srun_$1 _s_fn=\$_jsh_fname_$1"
	shift
	eval "$_s_opts"' --output="$_jsh_adir/$_s_fn-%t.out" --error="$_jsh_adir/$_s_fn-%t.err" "$@" 4>&-'
}

# js_contract_inputs sets the topology variables the contract's shared
# stage reads (JS_NROLES, JS_R<k>_N, JS_R<k>_ADDR_<i>, JS_R<k>_PORT_<l>_<i>;
# with _jsh_nodein 1, JS_R<k>_NODE_<i> and JS_R<k>_HOSTIP_<i>)
# from js_topology's addresses and the job's port window: role R's tasks
# take _jsh_np_R window ports each, after the roles before it; _jsh_ports_R
# has one word per port label, "f:BEGIN:COUNT" (fixed ports) or
# "w:OFFSET:COUNT" (ports OFFSET.. of the task's window). They stay plain
# shell variables: only the shared stage, sourced in a subshell, reads them
# (exported, every task would carry the whole topology). Each is also
# printed as NAME=VALUE (the attempt's topology file).
# shellcheck disable=SC2034
js_contract_inputs() {
	JS_NROLES=$_jsh_nroles
	printf 'JS_NROLES=%s\n' "$JS_NROLES"
	_ci_off=0
	_ci_r=0
	while [ "$_ci_r" -lt "$_jsh_nroles" ]; do
		eval "_ci_n=\$_jsh_n_$_ci_r _ci_w=\$_jsh_np_$_ci_r _ci_specs=\$_jsh_ports_$_ci_r"
		eval "JS_R${_ci_r}_N=\$_ci_n"
		printf 'JS_R%s_N=%s\n' "$_ci_r" "$_ci_n"
		_ci=0
		while [ "$_ci" -lt "$_ci_n" ]; do
			eval "_ci_a=\$_jsh_addr_${_ci_r}_$_ci"
			eval "JS_R${_ci_r}_ADDR_$_ci=\$_ci_a"
			printf 'JS_R%s_ADDR_%s=%s\n' "$_ci_r" "$_ci" "$_ci_a"
			if [ "${_jsh_nodein:-0}" = 1 ]; then
				# the task's node and its address (the task's own: a task
				# has its node's network on Slurm)
				eval "_ci_node=\$_jsh_node_${_ci_r}_$_ci"
				eval "JS_R${_ci_r}_NODE_$_ci=\$_ci_node JS_R${_ci_r}_HOSTIP_$_ci=\$_ci_a"
				printf 'JS_R%s_NODE_%s=%s\nJS_R%s_HOSTIP_%s=%s\n' "$_ci_r" "$_ci" "$_ci_node" "$_ci_r" "$_ci" "$_ci_a"
			fi
			_cp=$((_jsh_port0 + _ci_off + _ci * _ci_w))
			_ci_l=0
			for _ci_s in $_ci_specs; do
				_ci_t=${_ci_s%%:*}
				_ci_rest=${_ci_s#*:}
				_ci_b=${_ci_rest%%:*}
				_ci_c=${_ci_rest#*:}
				[ "$_ci_t" = w ] && _ci_b=$((_cp + _ci_b))
				_ci_v=
				_ci_x=0
				while [ "$_ci_x" -lt "$_ci_c" ]; do
					_ci_v=${_ci_v:+$_ci_v,}$((_ci_b + _ci_x))
					_ci_x=$((_ci_x + 1))
				done
				eval "JS_R${_ci_r}_PORT_${_ci_l}_$_ci=\$_ci_v"
				printf 'JS_R%s_PORT_%s_%s=%s\n' "$_ci_r" "$_ci_l" "$_ci" "$_ci_v"
				_ci_l=$((_ci_l + 1))
			done
			_ci=$((_ci + 1))
		done
		_ci_off=$((_ci_off + _ci_n * _ci_w))
		_ci_r=$((_ci_r + 1))
	done
}

js_log() {
	printf 'jobshift: %s\n' "$*"
}

# js_check_hosts: a job whose tasks give their peers a port of their own
# (_jsh_hostpertask: a Volcano Job building addresses from
# /etc/volcano/*.host with a fixed port) needs an address per task, as
# each pod had its own network. Nodes that share one (several slurmd on
# one machine) share its ports: when every task is at that one address,
# each task gets a network of its own there (JS_NETNS in the topology:
# run.sh, drivers/taskns netns), which only root can link; tasks on
# several hosts with some sharing one cannot be given both.
js_check_hosts() {
	_h_dup=$(grep '^JS_R[0-9]*_ADDR_' "$_jsh_adir/topology" | cut -d= -f2 | sort | uniq -d | head -n 1)
	[ -n "$_h_dup" ] || return 0
	_h_n=$(grep '^JS_R[0-9]*_ADDR_' "$_jsh_adir/topology" | cut -d= -f2 | sort -u | wc -l)
	[ "$_h_n" = 1 ] || js_die 97 "several tasks are at address $_h_dup (their nodes share one host) and others elsewhere, but the job's tasks give their peers a port of their own built from /etc/volcano/*.host, as on Kubernetes where every pod had its own network: tasks sharing a host would share that port, and a task in a network of its own there would reach no peer elsewhere; run the job on nodes that are separate hosts (one task per host), or all on one host"
	[ "$(id -u)" = 0 ] || js_die 97 "every task is at address $_h_dup (the job's nodes share one host), and the job's tasks give their peers a port of their own built from /etc/volcano/*.host, as on Kubernetes where every pod had its own network: each task needs a network of its own on that host, which only root can give (a link between the tasks' network namespaces needs root on the host: an unprivileged user namespace owns its network alone), and the job does not run as root; run it as root, or on a cluster whose nodes are separate hosts, one task per host"
	printf 'JS_NETNS=%s\n' "$_jsh_netrange" >>"$_jsh_adir/topology"
	js_log "every task is at address $_h_dup: each gets a network of its own there (addresses of $_jsh_netrange), as each pod had"
}

js_die() {
	js_log "error: $2"
	# the batch script's end: no secret stays behind
	[ -n "${_jsh_adir:-}" ] && js_drop_secrets
	exit "$1"
}

# js_slots NODELIST TPN: one node name per task slot, block order, into
# _s_slots (one per line). Builtins only, whatever the number of nodes and
# tasks: no process at all, before the steps start.
js_slots() {
	js_hostlist_v "$1" || return 1
	js_tpn_v "$2" || return 1
	_s_slots=
	set -f
	# node names hold no blanks: one word each
	# shellcheck disable=SC2086
	set -- $_hl_items
	set +f
	for _s_c in $_tp_out; do
		[ "$#" -gt 0 ] || return 1
		while [ "$_s_c" -gt 0 ]; do
			_s_slots="$_s_slots$1
"
			_s_c=$((_s_c - 1))
		done
		shift
	done
}

# js_assign R FIRST SLOTS: tasks of role R take slots FIRST.. of SLOTS (one
# node per line): _jsh_node_R_I, the file hosts.R (SLURM_HOSTFILE of the
# role's step), and function _jsh_want_R in the file nodes.sh, which gives
# a task the node it must run on (js_enter checks it) and nothing to an
# index beyond the role. Every task sources nodes.sh, so it holds a test
# per run of consecutive tasks on one node (a packed role: one per node),
# not a case arm per task: at 1,000 tasks that was ~20 KB for each task's
# shell to read.
js_assign() {
	eval "_a_n=\$_jsh_n_$1"
	_a_r=$1
	_a_skip=$2
	set -f
	# shellcheck disable=SC2086
	set -- $3
	set +f
	[ "$#" -ge $((_a_skip + _a_n)) ] || return 1
	[ "$_a_skip" -gt 0 ] && shift "$_a_skip"
	_a_i=0
	_a_hosts=
	_a_runs=
	_a_prev=
	_a_kw=if
	while [ "$_a_i" -lt "$_a_n" ]; do
		eval "_jsh_node_${_a_r}_$_a_i=\$1"
		_a_hosts="$_a_hosts$1
"
		if [ "$_a_i" -gt 0 ] && [ "$1" != "$_a_prev" ]; then
			js_assign_run "$_a_i"
		fi
		_a_prev=$1
		shift
		_a_i=$((_a_i + 1))
	done
	[ "$_a_n" -gt 0 ] && js_assign_run "$_a_n"
	printf '%s' "$_a_hosts" >"$_jsh_adir/hosts.$_a_r"
	[ -n "$_a_runs" ] && _a_runs="${_a_runs}fi
"
	printf '_jsh_want_%s() {\n:\n%s}\n' "$_a_r" "$_a_runs" >>"$_jsh_adir/nodes.sh"
}

# js_assign_run END: js_assign's test for the run of tasks on node
# _a_prev that ends before task END.
js_assign_run() {
	# the $1 is the function's, written as it is
	# shellcheck disable=SC2016
	_a_runs="$_a_runs$_a_kw [ \"\$1\" -lt $1 ]; then _k_want='$_a_prev'
"
	_a_kw=elif
}

# js_topology: _jsh_node_R_I for every task, from the allocation (block
# order, our own hostlist expansion: zero padding kept, never sorted).
js_topology() {
	_t_r=0
	_t_first=0
	: >"$_jsh_adir/nodes.sh"
	if [ "$_jsh_layout" != het ]; then
		js_slots "$SLURM_JOB_NODELIST" "$SLURM_TASKS_PER_NODE" ||
			js_die 97 "cannot read the allocation: SLURM_JOB_NODELIST=$SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE=$SLURM_TASKS_PER_NODE"
		_t_slots=$_s_slots
		printf '%s' "$_t_slots" >"$_jsh_adir/slots"
	fi
	while [ "$_t_r" -lt "$_jsh_nroles" ]; do
		if [ "$_jsh_layout" = het ]; then
			eval "_t_nl=\${SLURM_JOB_NODELIST_HET_GROUP_$_t_r:-} _t_tpn=\${SLURM_TASKS_PER_NODE_HET_GROUP_$_t_r:-}"
			js_slots "$_t_nl" "$_t_tpn" ||
				js_die 97 "cannot read het component $_t_r: nodelist '$_t_nl' tasks per node '$_t_tpn'"
			printf '%s' "$_s_slots" >"$_jsh_adir/slots.$_t_r"
			js_assign "$_t_r" 0 "$_s_slots" || js_die 97 "het component $_t_r has fewer slots than tasks"
		else
			js_assign "$_t_r" "$_t_first" "$_t_slots" || js_die 97 "the allocation has fewer slots than tasks"
			eval "_t_first=\$((_t_first + _jsh_n_$_t_r))"
		fi
		_t_r=$((_t_r + 1))
	done
	[ "$_jsh_one_per_node" = 1 ] && js_one_per_node
	return 0
}

# js_one_per_node: LeinaoPAI tasks all bind 10001-10003 in the host's
# network: refuse an allocation that put two of them on one node rather
# than let them collide.
js_one_per_node() {
	_o_dup=$(cat "$_jsh_adir"/hosts.* | sort | uniq -d | head -n 1)
	[ -z "$_o_dup" ] || js_die 97 "node $_o_dup holds two tasks, but every task of this LeinaoPAI job binds ports 10001-10003 and needs a node of its own"
}

# js_nodes_ask starts the one `scontrol show node` call js_addresses reads,
# in the background, for every node of the allocation (het: of every
# component): its round trip to slurmctld (5-10 ms here) overlaps the rest
# of the prologue instead of delaying every task's start.
js_nodes_ask() {
	_n_list=${SLURM_JOB_NODELIST:-}
	if [ "$_jsh_layout" = het ]; then
		_n_list=
		_n_r=0
		while [ "$_n_r" -lt "$_jsh_nroles" ]; do
			eval "_n_list=\$_n_list,\${SLURM_JOB_NODELIST_HET_GROUP_$_n_r:-}"
			_n_r=$((_n_r + 1))
		done
		_n_list=${_n_list#,}
	fi
	scontrol show node -o "$_n_list" >"$_jsh_adir/nodes" 2>"$_jsh_adir/nodes.err" &
	_jsh_nodes_pid=$!
}

# js_addresses: _jsh_addr_R_I from NodeAddr (or NodeHostName) of the
# `scontrol show node` call js_nodes_ask started; the node name when
# scontrol cannot answer. O(1) forks: each task's node is looked up in the
# map by parameter expansion.
js_addresses() {
	_d_field=NodeAddr
	[ "$_jsh_address" = hostname ] && _d_field=NodeHostName
	if ! wait "$_jsh_nodes_pid"; then
		js_log "warning: scontrol show node failed ($(cat "$_jsh_adir/nodes.err")); using node names as addresses"
		: >"$_jsh_adir/nodes"
	fi
	_d_map='
'
	while IFS= read -r _d_line; do
		_d_name=${_d_line#NodeName=}
		_d_name=${_d_name%% *}
		case $_d_line in *" $_d_field="*) ;; *) continue ;; esac
		_d_addr=${_d_line#* "$_d_field"=}
		_d_addr=${_d_addr%% *}
		_d_map="$_d_map$_d_name $_d_addr
"
	done <"$_jsh_adir/nodes"
	_d_r=0
	while [ "$_d_r" -lt "$_jsh_nroles" ]; do
		eval "_d_n=\$_jsh_n_$_d_r"
		_d_i=0
		while [ "$_d_i" -lt "$_d_n" ]; do
			eval "_d_node=\$_jsh_node_${_d_r}_$_d_i"
			# the node's line of the map, without a fork per task
			case $_d_map in
			*"
$_d_node "*)
				_d_addr=${_d_map#*"
$_d_node "}
				_d_addr=${_d_addr%%"
"*}
				;;
			*) _d_addr= ;;
			esac
			eval "_jsh_addr_${_d_r}_$_d_i=\${_d_addr:-\$_d_node}"
			_d_i=$((_d_i + 1))
		done
		_d_r=$((_d_r + 1))
	done
}

# js_ports: the job's port window. BASE = base + (job id mod slots) * span,
# and a task's ports follow from BASE + its global port ordinal, so they are
# unique within the job even when several nodes share one address.
js_ports() {
	_jsh_port0=$((_jsh_pbase + (SLURM_JOB_ID % _jsh_pslots) * _jsh_pspan))
}

# js_launch_all starts the step of every role that has tasks, except the
# roles that wait for others to complete (js_launch_after starts them).
js_launch_all() {
	_m_r=0
	while [ "$_m_r" -lt "$_jsh_nroles" ]; do
		eval "_m_n=\$_jsh_n_$_m_r _m_after=\${_jsh_after_$_m_r:-}"
		[ "$_m_n" -gt 0 ] && [ -z "$_m_after" ] && js_launch "$_m_r"
		_m_r=$((_m_r + 1))
	done
}

# js_launch_after: the step order (jobs.Role.DependsOn, Complete; the rule
# is translate/completion MayStart and Blocked). Role R's step starts once
# every role in _jsh_after_R has all its tasks succeeded (decide.sh's
# counts); a failed task of one of them means R can never start, which
# fails the attempt. _jsh_up_R records a started step.
js_launch_after() {
	_o_r=0
	while [ "$_o_r" -lt "$_jsh_nroles" ]; do
		eval "_o_deps=\${_jsh_after_$_o_r:-} _o_n=\$_jsh_n_$_o_r _o_up=\${_jsh_up_$_o_r:-0}"
		if [ -n "$_o_deps" ] && [ "$_o_n" -gt 0 ] && [ "$_o_up" = 0 ]; then
			_o_ok=1
			for _o_d in $_o_deps; do
				eval "_o_dn=\$_jsh_n_$_o_d _o_ds=\$_jsh_ns_$_o_d _o_df=\$_jsh_nf_$_o_d _o_rn=\$_jsh_fname_$_o_r _o_dname=\$_jsh_fname_$_o_d"
				if [ "$_o_df" -gt 0 ]; then
					js_verdict failed 1 "" "" "role $_o_rn can never start: it waits for role $_o_dname to complete and $_o_df of its tasks failed"
					return 0
				fi
				[ "$_o_ds" -eq "$_o_dn" ] || _o_ok=0
			done
			if [ "$_o_ok" = 1 ]; then
				eval "_jsh_up_$_o_r=1"
				js_log "role $_o_rn: the roles it waits for completed; starting its step"
				js_launch "$_o_r"
			fi
		fi
		_o_r=$((_o_r + 1))
	done
}

# js_in_shell R: whether role R's tasks run in the user's bash itself
# (js_launch_insh): a role without a supervisor (_jsh_insh_R, render.go
# inShell), unless the batch script's environment would change how bash
# starts: a BASH_ENV of the user's own, or POSIX mode (POSIXLY_CORRECT,
# SHELLOPTS), where bash reads no BASH_ENV.
js_in_shell() {
	eval "_i_insh=\$_jsh_insh_$1"
	[ "$_i_insh" = 1 ] && [ -z "${BASH_ENV+x}${POSIXLY_CORRECT+x}${SHELLOPTS+x}" ]
}

# js_launch R: start role R's step in the background. A subshell waits for
# srun and records its exit status; srun's pid is kept to stop the step.
js_launch() {
	(
		# shellcheck disable=SC2030
		if [ "$_jsh_layout" = packed ]; then
			SLURM_HOSTFILE=$_jsh_adir/hosts.$1
			export SLURM_HOSTFILE
		fi
		if js_in_shell "$1"; then
			js_launch_insh "$1"
		else
			# the task's shell expands $_jsh_adir (exported) itself
			# shellcheck disable=SC2016
			js_srun "$1" /bin/sh -c '. "$_jsh_adir/task.sh"' jobshift-task "$1" </dev/null &
			echo "$!" >"$_jsh_adir/srun.$1"
			wait "$!" 2>/dev/null # no "Terminated" line when a stopped step ends
			echo "$?" >"$_jsh_adir/step.$1.tmp"
		fi
		mv "$_jsh_adir/step.$1.tmp" "$_jsh_adir/step.$1"
		js_event s
	) &
}

# js_event E: tell the main loop something happened (js_evented), one line
# on the events FIFO, which every child of the batch shell holds open on fd
# 4; nothing when the main loop polls.
js_event() {
	[ "$_jsh_evented" = 1 ] || return 0
	echo "$1" >&4
}

# js_events_open opens fd 4, which every child of the batch shell inherits:
# the events FIFO, read and write (so neither the main loop's read nor a
# writer's open ever waits for the other end), when js_evented; /dev/null
# otherwise, so js_ends' output has somewhere to go. Opened before the steps
# start, one mkfifo process then.
js_events_open() {
	_jsh_evented=0
	_jsh_timer=
	if js_evented && mkfifo -m 600 "$_jsh_adir/events"; then
		exec 4<>"$_jsh_adir/events"
		_jsh_evented=1
	else
		exec 4>/dev/null
	fi
}

# js_timer: a job with a deadline that blocks on events gets one when it
# runs out (the main loop then reads the clock). The subshell stops its
# sleep when stopped itself, so no process outlives the loop.
js_timer() {
	[ "$_jsh_evented" = 1 ] || return 0
	(
		trap 'kill "$_t_s" 2>/dev/null; exit 0' TERM
		sleep "$_jsh_deadline" &
		_t_s=$!
		wait "$_t_s"
		echo d >&4
	) &
	_jsh_timer=$!
}

# js_held_timers: the Volcano actions held since the last call (decide.sh
# _jsh_vh: "letter R I code secs;" in end order) get their due time, now +
# secs, in _jsh_vdue, and, when the loop blocks on events, a timer that
# wakes it then (stopped with the loop, as js_timer's).
js_held_timers() {
	_h_n=0
	_h_rest=$_jsh_vh
	while [ -n "$_h_rest" ]; do
		_h_e=${_h_rest%%;*}
		_h_rest=${_h_rest#*;}
		_h_n=$((_h_n + 1))
		[ "$_h_n" -gt "$_jsh_vtimed" ] || continue
		_h_secs=${_h_e##* }
		_jsh_vdue="$_jsh_vdue$(($(date +%s) + _h_secs));"
		_jsh_vtimed=$_h_n
		[ "$_jsh_evented" = 1 ] || continue
		(
			trap 'kill "$_h_s" 2>/dev/null; exit 0' TERM
			sleep "$_h_secs" &
			_h_s=$!
			wait "$_h_s"
			echo h >&4
		) &
		_jsh_vtimers="$_jsh_vtimers $!"
	done
}

# js_fire_due: the held Volcano action due first, once its timeout ran
# out, executes (translate/completion delayed.go: AddDelayActionForJob's
# timer, job_controller.go @v1.16.0-alpha.1).
js_fire_due() {
	[ -n "$_jsh_vdue" ] || return 0
	_f_now=$(date +%s)
	_f_best=''
	_f_e=''
	_f_rest=$_jsh_vh _f_dues=$_jsh_vdue
	while [ -n "$_f_dues" ]; do
		_f_d=${_f_dues%%;*} _f_x=${_f_rest%%;*}
		_f_dues=${_f_dues#*;} _f_rest=${_f_rest#*;}
		if [ "$_f_d" -le "$_f_now" ] && { [ -z "$_f_best" ] || [ "$_f_d" -lt "$_f_best" ]; }; then
			_f_best=$_f_d _f_e=$_f_x
		fi
	done
	[ -n "$_f_e" ] || return 0
	# shellcheck disable=SC2086 # "letter R I code secs", split on purpose
	set -- $_f_e
	js_log "the timeout of the policy held by task $2.$3 ran out"
	js_act_volcano "$(printf '%s' "$1" | tr catrp CATRP)" "$2" "$3" "$4"
}

# js_evented: whether every task's end reaches the batch shell as an event,
# so that its main loop can block on the events FIFO instead of polling: so
# when every role that has tasks runs in-shell (js_in_shell), its task ends
# reported by srun -v through js_ends, its step's end by js_launch. A
# supervised task records its own end in the shared state directory, from
# its node: those are polled for, every _jsh_poll seconds (a sleep process
# each, for the job's life).
js_evented() {
	_e_r=0
	while [ "$_e_r" -lt "$_jsh_nroles" ]; do
		eval "_e_n=\$_jsh_n_$_e_r"
		[ "$_e_n" = 0 ] || js_in_shell "$_e_r" || return 1
		_e_r=$((_e_r + 1))
	done
}

# js_write_insh writes insh.R.sh, the in-shell program of every role R
# that has one (_jsh_insh_prog_R).
js_write_insh() {
	_w_r=0
	while [ "$_w_r" -lt "$_jsh_nroles" ]; do
		eval "_w_p=\${_jsh_insh_prog_$_w_r-}"
		if [ -n "$_w_p" ]; then
			printf '%s' "$_w_p" >"$_jsh_adir/insh.$_w_r.sh" || return 1
		fi
		_w_r=$((_w_r + 1))
	done
}

# js_launch_insh R: role R's step running the user's bash directly, its
# in-shell program in BASH_ENV (insh.R.sh, sh/insh.sh.tmpl). BASH_ENV names
# the variable, not the path: bash expands the value, and a path is never
# code that way.
# srun -v reports every task's end with its wait status (a task ending 0
# only at -v), which js_ends turns into the rc files the supervisor would
# have written; the step's code is recorded once js_ends has read all.
js_launch_insh() {
	# shellcheck disable=SC2016
	BASH_ENV='$_jsh_adir/insh.$_jsh_ir.sh'
	_jsh_ir=$1
	export BASH_ENV _jsh_ir
	# it would leave out repeated exit codes, and with them their tasks
	unset SLURM_SRUN_REDUCE_TASK_EXIT_MSG
	_l_r=$1
	eval "_l_argv=\$_jsh_argv_$1"
	eval "set -- $_l_argv"
	{
		js_srun "$_l_r" -v "$@" 2>&1 >&3 </dev/null &
		echo "$!" >"$_jsh_adir/srun.$_l_r"
		wait "$!" 2>/dev/null
		echo "$?" >"$_jsh_adir/step.$_l_r.tmp"
	} 3>&1 | js_ends "$_l_r" >&4
}

# js_ends R reads role R's srun -v output: its step's id (stepid.R, for
# js_stop) from "launching StepId=J.S on host H, N tasks: [LIST]" (LIST
# bare for one task: "1 tasks: 0"); once H
# reports "Node H, N tasks started", LIST as one line of started.R (the
# tasks a role without a supervisor has started: one file per role, where
# a file per task was a create per task in the shared state directory, in
# the middle of every task's start); after each "task exit
# notification ... (status=0xSSSS)." line, the next line that names the
# tasks ("HOST: task 3: ..." or "HOSTS: tasks 0-2,5: ...") gives the
# tasks it ended, and the wait status their code (exit status, or 128 +
# the signal, as a shell reports it), written to rc.R.I in place. Every
# other line goes on to the job's log, but the lines -v adds: the options,
# the plugin notes, and "Completed".
js_ends() {
	awk -v dir="$_jsh_adir" -v r="$1" -v ev="$_jsh_evented" '
	function hex(s, i, v) {
		v = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function code(st) { return st % 128 == 0 ? int(st / 256) % 256 : 128 + st % 128 }
	function record(list, rc, n, p, j, a, b, t, f) {
		n = split(list, p, ",")
		for (j = 1; j <= n; j++) {
			a = p[j]
			b = a
			if (index(a, "-")) {
				b = substr(a, index(a, "-") + 1)
				a = substr(a, 1, index(a, "-") - 1)
			}
			for (t = a + 0; t <= b + 0; t++) {
				f = dir "/rc." r "." t
				printf "%d\n", rc >f
				close(f)
			}
		}
	}
	/task exit notification for .*\(status=0x[0-9A-Fa-f]+\)/ {
		s = $0
		sub(/.*\(status=0x/, "", s)
		sub(/\).*/, "", s)
		rc = code(hex(s))
		want = 1
		next
	}
	want && match($0, /: tasks? [0-9][0-9,-]*: /) {
		l = substr($0, RSTART, RLENGTH)
		sub(/^: tasks? /, "", l)
		sub(/: $/, "", l)
		record(l, rc)
		# the rc files are whole: the main loop may read them (js_event)
		if (ev == 1) {
			print "e"
			fflush()
		}
		want = 0
		if ($0 ~ /: Completed$/) next
	}
	# read by what the message says, not where it sits in the line: a
	# Slurm that logs the function before it (as _task_start below) still
	# reads the same
	/^srun: (.*: )?launching StepId=/ {
		if (sid == "") {
			sid = $0
			sub(/.*launching StepId=/, "", sid)
			sub(/ .*/, "", sid)
			f = dir "/stepid." r
			print sid >f
			close(f)
		}
		h = $0
		sub(/.* on host /, "", h)
		sub(/,.*/, "", h)
		# the list after the last ": ", bracketed but for one task ("1
		# tasks: 0")
		l = $0
		sub(/.*: /, "", l)
		gsub(/[][]/, "", l)
		onhost[h] = l
		next
	}
	/^srun: (.*: )?Node [^ ]+, [0-9]+ tasks? started/ {
		h = $0
		sub(/.*Node /, "", h)
		sub(/,.*/, "", h)
		if (h in onhost) {
			f = dir "/started." r
			print onhost[h] >>f
			close(f)
		}
		next
	}
	/^srun: defined options/ { opts = 1 }
	opts { if ($0 ~ /^srun: end of defined options/) opts = 0; next }
	/^srun: (launch\/|route\/|jobid [0-9]+: nodes|launching StepId|Node .* tasks started)/ { next }
	{
		print >"/dev/stderr"
		fflush("/dev/stderr")
	}
	'
}

# js_stop R: SIGTERM role R's srun; srun forwards it to the tasks and the
# step ends CANCELLED. Never scancel the job: it would end CANCELLED. A
# role without a supervisor (js_launch_insh) gets SIGTERM on every process
# of its step instead (scancel --signal of the step, its id from js_ends):
# the program finishes its checkpoint while the user's bash waits for it
# (stage.sh); a signal through srun reached only the bash here, which then
# waited for a program that never heard of the stop. srun's way is kept
# for a step whose id is not known yet.
js_stop() {
	[ -f "$_jsh_adir/step.$1" ] && return 0
	_p_pid=
	_p_k=0
	while [ -z "$_p_pid" ] && [ "$_p_k" -lt 50 ]; do
		_p_pid=$(cat "$_jsh_adir/srun.$1" 2>/dev/null)
		[ -n "$_p_pid" ] || sleep 0.1
		_p_k=$((_p_k + 1))
	done
	# the marker comes first: a task whose command dies of this SIGTERM
	# before its own trap has run still knows it was stopped (task.sh)
	echo stopped >"$_jsh_adir/stopped.$1"
	_p_sid=
	[ -f "$_jsh_adir/stepid.$1" ] && read -r _p_sid <"$_jsh_adir/stepid.$1"
	if [ -n "$_p_sid" ] && scancel --signal=TERM "$_p_sid" 2>/dev/null; then
		return 0
	fi
	[ -n "$_p_pid" ] && kill -TERM "$_p_pid" 2>/dev/null
	return 0
}

# js_all_recorded R: every task of role R recorded its exit code (its step
# is only winding down; stopping it would report a finished role CANCELLED).
js_all_recorded() {
	eval "_w_n=\$_jsh_n_$1"
	_w_i=0
	while [ "$_w_i" -lt "$_w_n" ]; do
		[ -f "$_jsh_adir/rc.$1.$_w_i" ] || return 1
		_w_i=$((_w_i + 1))
	done
}

# js_collect: replay task ends not seen yet, role order then index within
# one poll (the engine's tie-break). A task whose step ended without its own
# exit code file failed with the step's code.
js_collect() {
	_c_r=0
	while [ "$_c_r" -lt "$_jsh_nroles" ]; do
		eval "_c_n=\$_jsh_n_$_c_r"
		# read, a builtin, not $(cat): no process per task end while the
		# job's tasks start
		_c_step=
		[ -f "$_jsh_adir/step.$_c_r" ] && read -r _c_step <"$_jsh_adir/step.$_c_r"
		_c_i=0
		while [ "$_c_i" -lt "$_c_n" ]; do
			eval "_c_st=\$_jsh_st_${_c_r}_$_c_i"
			if [ "$_c_st" = p ]; then
				# an empty rc file is being written by its task (task.sh
				# writes it in place); once the step has ended it is whole
				_c_rc=
				[ -f "$_jsh_adir/rc.$_c_r.$_c_i" ] && read -r _c_rc <"$_jsh_adir/rc.$_c_r.$_c_i"
				if [ -z "$_c_rc" ] && [ -n "$_c_step" ]; then
					_c_rc=$_c_step
					[ "$_c_rc" = 0 ] && _c_rc=1
					echo "$_c_rc" >"$_jsh_adir/rc.$_c_r.$_c_i"
					js_log "task $_c_r.$_c_i ended without recording an exit code; its step exited $_c_step"
				fi
				if [ -n "$_c_rc" ]; then
					_c_s=f
					[ "$_c_rc" = 0 ] && _c_s=s
					echo "$_c_r $_c_i $_c_s $_c_rc" >>"$_jsh_adir/ends"
					js_end "$_c_r" "$_c_i" "$_c_s" "$_c_rc"
					[ "$_jsh_phase" = running ] || return 0
				fi
			fi
			_c_i=$((_c_i + 1))
		done
		_c_r=$((_c_r + 1))
	done
}

# js_retry CODE: whether to requeue after a failure with raw exit code CODE
# (translate/completion.JobRetry for PAI and Volcano's RestartJob; Kubeflow
# jobs are never retried as a whole). Sets _jsh_counted when the retry counts against the limit.
js_retry() {
	_jsh_counted=0
	case $_jsh_retry_kind in
	always) _jsh_counted=1; return 0 ;;
	pai) ;;
	volcano)
		# completion.volcanoRetry: a RestartJob verdict, while the
		# job's RetryCount (js_volcano_fold) + 1 stays below maxRetry
		[ "${_jsh_vaction:-}" = R ] || return 1
		_r_so_far=$(cat "$_jsh_dir/retries" 2>/dev/null || echo 0)
		[ $((_r_so_far + 1)) -lt "$_jsh_retry_max" ] || return 1
		_jsh_counted=1
		return 0
		;;
	*) return 1 ;;
	esac
	[ "$_jsh_phase" = failed ] || return 1
	# the class of the code OpenPAI would have reported, one letter per
	# raw code 0..255 (t transient, p permanent, u unknown)
	_r_code=$1
	_r_class=u
	if [ "$_r_code" -ge 0 ] && [ "$_r_code" -le 255 ]; then
		_r_class=$(printf '%s' "$_jsh_retry_classes" | cut -c"$((_r_code + 1))")
	fi
	case $_r_class in
	t) return 0 ;;
	p) return 1 ;;
	esac
	_r_so_far=$(cat "$_jsh_dir/retries" 2>/dev/null || echo 0)
	if [ "$_jsh_retry_max" = -1 ] || [ "$_r_so_far" -lt "$_jsh_retry_max" ]; then
		_jsh_counted=1
		return 0
	fi
	return 1
}

# Volcano's one status.retryCount counts RestartPod, RestartTask and
# RestartJob alike, across restarts of the job (state/running.go,
# restarting.go @v1.16.0-alpha.1; completion.VolcanoRetryCount). The job's
# count lives in $_jsh_dir/retries; the tasks' policy restarts (js_restart,
# restart.sh) count in the attempt's restarts.job, which only the attempt
# directory holds (a container step mounts no more). js_volcano_seed
# starts it at the job's count before the steps start (builtins: no fork
# there), js_volcano_fold takes it back once they are over, before
# js_retry counts a RestartJob on top.
js_volcano_seed() {
	_v_rc=0
	[ -f "$_jsh_dir/retries" ] && read -r _v_rc <"$_jsh_dir/retries"
	echo "$_v_rc" >"$_jsh_adir/restarts.job"
}

js_volcano_fold() {
	_v_rc=0
	[ -f "$_jsh_adir/restarts.job" ] && read -r _v_rc <"$_jsh_adir/restarts.job"
	echo "$_v_rc" >"$_jsh_dir/retries"
}

# js_prepare is the per-job preparation, from the job data: the ssh
# emulation's wrapper and a fresh job key (_jsh_ssh = 1); the attempt's MPI
# directory, 0700, named in JS_MPI_DIR for the contract (_jsh_mpidir = 1;
# _jsh_mpi_noblank = 1: OpenMPI's rsh agent setting cannot carry a blank in
# it, so refuse such a state directory, see render.go mpiDirData); the secrets file,
# copied 0600 from beside the script into the shared state directory, so
# the values stay out of the script (_jsh_secrets_name, "" = none); each
# Apptainer image pulled once into a SIF (_jsh_npull, _jsh_pull_sif_P,
# _jsh_pull_img_P): concurrent pulls by every task race and corrupt the
# cache (spec/slurm.md §8.7).
js_prepare() {
	printf '%s' "$_jsh_taskns" >"$_jsh_adir/taskns.sh" || js_die 97 'cannot write the task namespace wrapper'
	if [ "$_jsh_ssh" = 1 ]; then
		printf '%s' "$_jsh_sshemu" >"$_jsh_adir/sshemu.sh" || js_die 97 'cannot write the ssh emulation'
		rm -f "$_jsh_adir/ssh-key" "$_jsh_adir/ssh-key.pub"
		(umask 077 && ssh-keygen -q -t ed25519 -N '' -C jobshift -f "$_jsh_adir/ssh-key") ||
			js_die 97 'cannot make the job ssh key (ssh-keygen from openssh-client is needed on the nodes)'
	fi
	if [ "$_jsh_mpidir" = 1 ]; then
		# an input of the contract's shared stage only: not exported
		JS_MPI_DIR=$_jsh_adir/mpi
		if [ "$_jsh_mpi_noblank" = 1 ]; then
			case $JS_MPI_DIR in *[[:space:]]*) js_die 97 "the state directory $_jsh_adir has a blank, which OpenMPI's rsh agent setting cannot carry; set JOBSHIFT_STATE_DIR to a path without one" ;; esac
		fi
		(umask 077 && mkdir "$JS_MPI_DIR") || js_die 97 "cannot make the MPI directory $JS_MPI_DIR"
	fi
	[ "${_jsh_pmix:-0}" = 1 ] && js_pmix
	if [ -n "$_jsh_secrets_name" ]; then
		_ps=${JOBSHIFT_SECRETS:-${SLURM_SUBMIT_DIR:-.}/$_jsh_secrets_name}
		(umask 077 && cp "$_ps" "$_jsh_dir/secrets") || js_die 97 "cannot read the secrets file $_ps (set JOBSHIFT_SECRETS to its path)"
	fi
	_p=0
	while [ "$_p" -lt "$_jsh_npull" ]; do
		eval "_p_sif=\$_jsh_pull_sif_$_p _p_img=\$_jsh_pull_img_$_p"
		if [ ! -s "$_jsh_dir/$_p_sif" ]; then
			js_log "pulling $_p_img"
			apptainer pull --force "$_jsh_dir/$_p_sif" "docker://$_p_img" || js_die 97 'apptainer pull failed'
		fi
		_p=$((_p + 1))
	done
}

# js_drop_secrets: the ssh emulation's job key is a secret: it lives as
# long as the attempt; so does an MPIJob's directory (ssh.go, mpiDirData).
# The secrets copy and the command files the tasks filled in with secret
# values (run.sh js_run_file) go too: the state directory is on a shared
# file system and outlives the job.
js_drop_secrets() {
	rm -f "$_jsh_adir/ssh-key"
	rm -rf "$_jsh_adir/mpi"
	# the platform files the tasks wrote (run.sh js_files): some are Secrets
	rm -rf "$_jsh_adir"/ns-*/files
	# the ssh plugin's files the emulation wrote (a copy of the job key)
	rm -rf "$_jsh_adir"/ns-*/sshfiles
	if [ -n "${_jsh_secrets_name:-}" ]; then
		rm -f "$_jsh_dir/secrets" "$_jsh_adir"/user-*.sh
	fi
}

# js_pmix (slurm { mpi = "pmix" }, pmix.go): the mpirun that srun's the
# ranks (sh/mpirun.sh, put on the ssh tasks' PATH by the emulation) and
# the node of every ssh task's aliases, "node alias..." per line, from
# _jsh_pmix_tasks ("role index alias..." per line) and js_topology.
js_pmix() {
	printf '%s' "$_jsh_mpirun" >"$_jsh_adir/mpirun.sh" || js_die 97 'cannot write the pmix mpirun'
	printf '%s\n' "$_jsh_pmix_tasks" | while read -r _x_r _x_i _x_names; do
		[ -n "$_x_r" ] || continue
		eval "printf '%s %s\n' \"\$_jsh_node_${_x_r}_$_x_i\" \"\$_x_names\""
	done >"$_jsh_adir/pmix-nodes" || js_die 97 'cannot write the pmix node table'
	JOBSHIFT_MPIRUN=$_jsh_adir/mpirun.sh JOBSHIFT_PMIX_NODES=$_jsh_adir/pmix-nodes
	export JOBSHIFT_MPIRUN JOBSHIFT_PMIX_NODES
}

# js_own_dir DIR: DIR must be a real directory of this user's that no
# other user can write; it is made private (0700). On a shared file system
# another user may have made it first, and could then swap the files the
# tasks run (task.sh, sshemu.sh) or forge their exit codes.
js_own_dir() {
	{ [ ! -L "$1" ] && [ -d "$1" ]; } || js_die 97 "the state directory $1 is not a directory (a link or a file is in the way)"
	[ -O "$1" ] || js_die 97 "the state directory $1 belongs to another user: set slurm { state_dir } or JOBSHIFT_STATE_DIR to a directory of yours"
	case $(ls -ld "$1") in
	?????w* | ????????w*) js_die 97 "the state directory $1 is writable by other users: chmod go-w it, or use another" ;;
	esac
	chmod 700 "$1" || js_die 97 "cannot protect the state directory $1"
}

# js_job_dir: the job's state directory, _jsh_dir, keyed by cluster and job
# ID (job IDs restart at 1 on a new cluster, and one home directory may
# submit to several clusters). The first attempt makes it fresh: a
# directory of that name is an earlier job's and is moved aside, never
# read as this job's; it holds the submission's token (JOBSHIFT_STATE_TOKEN,
# which `jobshift run` passes and its watcher checks: submit.go). A later
# attempt (a requeue) must find this submission's token in it.
# attempts-from says its attempt directories count from 1 (attempt-1 is
# SLURM_RESTART_COUNT 0), as the local driver's do: directories without
# it were written by an older library, counting from 0 (statedir.go). It
# is written before the token, which the watcher waits for.
js_job_dir() {
	_jsh_base=${JOBSHIFT_STATE_DIR:-${_jsh_statedir:-${SLURM_SUBMIT_DIR:-$PWD}/.jobshift}}
	case ${SLURM_CLUSTER_NAME:-} in
	*[!A-Za-z0-9._-]* | .*) js_die 97 "cluster name '$SLURM_CLUSTER_NAME' cannot name a directory" ;;
	esac
	(umask 077 && mkdir -p "$_jsh_base") || js_die 97 "cannot create the state directory $_jsh_base"
	js_own_dir "$_jsh_base"
	_jsh_dir=$_jsh_base/${SLURM_CLUSTER_NAME:+$SLURM_CLUSTER_NAME-}$SLURM_JOB_ID
	if [ "$_jsh_attempt" = 0 ]; then
		if [ -e "$_jsh_dir" ] || [ -L "$_jsh_dir" ]; then
			_d_old=$_jsh_dir.old.$$
			mv "$_jsh_dir" "$_d_old" || js_die 97 "cannot move an earlier job's state directory $_jsh_dir aside"
			js_log "moved an earlier job's state directory aside to $_d_old"
		fi
		(umask 077 && mkdir "$_jsh_dir") || js_die 97 "cannot create the state directory $_jsh_dir"
		echo 1 >"$_jsh_dir/attempts-from"
		printf '%s\n' "${JOBSHIFT_STATE_TOKEN:-}" >"$_jsh_dir/token"
	else
		js_own_dir "$_jsh_dir"
		[ "$(cat "$_jsh_dir/token" 2>/dev/null)" = "${JOBSHIFT_STATE_TOKEN:-}" ] ||
			js_die 97 "the state directory $_jsh_dir is not this submission's (its token differs)"
	fi
}

js_main() {
	set -u
	: "${SLURM_JOB_ID:?jobshift: run this script with sbatch}"
	# Slurm's own count (0 on the first run); users see it plus one
	_jsh_attempt=${SLURM_RESTART_COUNT:-0}
	_jsh_anum=$((_jsh_attempt + 1))
	js_job_dir
	_jsh_adir=$_jsh_dir/attempt-$_jsh_anum
	# a fresh attempt's directory does not exist yet: no rm fork then
	[ ! -e "$_jsh_adir" ] || rm -rf "$_jsh_adir"
	(umask 077 && mkdir "$_jsh_adir") || js_die 97 "cannot create the state directory $_jsh_adir"
	js_nodes_ask
	export _jsh_adir
	# the task program and the contract travel as files in the shared state
	# directory, written by the printf builtin (no exec): as environment
	# variables they failed every command of this script past 128 KiB
	{ printf '%s' "$_jsh_task" >"$_jsh_adir/task.sh" &&
		printf '%s' "$_jsh_contract_shared" >"$_jsh_adir/contract-shared.sh" &&
		printf '%s' "$_jsh_contract_task" >"$_jsh_adir/contract-task.sh" &&
		js_write_insh; } ||
		js_die 97 "cannot write the task program into $_jsh_adir"
	[ "$_jsh_retry_kind" = volcano ] && js_volcano_seed
	# the attempt's start is this file's mtime (a builtin: no date fork
	# before the steps start)
	: >"$_jsh_adir/start"
	# scancel (and a time limit) SIGTERM this shell before its end below:
	# the job key and the MPI directory go with it (KillWait is the time
	# left before SIGKILL)
	trap 'js_drop_secrets; exit 143' TERM INT HUP
	printf '%s' "$_jsh_roles" >"$_jsh_dir/roles"
	js_log "attempt $_jsh_anum of job $SLURM_JOB_ID ($_jsh_layout layout), state in $_jsh_adir"
	js_events_open
	js_topology
	js_decide_init
	# The steps start now, before the nodes' addresses (a round trip to
	# slurmctld) and the shared environment below, which their tasks wait
	# for (js_wait_shared): that work overlaps srun's launch instead of
	# delaying it. Not when srun itself needs what js_prepare makes: a
	# pulled image, or the pmix mpirun's variables.
	_m_early=0
	if [ "$_jsh_npull" = 0 ] && [ "${_jsh_pmix:-0}" != 1 ]; then
		_m_early=1
		js_launch_all
	fi
	js_addresses
	js_ports
	# the topology every task gets, also as a file (for jobshift's checks
	# and for debugging; js_prepare may add JS_MPI_DIR)
	js_contract_inputs >"$_jsh_adir/topology"
	[ "${_jsh_hostpertask:-0}" = 1 ] && js_check_hosts
	js_prepare
	[ -n "${JS_MPI_DIR:-}" ] && printf 'JS_MPI_DIR=%s\n' "$JS_MPI_DIR" >>"$_jsh_adir/topology"
	# the contract's shared stage, once per attempt: the topology checked
	# and every value all tasks share evaluated into env.sh, which each
	# task's stage sources (task.sh)
	(
		set +u
		# shellcheck source=/dev/null
		. "$_jsh_adir/contract-shared.sh"
	) >"$_jsh_adir/env.sh" || js_die 97 "the contract's shared stage failed (above); the topology does not fit the job"
	# env.sh is whole: the tasks may read it (a builtin, where a mv into
	# place would fork)
	: >"$_jsh_adir/env.ok"
	[ "$_m_early" = 1 ] || js_launch_all
	# the clock is read only for a deadline: a date process here ran while
	# the steps' tasks were starting
	_m_t0=0
	[ "$_jsh_deadline" -gt 0 ] && _m_t0=$(date +%s) && js_timer
	_jsh_vdue=''
	_jsh_vtimed=0
	_jsh_vtimers=''
	while [ "$_jsh_phase" = running ]; do
		js_collect
		if [ "$_jsh_phase" = running ]; then
			js_held_timers
			js_fire_due
		fi
		[ "$_jsh_phase" = running ] && js_launch_after
		[ "$_jsh_phase" = running ] || break
		if [ "$_jsh_deadline" -gt 0 ] && [ $(($(date +%s) - _m_t0)) -ge "$_jsh_deadline" ]; then
			js_verdict failed 124 "" "" "DeadlineExceeded: active longer than $_jsh_deadline s"
			break
		fi
		if [ "$_jsh_evented" = 1 ]; then
			read -r _m_ev <&4
		else
			sleep "$_jsh_poll"
		fi
	done
	[ -n "$_jsh_timer" ] && kill "$_jsh_timer" 2>/dev/null
	# shellcheck disable=SC2086 # a list of process ids
	[ -n "$_jsh_vtimers" ] && kill $_jsh_vtimers 2>/dev/null
	# stop every role that still runs (parameter servers never end)
	_m_r=0
	while [ "$_m_r" -lt "$_jsh_nroles" ]; do
		# a UAI node's parameter server outlives its training task: its
		# step runs until stopped here even when every task has recorded
		if [ -f "$_jsh_adir/srun.$_m_r" ] && [ ! -f "$_jsh_adir/step.$_m_r" ] &&
			{ [ "$_jsh_uai_ps" = 1 ] || ! js_all_recorded "$_m_r"; }; then
			js_log "stopping role $_m_r with SIGTERM"
			js_stop "$_m_r"
		fi
		_m_r=$((_m_r + 1))
	done
	# wait for the steps, bounded: whatever still runs when the batch
	# script exits is killed by Slurm with the job
	_m_k=0
	while [ "$_m_k" -lt 600 ]; do
		_m_left=0
		_m_r=0
		while [ "$_m_r" -lt "$_jsh_nroles" ]; do
			[ -f "$_jsh_adir/srun.$_m_r" ] && [ ! -f "$_jsh_adir/step.$_m_r" ] && _m_left=1
			_m_r=$((_m_r + 1))
		done
		[ "$_m_left" = 0 ] && break
		sleep 0.1
		_m_k=$((_m_k + 1))
	done
	js_drop_secrets
	rm -f "$_jsh_adir"/group.* # js_wait_group's (task.sh)
	trap - TERM INT HUP
	printf '%s %s %s\n%s\n' "$_jsh_phase" "$_jsh_vcode" "$_jsh_vtrig" "$_jsh_vwhy" >"$_jsh_adir/verdict"
	js_log "verdict: $_jsh_phase, exit code $_jsh_vcode ($_jsh_vwhy)"
	[ "$_jsh_retry_kind" = volcano ] && js_volcano_fold
	if js_retry "$_jsh_vcode"; then
		if [ "$_jsh_counted" = 1 ]; then
			echo $(($(cat "$_jsh_dir/retries" 2>/dev/null || echo 0) + 1)) >"$_jsh_dir/retries"
		fi
		js_log "requeueing (retry after attempt $_jsh_anum)"
		echo requeued >"$_jsh_adir/requeued"
		if scontrol requeue "$SLURM_JOB_ID"; then
			exit "$_jsh_vcode"
		fi
		js_log "scontrol requeue failed; not retried"
	fi
	# the job is over: the secrets file jobshift wrote for this submission
	# under the state directory goes too (one the user named stays)
	case ${JOBSHIFT_SECRETS:-} in "$_jsh_base"/scripts/*) rm -f "$JOBSHIFT_SECRETS" ;; esac
	exit "$_jsh_vcode"
}
