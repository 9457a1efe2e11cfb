# js_hostlist LIST: print the hosts of a Slurm compressed hostlist, one per
# line, in Slurm's order (items left to right, first bracket group slowest),
# zero padding kept (width = length of the range's low bound), never sorted.
# POSIX sh (dash, bash): no scontrol needed, so it also works inside
# containers. Mirrors ExpandHostlist in hostlist.go; returns 1 on bad input.
js_hostlist() {
	js_hostlist_v "$1" || return 1
	printf '%s' "$_hl_items"
}

# js_hostlist_v LIST is js_hostlist into _hl_items (one host per line), for
# a caller in the same shell: no command substitution, whose fork cost a
# batch script's start 2-6 ms on a node where a fork is dear.
js_hostlist_v() {
	_hl_rest=$1
	_hl_items=
	# split at commas outside brackets
	while [ -n "$_hl_rest" ]; do
		case $_hl_rest in
		*,*) _hl_item=${_hl_rest%%,*}; _hl_rest=${_hl_rest#*,}; _hl_last=0 ;;
		*) _hl_item=$_hl_rest; _hl_rest=; _hl_last=1 ;;
		esac
		# an item whose last '[' is unclosed continues after the comma
		while :; do
			case $_hl_item in
			*\[*) case ${_hl_item##*\[} in *\]*) break ;; esac ;;
			*) break ;;
			esac
			[ "$_hl_last" = 1 ] && return 1
			case $_hl_rest in
			*,*) _hl_item=$_hl_item,${_hl_rest%%,*}; _hl_rest=${_hl_rest#*,} ;;
			*) _hl_item=$_hl_item,$_hl_rest; _hl_rest=; _hl_last=1 ;;
			esac
		done
		[ -n "$_hl_item" ] || return 1
		# Slurm rejects text after the last bracket group ("n[1-2]x")
		case $_hl_item in *\[*[!\]]) return 1 ;; esac
		[ "$_hl_last" = 0 ] && [ -z "$_hl_rest" ] && return 1 # trailing comma
		_hl_items="$_hl_items$_hl_item
"
	done
	# expand the first bracket group of every item until none is left
	while :; do
		case $_hl_items in *\[* | *\]*) ;; *) break ;; esac
		_hl_next=
		while IFS= read -r _hl_item; do
			case $_hl_item in
			'') continue ;;
			*\[*) ;;
			*\]*) return 1 ;;
			*) _hl_next="$_hl_next$_hl_item
"; continue ;;
			esac
			_hl_pre=${_hl_item%%\[*}
			_hl_in=${_hl_item#*\[}
			case $_hl_in in *\]*) ;; *) return 1 ;; esac
			_hl_suf=${_hl_in#*\]}
			_hl_in=${_hl_in%%\]*}
			case $_hl_pre$_hl_in in *\]* | *\[*) return 1 ;; esac
			_hl_in=$_hl_in,
			while [ -n "$_hl_in" ]; do
				_hl_r=${_hl_in%%,*}
				_hl_in=${_hl_in#*,}
				_hl_lo=${_hl_r%%-*}
				_hl_hi=${_hl_r#*-}
				case $_hl_lo in '' | *[!0-9]*) return 1 ;; esac
				case $_hl_hi in '' | *[!0-9]*) return 1 ;; esac
				# strip leading zeros: $((08)) is an octal error
				_hl_a=${_hl_lo#"${_hl_lo%%[!0]*}"}
				_hl_b=${_hl_hi#"${_hl_hi%%[!0]*}"}
				_hl_a=${_hl_a:-0}
				_hl_b=${_hl_b:-0}
				[ "$_hl_a" -le "$_hl_b" ] || return 1
				while [ "$_hl_a" -le "$_hl_b" ]; do
					# zero-padded to the low bound's width, no fork
					_hl_num=$_hl_a
					while [ "${#_hl_num}" -lt "${#_hl_lo}" ]; do _hl_num=0$_hl_num; done
					_hl_next="$_hl_next$_hl_pre$_hl_num$_hl_suf
"
					_hl_a=$((_hl_a + 1))
				done
			done
		done <<JS_EOF
$_hl_items
JS_EOF
		_hl_items=$_hl_next
	done
}

# js_tpn SPEC: expand SLURM_TASKS_PER_NODE syntax ("2(x3),1") to one count
# per line. Mirrors ExpandTasksPerNode.
js_tpn() {
	js_tpn_v "$1" || return 1
	for _tp_c in $_tp_out; do echo "$_tp_c"; done
}

# js_tpn_v SPEC is js_tpn into _tp_out (counts separated by blanks), for a
# caller in the same shell (as js_hostlist_v).
js_tpn_v() {
	_tp_out=
	_tp_rest=$1,
	while [ -n "$_tp_rest" ]; do
		_tp_p=${_tp_rest%%,*}
		_tp_rest=${_tp_rest#*,}
		case $_tp_p in
		*\(x*\)) _tp_c=${_tp_p%%\(*}; _tp_n=${_tp_p#*\(x}; _tp_n=${_tp_n%\)} ;;
		*) _tp_c=$_tp_p; _tp_n=1 ;;
		esac
		case $_tp_c in '' | *[!0-9]*) return 1 ;; esac
		case $_tp_n in '' | *[!0-9]*) return 1 ;; esac
		while [ "$_tp_n" -gt 0 ]; do
			_tp_out="$_tp_out $_tp_c"
			_tp_n=$((_tp_n - 1))
		done
	done
}
