# The entry of the task program (the end of task.sh in the state directory
# of the attempt), picked by $0: stage 1 (jobshift-task R) reads the
# library first unless the script carries it inline (_t_inline_lib = 1)
# and runs stage 2 in its own subshell (js_then); jobshift-run R DIR runs
# only js_run (sh/run.sh) in a fresh sh, for a contract whose names only
# env can place (js_then execs env, then this); jobshift-init R DIR CMD...
# runs the init containers, then CMD, in the task's view (js_exec_view).
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
jobshift-init)
	# js_exec_view: the init containers inside the task's view, then its
	# command (R DIR CMD...)
	_jsh_r=$1 _jsh_sd=$2
	shift 2
	js_run_init "$_jsh_r" || exit
	exec "$@"
	;;
*)
	echo "jobshift: unknown task stage $0" >&2
	exit 97
	;;
esac
