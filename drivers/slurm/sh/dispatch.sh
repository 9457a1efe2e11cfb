# The entry of the task program (the end of task.sh in the state directory
# of the attempt), picked by $0: stage 1 (jobshift-task R) reads the
# library first unless the script carries it inline (_t_inline_lib = 1)
# and runs stage 2 in its own subshell (js_then); jobshift-run R DIR runs
# only js_run (sh/run.sh) in a fresh sh, for a contract whose names only
# env can place (js_then execs env, then this).
# The in-shell stage (stage.sh): bash read this program from BASH_ENV
# before the user's script. It returns to that script having removed every
# function and unexported variable it defined (the task program's, the
# layout's, the contract's): the user's bash starts as if started by the
# platform. The names are listed (_t_vars, _t_fns: task.go and render.go,
# the contract's _js_ ones too: ${!_js_@} would sort every variable of
# the shell, ~0.4 ms per prefix here); an exported one is the job's own
# (${!name@a}, its attributes). bash only: in eval, so that a POSIX shell
# never parses it.
if [ -n "${_jsh_ir:-}" ]; then
	js_insh "$_jsh_ir"
	_c_k=0
	while [ "$_c_k" -lt "$_t_nroles" ]; do
		unset -f "_jsh_want_$_c_k" "_js_self_$_c_k"
		_c_k=$((_c_k + 1))
	done
	# shellcheck disable=SC2086 # a list of names (task.go, _t_fns)
	unset -f _js_die _js_num _js_finish $_t_fns
	# shellcheck disable=SC2016
	eval 'for _c_v in $_t_vars _k_r _k_i _k_dir _k_want _c_k _shm; do
		case ${!_c_v@a} in *x*) ;; *) unset "$_c_v" ;; esac
	done'
	unset _c_v
	return 0
fi
case $0 in
jobshift-task)
	if [ "$_t_inline_lib" = 0 ]; then
		# only the library's task part (library.go, taskOnly)
		_jsh_lib_task=1
		# shellcheck source=/dev/null
		. "$_jsh_lib" || exit 97
	fi
	js_task_main "$1"
	;;
jobshift-run) js_run "$@" ;;
*)
	echo "jobshift: unknown task stage $0" >&2
	exit 97
	;;
esac
