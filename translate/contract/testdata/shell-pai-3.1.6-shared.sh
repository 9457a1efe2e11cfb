#!/bin/sh
# shellcheck disable=SC1003,SC2016,SC2089,SC2090,SC2154
# jobshift environment contract (generated; see translate/contract.Shell).
# (Variables are assigned through eval; literals are single-quoted on
# purpose, quotes inside them written for the fragment's own single quotes;
# NAME=VALUE strings are arguments for env, not code.)
_js_die() { printf 'jobshift contract: %s\n' "$1" >&2; exit 2; }
_js_num() { case $1 in ''|*[!0-9]*|0?*) return 1 ;; esac; return 0; }
_js_addr() {
	eval "_js_v=\${JS_R$1_ADDR_$2-}"
	case $_js_v in ''|*[!A-Za-z0-9.:_-]*) _js_die "JS_R$1_ADDR_$2: not an address: '$_js_v'" ;; esac
}
_js_ports() {
	eval "_js_v=\${JS_R$1_PORT_$2_$3-}"
	case $_js_v in ''|*[!0-9,]*|,*|*,|*,,*) _js_die "JS_R$1_PORT_$2_$3: not a comma-separated port list: '$_js_v'" ;; esac
	_js_rest=$_js_v,
	_js_n=0
	while [ -n "$_js_rest" ]; do
		_js_p=${_js_rest%%,*}
		_js_rest=${_js_rest#*,}
		{ _js_num "$_js_p" && [ "$_js_p" -ge 1 ] && [ "$_js_p" -le 65535 ]; } || _js_die "JS_R$1_PORT_$2_$3: $_js_p is not a port"
		eval "_js_p_$1_$2_$3_$_js_n=\$_js_p"
		_js_n=$((_js_n + 1))
	done
	[ "$_js_n" -eq "$4" ] || _js_die "JS_R$1_PORT_$2_$3 has $_js_n ports, the job wants $4"
}
_js_role() {
	eval "_js_v=\${JS_R$1_N-}"
	{ _js_num "$_js_v" && [ "$_js_v" -eq "$2" ]; } || _js_die "JS_R$1_N is '$_js_v', the job's role $1 has $2 instances"
	_js_i=0
	while [ "$_js_i" -lt "$2" ]; do
		_js_addr "$1" "$_js_i"
		_js_l=0
		for _js_c in $3; do
			_js_ports "$1" "$_js_l" "$_js_i" "$_js_c"
			_js_l=$((_js_l + 1))
		done
		_js_i=$((_js_i + 1))
	done
}
_js_sq() {
	_js_rest=$1
	_js_v=
	while :; do
		case $_js_rest in
		*\'*) _js_v=$_js_v${_js_rest%%\'*}\'\\\'\'; _js_rest=${_js_rest#*\'} ;;
		*) break ;;
		esac
	done
	_js_v=$_js_v$_js_rest
}
{ _js_num "${JS_NROLES-}" && [ "$JS_NROLES" -eq 2 ]; } || _js_die "JS_NROLES is '${JS_NROLES-}', the job has 2 roles"
_js_role 0 1 '1 1'
_js_role 1 2 '1 1 1'
printf '%s' export
printf ' \\\n%s' 'PAI_FRAMEWORK_NAME='\''alice~mnist'\'
printf ' \\\n%s' 'PAI_JOB_NAME='\''alice~mnist'\'
printf ' \\\n%s' 'PAI_USER_NAME='\''alice'\'
printf ' \\\n%s' 'PAI_DEFAULT_FS_URI='\'''\'
printf ' \\\n%s' 'PAI_TASK_ROLE_COUNT='\''2'\'
printf ' \\\n%s' 'PAI_TASK_ROLE_LIST='\''ps,worker'\'
printf ' \\\n%s' 'PAI_VIRTUAL_CLUSTER='\''default'\'
printf ' \\\n%s' 'PAI_TASK_ROLE_TASK_COUNT_ps='\''1'\'
printf ' \\\n%s' 'PAI_RESOURCE_ps='\''0,1,1024,0'\'
printf ' \\\n%s' 'PAI_MIN_FAILED_TASK_COUNT_ps='\''1'\'
printf ' \\\n%s' 'PAI_MIN_SUCCEEDED_TASK_COUNT_ps='\''1'\'
printf ' \\\n%s' 'PAI_TASK_ROLE_TASK_COUNT_worker='\''2'\'
printf ' \\\n%s' 'PAI_RESOURCE_worker='\''1,4,8192,0'\'
printf ' \\\n%s' 'PAI_MIN_FAILED_TASK_COUNT_worker='\''1'\'
printf ' \\\n%s' 'PAI_MIN_SUCCEEDED_TASK_COUNT_worker='\''2'\'
printf ' \\\n%s' 'PAI_USERNAME='\''alice'\'
printf ' \\\n%s' 'PAI_TASKS_NUM='\''3'\'
printf ' \\\n%s' 'PAI_JOB_TASK_COUNT='\''3'\'
printf ' \\\n%s' 'PAI_TASK_ROLES_NUM='\''2'\'
printf ' \\\n%s' 'PAI_JOB_TASK_ROLE_COUNT='\''2'\'
printf ' \\\n%s' 'PAI_JOB_TASK_ROLE_LIST='\''ps,worker'\'
printf ' \\\n%s' 'PAI_PORT_LIST_ps_0_ssh='\'"${JS_R0_PORT_0_0}"\'
printf ' \\\n%s' 'PAI_ps_0_ssh_PORT='\'"${JS_R0_PORT_0_0}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_ps_0_http='\'"${JS_R0_PORT_1_0}"\'
printf ' \\\n%s' 'PAI_ps_0_http_PORT='\'"${JS_R0_PORT_1_0}"\'
printf ' \\\n%s' 'PAI_HOST_IP_ps_0='\'"${JS_R0_ADDR_0}"\'
printf ' \\\n%s' 'PAI_TASK_ROLE_ps_HOST_LIST='\'"${JS_R0_ADDR_0}"':'"${_js_p_0_1_0_0}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_worker_0_SynPort='\'"${JS_R1_PORT_0_0}"\'
printf ' \\\n%s' 'PAI_worker_0_SynPort_PORT='\'"${JS_R1_PORT_0_0}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_worker_0_ssh='\'"${JS_R1_PORT_1_0}"\'
printf ' \\\n%s' 'PAI_worker_0_ssh_PORT='\'"${JS_R1_PORT_1_0}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_worker_0_http='\'"${JS_R1_PORT_2_0}"\'
printf ' \\\n%s' 'PAI_worker_0_http_PORT='\'"${JS_R1_PORT_2_0}"\'
printf ' \\\n%s' 'PAI_HOST_IP_worker_0='\'"${JS_R1_ADDR_0}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_worker_1_SynPort='\'"${JS_R1_PORT_0_1}"\'
printf ' \\\n%s' 'PAI_worker_1_SynPort_PORT='\'"${JS_R1_PORT_0_1}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_worker_1_ssh='\'"${JS_R1_PORT_1_1}"\'
printf ' \\\n%s' 'PAI_worker_1_ssh_PORT='\'"${JS_R1_PORT_1_1}"\'
printf ' \\\n%s' 'PAI_PORT_LIST_worker_1_http='\'"${JS_R1_PORT_2_1}"\'
printf ' \\\n%s' 'PAI_worker_1_http_PORT='\'"${JS_R1_PORT_2_1}"\'
printf ' \\\n%s' 'PAI_HOST_IP_worker_1='\'"${JS_R1_ADDR_1}"\'
printf ' \\\n%s' 'PAI_TASK_ROLE_worker_HOST_LIST='\'"${JS_R1_ADDR_0}"':'"${_js_p_1_2_0_0}"','"${JS_R1_ADDR_1}"':'"${_js_p_1_2_1_0}"\'
printf ' \\\n%s' 'PAI_TASK_ROLE_INSTANCES='\''ps:0,worker:0,worker:1'\'
printf '\n'
printf '%s\n' '_js_self_0() {' 'case $1 in'
_js_i=0
while [ "$_js_i" -lt 1 ]; do
	eval "_js_a=\${JS_R0_ADDR_$_js_i} _js_l0=\${JS_R0_PORT_0_$_js_i} _js_l0_0=\${_js_p_0_0_${_js_i}_0} _js_l1=\${JS_R0_PORT_1_$_js_i} _js_l1_0=\${_js_p_0_1_${_js_i}_0}"
	printf '%s) _js_sa=%s _js_sp_0=%s _js_sp_0_0=%s _js_sp_1=%s _js_sp_1_0=%s ;;\n' "$_js_i" "$_js_a" "$_js_l0" "$_js_l0_0" "$_js_l1" "$_js_l1_0"
	_js_i=$((_js_i + 1))
done
printf '%s\n' 'esac' '}'
printf '%s\n' '_js_self_1() {' 'case $1 in'
_js_i=0
while [ "$_js_i" -lt 2 ]; do
	eval "_js_a=\${JS_R1_ADDR_$_js_i} _js_l0=\${JS_R1_PORT_0_$_js_i} _js_l0_0=\${_js_p_1_0_${_js_i}_0} _js_l1=\${JS_R1_PORT_1_$_js_i} _js_l1_0=\${_js_p_1_1_${_js_i}_0} _js_l2=\${JS_R1_PORT_2_$_js_i} _js_l2_0=\${_js_p_1_2_${_js_i}_0}"
	printf '%s) _js_sa=%s _js_sp_0=%s _js_sp_0_0=%s _js_sp_1=%s _js_sp_1_0=%s _js_sp_2=%s _js_sp_2_0=%s ;;\n' "$_js_i" "$_js_a" "$_js_l0" "$_js_l0_0" "$_js_l1" "$_js_l1_0" "$_js_l2" "$_js_l2_0"
	_js_i=$((_js_i + 1))
done
printf '%s\n' 'esac' '}'
