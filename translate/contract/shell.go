package contract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// Shell renders the contract of every task of the job as one POSIX sh
// script (dash, bash, busybox sh; only shell builtins and `env`) for
// targets where addresses and ports are known only at run time (Slurm).
//
// Usage, in the task's working directory:
//
//	sh contract.sh utility [argument...]
//
// The script reads the topology from its environment, checks it, exports
// every contract variable, removes its input variables, exports
// PAI_WORK_DIR=$(pwd) when a pai contract applies (see NeedsWorkDir), and
// execs the utility: directly, or through `env -- NAME=VALUE ... utility`
// when some names are not shell identifiers (PAI v1 role names with '.' or
// '~'; only env can place such names in an environment). The utility must
// not contain '='. On bad input it writes "jobshift contract: ..." to
// stderr and exits 2 without running the utility.
//
// Input (all decimal numbers without leading zeros; k = role position in
// the job, i = task index, l = position of a port label in PortLabels(job,
// k, opts)):
//
//	JS_NROLES              number of roles (must equal the job's)
//	JS_R<k>_N              instances of role k (must equal the job's)
//	JS_R<k>_ADDR_<i>       address of task i of role k ([A-Za-z0-9.:_-]+)
//	JS_R<k>_PORT_<l>_<i>   the ports of label l of that task, comma-separated,
//	                       exactly as many as the label's count (1..65535)
//	JS_SELF_ROLE           k of the task running the script
//	JS_SELF_INDEX          i of the task running the script
//	JS_SELF_PROCESS        optional: "ps" for a UAI node's parameter server
//	                       (see Processes), empty or unset otherwise
//	JS_MPI_DIR             the MPI directory, an absolute path (only with
//	                       Options.MPIDirRunTime, for a job that names it)
//
// Job-static values (user, job and role names, counts, resources) are baked
// in, single-quoted. The script covers every process (Options.Process is
// ignored; JS_SELF_PROCESS selects at run time).
func Shell(job *jobs.Job, opts Options) (string, error) {
	c, err := Compile(job, opts)
	if err != nil {
		return "", err
	}
	return c.Shell()
}

// Shell is the package's Shell for the compiled job.
func (cj *Compiled) Shell() (string, error) {
	job, opts := cj.job, cj.opts
	type variant struct {
		k    int
		proc string
		p    *program
	}
	var vs []variant
	for k := range job.Roles {
		for _, proc := range cj.procs {
			p, err := cj.program(k, proc)
			if err != nil {
				return "", err
			}
			vs = append(vs, variant{k, proc, p})
		}
	}
	if len(vs) == 0 {
		return "", fail(ErrJob, job.NamePos, "Job has no roles", "A job needs at least one role.")
	}
	// Variables with the same, self-independent value in every variant are
	// computed once, before the per-task part.
	common := map[string]expr{}
	for _, d := range vs[0].p.defs {
		if !d.val.usesSelf() {
			common[d.name] = d.val
		}
	}
	for _, v := range vs[1:] {
		seen := map[string]bool{}
		for _, d := range v.p.defs {
			if c, ok := common[d.name]; ok && c.equal(d.val) {
				seen[d.name] = true
			}
		}
		for n := range common {
			if !seen[n] {
				delete(common, n)
			}
		}
	}

	c := &shc{job: job, opts: opts}
	w := &c.out
	w.Grow(shellSize(vs[0].p.defs, len(vs))) // one allocation, any job size
	w.WriteString(shellPrelude)
	c.finish()
	c.inputs()
	var commonOdd []string
	for _, d := range vs[0].p.defs {
		if _, ok := common[d.name]; ok {
			commonOdd = c.assign(d, commonOdd)
		}
	}
	fmt.Fprintf(w, "case \"$JS_SELF_ROLE:${JS_SELF_PROCESS-}\" in\n")
	for _, v := range vs {
		fmt.Fprintf(w, "%d:%s)\n", v.k, v.proc)
		c.selfPreamble(v.k)
		odd := commonOdd
		for _, d := range v.p.defs {
			if _, ok := common[d.name]; !ok {
				odd = c.assign(d, odd)
			}
		}
		// Names that are not identifiers reach the utility through env.
		w.WriteString("_js_finish")
		for _, o := range odd {
			fmt.Fprintf(w, " \"$%s\"", o)
		}
		w.WriteString(" \"$@\"\n;;\n")
	}
	w.WriteString("*) _js_die \"JS_SELF_ROLE:JS_SELF_PROCESS $JS_SELF_ROLE:${JS_SELF_PROCESS-} is not a task of this job\" ;;\nesac\n")
	return w.String(), nil
}

// shellSize is about the size of the script of nv variants of the
// program defs, a little more rather than less.
func shellSize(defs []def, nv int) int {
	n := 8 << 10
	for _, d := range defs {
		n += 2*len(d.name) + 16
		for _, p := range d.val {
			n += len(p.lit) + 32 // a literal is quoted; a variable is ≈ 20
		}
	}
	return n + (nv-1)*2<<10
}

