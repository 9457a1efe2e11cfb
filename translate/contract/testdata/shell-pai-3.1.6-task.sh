#!/bin/sh
# shellcheck disable=SC1003,SC2016,SC2089,SC2090,SC2154
# jobshift environment contract (generated; see translate/contract.Shell).
# (Variables are assigned through eval; literals are single-quoted on
# purpose, quotes inside them written for the fragment's own single quotes;
# NAME=VALUE strings are arguments for env, not code.)
_js_die() { printf 'jobshift contract: %s\n' "$1" >&2; exit 2; }
_js_num() { case $1 in ''|*[!0-9]*|0?*) return 1 ;; esac; return 0; }
[ "$#" -gt 0 ] || _js_die "usage: sh contract.sh utility [argument...]"
case $1 in *=*) _js_die "the utility must not contain '='" ;; esac
_js_fn= _js_ret=
case $1 in
-f | -r)
	[ "$#" -ge 2 ] || _js_die "usage: -f|-r FUNCTION [argument...]"
	[ "$1" = -r ] && _js_ret=1
	_js_fn=$2
	shift 2
	;;
esac
[ -f "${JS_SHARED-}" ] || _js_die "JS_SHARED: no fragment at '${JS_SHARED-}'"
_js_finish() {
unset JS_SELF_ROLE JS_SELF_INDEX JS_SELF_PROCESS JS_SHARED
PAI_WORK_DIR=$PWD
# shellcheck disable=SC3013
[ "$PAI_WORK_DIR" -ef . ] 2>/dev/null || PAI_WORK_DIR=$(pwd)
export PAI_WORK_DIR
if [ -n "$_js_fn" ]; then
	if [ -n "$_js_ret" ]; then "$_js_fn" "$@"; return; fi
	"$_js_fn" "$@"
	exit
fi
case $1 in *=*) exec env -- "$@" ;; esac
exec "$@"
}
{ _js_num "${JS_SELF_ROLE-}" && _js_num "${JS_SELF_INDEX-}"; } || _js_die "JS_SELF_ROLE and JS_SELF_INDEX must be numbers"
. "$JS_SHARED"
case "$JS_SELF_ROLE:${JS_SELF_PROCESS-}" in
0:)
[ "$JS_SELF_INDEX" -lt 1 ] || _js_die "JS_SELF_INDEX $JS_SELF_INDEX: role 0 has 1 instances"
_js_self_0 "$JS_SELF_INDEX"
PAI_CURRENT_TASK_ROLE_NAME='ps'
export PAI_CURRENT_TASK_ROLE_NAME
PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX="${JS_SELF_INDEX}"
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX
PAI_TASK_INDEX="${JS_SELF_INDEX}"
export PAI_TASK_INDEX
PAI_CURRENT_CONTAINER_IP="${_js_sa}"
export PAI_CURRENT_CONTAINER_IP
PAI_CURRENT_CONTAINER_PORT="${_js_sp_1_0}"
export PAI_CURRENT_CONTAINER_PORT
PAI_CONTAINER_HOST_IP="${_js_sa}"
export PAI_CONTAINER_HOST_IP
PAI_CONTAINER_HOST_PORT="${_js_sp_1_0}"
export PAI_CONTAINER_HOST_PORT
PAI_CONTAINER_SSH_PORT="${_js_sp_0_0}"
export PAI_CONTAINER_SSH_PORT
PAI_CONTAINER_HOST_ssh_PORT_LIST="${_js_sp_0}"
export PAI_CONTAINER_HOST_ssh_PORT_LIST
PAI_CONTAINER_HOST_http_PORT_LIST="${_js_sp_1}"
export PAI_CONTAINER_HOST_http_PORT_LIST
PAI_CONTAINER_HOST_PORT_LIST='ssh:'"${_js_sp_0}"';http:'"${_js_sp_1}"';'
export PAI_CONTAINER_HOST_PORT_LIST
_js_finish "$@"
;;
1:)
[ "$JS_SELF_INDEX" -lt 2 ] || _js_die "JS_SELF_INDEX $JS_SELF_INDEX: role 1 has 2 instances"
_js_self_1 "$JS_SELF_INDEX"
PAI_CURRENT_TASK_ROLE_NAME='worker'
export PAI_CURRENT_TASK_ROLE_NAME
PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX="${JS_SELF_INDEX}"
export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX
PAI_TASK_INDEX="${JS_SELF_INDEX}"
export PAI_TASK_INDEX
PAI_CURRENT_CONTAINER_IP="${_js_sa}"
export PAI_CURRENT_CONTAINER_IP
PAI_CURRENT_CONTAINER_PORT="${_js_sp_2_0}"
export PAI_CURRENT_CONTAINER_PORT
PAI_CONTAINER_HOST_IP="${_js_sa}"
export PAI_CONTAINER_HOST_IP
PAI_CONTAINER_HOST_PORT="${_js_sp_2_0}"
export PAI_CONTAINER_HOST_PORT
PAI_CONTAINER_SSH_PORT="${_js_sp_1_0}"
export PAI_CONTAINER_SSH_PORT
PAI_CONTAINER_HOST_SynPort_PORT_LIST="${_js_sp_0}"
export PAI_CONTAINER_HOST_SynPort_PORT_LIST
PAI_CONTAINER_HOST_ssh_PORT_LIST="${_js_sp_1}"
export PAI_CONTAINER_HOST_ssh_PORT_LIST
PAI_CONTAINER_HOST_http_PORT_LIST="${_js_sp_2}"
export PAI_CONTAINER_HOST_http_PORT_LIST
PAI_CONTAINER_HOST_PORT_LIST='SynPort:'"${_js_sp_0}"';ssh:'"${_js_sp_1}"';http:'"${_js_sp_2}"';'
export PAI_CONTAINER_HOST_PORT_LIST
_js_finish "$@"
;;
*) _js_die "JS_SELF_ROLE:JS_SELF_PROCESS $JS_SELF_ROLE:${JS_SELF_PROCESS-} is not a task of this job" ;;
esac