const shellPrelude = `#!/bin/sh
# shellcheck disable=SC2016,SC2089,SC2090,SC2154
# jobshift environment contract (generated; see translate/contract.Shell).
# (Variables are assigned through eval; literals are single-quoted on
# purpose; NAME=VALUE strings are arguments for env, not code.)
_js_die() { printf 'jobshift contract: %s\n' "$1" >&2; exit 2; }
_js_num() { case $1 in ''|*[!0-9]*|0?*) return 1 ;; esac; return 0; }
[ "$#" -gt 0 ] || _js_die "usage: sh contract.sh utility [argument...]"
case $1 in *=*) _js_die "the utility must not contain '='" ;; esac
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
`

// shc compiles programs to sh.
type shc struct {
	wbuf   []byte // assign's word, reused
	job    *jobs.Job
	opts   Options
	out    strings.Builder
	tmp    int
	odd    int
	labels map[int][]jobs.Port
}

// label is the position of label in PortLabels(job, k).
func (c *shc) label(k int, label string) int {
	if c.labels == nil {
		c.labels = map[int][]jobs.Port{}
	}
	ls, ok := c.labels[k]
	if !ok {
		ls = PortLabels(c.job, k, c.opts)
		c.labels[k] = ls
	}
	for l, p := range ls {
		if p.Label == label {
			return l
		}
	}
	panic("contract: label " + label + " not in PortLabels") // build guarantees it
}

func (c *shc) inputs() {
	w := &c.out
	fmt.Fprintf(w, "{ _js_num \"${JS_NROLES-}\" && [ \"$JS_NROLES\" -eq %d ]; } || _js_die \"JS_NROLES is '${JS_NROLES-}', the job has %d roles\"\n", len(c.job.Roles), len(c.job.Roles))
	fmt.Fprintf(w, "{ _js_num \"${JS_SELF_ROLE-}\" && _js_num \"${JS_SELF_INDEX-}\"; } || _js_die \"JS_SELF_ROLE and JS_SELF_INDEX must be numbers\"\n")
	for k, r := range c.job.Roles {
		var counts []string
		for _, p := range PortLabels(c.job, k, c.opts) {
			counts = append(counts, strconv.Itoa(p.Count))
		}
		fmt.Fprintf(w, "_js_role %d %d '%s'\n", k, r.Instances, strings.Join(counts, " "))
	}
	if needsRunTimeMPIDir(c.job, c.opts) {
		w.WriteString("case ${JS_MPI_DIR-} in /*) ;; *) _js_die \"JS_MPI_DIR: not an absolute path: '${JS_MPI_DIR-}'\" ;; esac\n")
	}
}

// selfPreamble checks JS_SELF_INDEX for role k and copies the task's own
// address and ports into _js_sa / _js_sp_<l>[_<n>].
func (c *shc) selfPreamble(k int) {
	w := &c.out
	fmt.Fprintf(w, "[ \"$JS_SELF_INDEX\" -lt %d ] || _js_die \"JS_SELF_INDEX $JS_SELF_INDEX: role %d has %d instances\"\n", c.job.Roles[k].Instances, k, c.job.Roles[k].Instances)
	fmt.Fprintf(w, "eval \"_js_sa=\\${JS_R%d_ADDR_$JS_SELF_INDEX}\"\n", k)
	for l, p := range PortLabels(c.job, k, c.opts) {
		fmt.Fprintf(w, "eval \"_js_sp_%d=\\${JS_R%d_PORT_%d_$JS_SELF_INDEX}\"\n", l, k, l)
		for n := range p.Count {
			fmt.Fprintf(w, "eval \"_js_sp_%d_%d=\\${_js_p_%d_%d_${JS_SELF_INDEX}_%d}\"\n", l, n, k, l, n)
		}
	}
}

// assign writes d. A name that is not a shell identifier is kept as
// NAME=VALUE in a fresh _js_o_<n> variable, appended to odd, for env.
// (A job of N tasks has O(N) assignments: they are appended, not
// formatted with fmt.)
func (c *shc) assign(d def, odd []string) []string {
	c.wbuf = c.appendWord(c.wbuf[:0], d.val) // a pCond writes its line first
	w := &c.out
	if isShellName(d.name) {
		w.WriteString(d.name)
		w.WriteByte('=')
		w.Write(c.wbuf)
		w.WriteString("\nexport ")
		w.WriteString(d.name)
		w.WriteByte('\n')
		return odd
	}
	c.odd++
	v := "_js_o_" + strconv.Itoa(c.odd)
	w.WriteString(v)
	w.WriteByte('=')
	w.WriteString(shQuote(d.name + "="))
	w.Write(c.wbuf)
	w.WriteByte('\n')
	return append(odd[:len(odd):len(odd)], v)
}

// finish defines _js_finish NAME=VALUE... utility [argument...]: remove
// the input variables, export PAI_WORK_DIR, exec the utility (through env
// when there are NAME=VALUE arguments).
func (c *shc) finish() {
	w := &c.out
	w.WriteString("_js_finish() {\n")
	c.unsetInputs()
	if NeedsWorkDir(c.job, c.opts) {
		w.WriteString(WorkDirExport)
	}
	w.WriteString("case $1 in *=*) exec env -- \"$@\" ;; esac\nexec \"$@\"\n}\n")
}

// word compiles e to one sh word (no field splitting, no globbing).
func (c *shc) word(e expr) string { return string(c.appendWord(nil, e)) }

// appendWord appends the sh word of e to dst. A pCond writes the line
// that computes it to c.out first.
func (c *shc) appendWord(dst []byte, e expr) []byte {
	if len(e) == 0 {
		return append(dst, "''"...)
	}
	num := func(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
	for _, p := range e {
		switch p.kind {
		case pLit:
			dst = appendShQuote(dst, p.lit)
		case pAddr:
			if p.idx == self {
				dst = append(dst, `"${_js_sa}"`...)
			} else {
				dst = appendAddrVar(dst, p.role, p.idx)
			}
		case pPorts:
			l := c.label(p.role, p.label)
			if p.idx == self {
				dst = append(num(append(dst, `"${_js_sp_`...), l), `}"`...)
			} else {
				dst = num(append(num(append(dst, `"${JS_R`...), p.role), "_PORT_"...), l)
				dst = append(num(append(dst, '_'), p.idx), `}"`...)
			}
		case pPort, pHost:
			l := c.label(p.role, p.label)
			if p.kind == pHost {
				// Addresses are checked to need no JSON escaping.
				dst = append(dst, `'"'`...)
				if p.idx == self {
					dst = append(dst, `"${_js_sa}"`...)
				} else {
					dst = appendAddrVar(dst, p.role, p.idx)
				}
				dst = append(dst, `':'`...)
			}
			if p.idx == self {
				dst = append(num(append(num(append(dst, `"${_js_sp_`...), l), '_'), p.n), `}"`...)
			} else {
				dst = num(append(num(append(dst, `"${_js_p_`...), p.role), '_'), l)
				dst = append(num(append(num(append(dst, '_'), p.idx), '_'), p.n), `}"`...)
			}
			if p.kind == pHost {
				dst = append(dst, `'"'`...)
			}
		case pMPIDir:
			dst = append(dst, `"${JS_MPI_DIR}"`...)
		case pIndex:
			if p.off == 0 {
				dst = append(dst, `"${JS_SELF_INDEX}"`...)
			} else {
				dst = append(num(append(dst, `"$((JS_SELF_INDEX + (`...), p.off), `)))"`...)
			}
		case pCond:
			c.tmp++
			t := fmt.Sprintf("_js_c%d", c.tmp)
			fmt.Fprintf(&c.out, "if [ \"$JS_SELF_INDEX\" -eq 0 ]; then %s=%s; else %s=%s; fi\n", t, c.appendWord(nil, p.alt.a), t, c.appendWord(nil, p.alt.b))
			dst = append(append(append(dst, `"${`...), t...), `}"`...)
		}
	}
	return dst
}

// appendAddrVar appends "${JS_R<role>_ADDR_<idx>}".
func appendAddrVar(dst []byte, role, idx int) []byte {
	dst = strconv.AppendInt(append(dst, `"${JS_R`...), int64(role), 10)
	dst = strconv.AppendInt(append(dst, "_ADDR_"...), int64(idx), 10)
	return append(dst, `}"`...)
}

func (c *shc) unsetInputs() {
	w := &c.out
	w.WriteString("unset JS_NROLES JS_SELF_ROLE JS_SELF_INDEX JS_SELF_PROCESS\n")
	if needsRunTimeMPIDir(c.job, c.opts) {
		w.WriteString("unset JS_MPI_DIR\n")
	}
	for k, r := range c.job.Roles {
		fmt.Fprintf(w, "unset JS_R%d_N\n_js_i=0\nwhile [ \"$_js_i\" -lt %d ]; do\n\tunset JS_R%d_ADDR_$_js_i", k, r.Instances, k)
		for l := range PortLabels(c.job, k, c.opts) {
			fmt.Fprintf(w, " JS_R%d_PORT_%d_$_js_i", k, l)
		}
		w.WriteString("\n\t_js_i=$((_js_i + 1))\ndone\n")
	}
}

// usesSelf reports whether e depends on which task evaluates it.
func (e expr) usesSelf() bool {
	for _, p := range e {
		switch p.kind {
		case pIndex, pCond:
			return true
		case pAddr, pPorts, pPort, pHost:
			if p.idx == self {
				return true
			}
		}
	}
	return false
}

// equal reports whether e and o are the same expression.
func (e expr) equal(o expr) bool {
	if len(e) != len(o) {
		return false
	}
	for i := range e {
		p, q := &e[i], &o[i]
		if p.kind != q.kind || p.lit != q.lit || p.role != q.role || p.idx != q.idx || p.label != q.label ||
			p.n != q.n || p.off != q.off || (p.alt == nil) != (q.alt == nil) ||
			p.alt != nil && (!p.alt.a.equal(q.alt.a) || !p.alt.b.equal(q.alt.b)) {
			return false
		}
	}
	return true
}
