package contract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/jobs"
)

// Shell renders the contract of every task of the job as one POSIX sh
// script (dash, bash, busybox sh; only shell builtins and `env`) for
// targets where addresses and ports are known only at run time. It is the
// two stages of (*Compiled).ShellStages in one script; Slurm runs them
// apart (the shared stage once per attempt, the task stage per task).
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
//	JS_R<k>_NODE_<i>       the name of the node task i of role k runs on,
//	JS_R<k>_HOSTIP_<i>     and that node's address (both as addresses are;
//	                       only for a job whose contract names its node,
//	                       UsesNode)
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

// ShellStages is the contract's shell rendering in two stages, for a
// target that starts many tasks of one job attempt (Slurm): the part every
// task shares is evaluated once, the rest per task.
//
//	sh shared.sh >FRAGMENT                 (once per attempt)
//	sh task.sh utility [argument...]       (per task)
//
// Shared reads the topology input of Shell (JS_NROLES, JS_R<k>_N,
// JS_R<k>_ADDR_<i>, JS_R<k>_PORT_<l>_<i>, JS_MPI_DIR), checks it once and
// writes to its standard output a sh fragment: the variables every task
// gets with one value (host lists, every task's address and port
// variables), the topology-dependent pieces of the others (the cluster part
// of TF_CONFIG), and each task's own address and ports. It may also be
// sourced in a subshell ("( . shared.sh ) >FRAGMENT"), which then reads
// unexported shell variables as well. On bad input it writes "jobshift
// contract: ..." to stderr and exits 2.
//
// Task reads JS_SELF_ROLE, JS_SELF_INDEX, JS_SELF_PROCESS (as Shell) and
// JS_SHARED, the fragment's path; it sources the fragment, sets the task's
// own variables (its index, the current-container variables, RANK...),
// removes those four inputs, and execs the utility as Shell does. Its work
// per task is the fragment's size plus O(1).
//
// Task may also be sourced by a shell (in a subshell: it ends it) that
// calls a function of its own instead of a utility:
//
//	( set -- -f FUNCTION [argument...]; . task.sh )
//
// Then it calls FUNCTION [NAME=VALUE...] [argument...] with the variables
// set and exported as above, the NAME=VALUE words being the variables only
// env can place (see Shell: the function must exec env -- with them), and
// exits with the function's status should it return. A target that already
// runs a shell per task (Slurm's supervisor) so saves a sh process before
// the user's command.
//
// With -r FUNCTION instead, the stage returns once FUNCTION has returned:
// a bash sources it from BASH_ENV, inside a function (the stage shifts
// the positional parameters, and a function's are its own), and then runs
// the user's script itself, with no shell of jobshift's before it (Slurm,
// a role that never restarts in place).
type ShellStages struct {
	Shared, Task string
	// Roles holds, per role, the main process's part of Task (the text
	// of its case arm), for a target that writes one program per role:
	// with JS_SELF_INDEX set and the fragment sourced, it checks the
	// index, sets and exports the task's own variables, and leaves in the
	// variables Odd names the NAME=VALUE words only env can place. What
	// Task's _js_finish does after it (PAI_WORK_DIR: WorkDir; removing the
	// inputs; the exec) is the caller's.
	Roles []RoleStage
	// WorkDir is the code that sets and exports PAI_WORK_DIR, when a pai
	// contract applies ("" otherwise).
	WorkDir string
}

// RoleStage is one role's part of ShellStages.Task.
type RoleStage struct {
	Body string
	Odd  []string
}

// ShellStages renders the contract of every task of the job in two stages.
func (cj *Compiled) ShellStages() (ShellStages, error) {
	r, err := cj.shellRender()
	if err != nil {
		return ShellStages{}, err
	}
	var sh, tk strings.Builder
	sh.Grow(len(shellPrelude) + len(r.shared) + 256)
	sh.WriteString(shellPrelude)
	sh.WriteString(sharedPrelude)
	sh.WriteString(r.shared)
	tk.Grow(len(taskPrelude) + len(r.task) + 1024)
	tk.WriteString(shellPrelude)
	tk.WriteString(taskPrelude)
	tk.WriteString(functionPrelude)
	tk.WriteString("[ -f \"${JS_SHARED-}\" ] || _js_die \"JS_SHARED: no fragment at '${JS_SHARED-}'\"\n")
	r.c.finishTo(&tk, "unset JS_SELF_ROLE JS_SELF_INDEX JS_SELF_PROCESS JS_SHARED\n", false, true)
	tk.WriteString(selfCheck)
	tk.WriteString(". \"$JS_SHARED\"\n")
	tk.WriteString(r.task)
	st := ShellStages{Shared: sh.String(), Task: tk.String(), Roles: r.roles}
	if NeedsWorkDir(cj.job, cj.opts) {
		st.WorkDir = WorkDirExport
	}
	return st, nil
}

// Shell is the package's Shell for the compiled job: the two stages of
// ShellStages in one script, the fragment kept in a variable.
func (cj *Compiled) Shell() (string, error) {
	r, err := cj.shellRender()
	if err != nil {
		return "", err
	}
	var w strings.Builder
	w.Grow(len(shellPrelude) + len(r.shared) + len(r.task) + 4096)
	w.WriteString(shellPrelude)
	w.WriteString(taskPrelude)
	w.WriteString(sharedPrelude)
	w.WriteString("_js_shared() {\n")
	w.WriteString(r.shared)
	w.WriteString("}\n_js_env=$(_js_shared) || exit 2\n")
	r.c.finishTo(&w, "", true, false)
	w.WriteString(selfCheck)
	w.WriteString("eval \"$_js_env\"\nunset _js_env\n")
	w.WriteString(r.task)
	return w.String(), nil
}

// shellRendering is a compiled job's shell text: the shared stage's body
// and the task stage's case over the roles (and processes).
type shellRendering struct {
	c            *shc
	shared, task string
	roles        []RoleStage // per role, its main process's arm
}

func (cj *Compiled) shellRender() (*shellRendering, error) {
	job, opts := cj.job, cj.opts
	var vs []variant
	for k := range job.Roles {
		for _, proc := range cj.procs {
			p, err := cj.program(k, proc)
			if err != nil {
				return nil, err
			}
			vs = append(vs, variant{k, proc, p})
		}
	}
	if len(vs) == 0 {
		return nil, fail(ErrJob, job.NamePos, "Job has no roles", "A job needs at least one role.")
	}
	common := commonDefs(vs)
	c := &shc{job: job, opts: opts, hoisted: map[string]string{}}
	// the shared stage: checks, then one line of the fragment per common
	// variable, per hoisted piece and per task (its own address and ports)
	var sh strings.Builder
	sh.Grow(shellSize(vs[0].p.defs, 1))
	c.inputs(&sh)
	var commonOdd []string
	var exports []def
	for _, d := range vs[0].p.defs {
		if _, ok := common[d.name]; !ok {
			continue
		}
		if IsShellName(d.name) {
			exports = append(exports, d)
			continue
		}
		commonOdd = c.emitOdd(&sh, d, commonOdd)
	}
	c.emitExports(&sh, exports)
	for k := range job.Roles {
		c.selfTable(&sh, k)
	}
	// the task stage: per role and process, its own variables
	w := &c.out
	w.Grow(len(vs) * 2 << 10)
	w.WriteString("case \"$JS_SELF_ROLE:${JS_SELF_PROCESS-}\" in\n")
	roles := make([]RoleStage, len(job.Roles))
	for _, v := range vs {
		fmt.Fprintf(w, "%d:%s)\n", v.k, v.proc)
		at := w.Len()
		n := job.Roles[v.k].Instances
		fmt.Fprintf(w, "[ \"$JS_SELF_INDEX\" -lt %d ] || _js_die \"JS_SELF_INDEX $JS_SELF_INDEX: role %d has %d instances\"\n", n, v.k, n)
		if n > 0 {
			fmt.Fprintf(w, "_js_self_%d \"$JS_SELF_INDEX\"\n", v.k)
		}
		odd := commonOdd
		for _, d := range v.p.defs {
			if _, ok := common[d.name]; !ok {
				odd = c.assign(def{name: d.name, val: c.hoist(d.val), first: d.first}, odd)
			}
		}
		if v.proc == ProcessMain {
			roles[v.k] = RoleStage{Body: w.String()[at:], Odd: odd}
		}
		// Names that are not identifiers reach the utility through env.
		w.WriteString("_js_finish")
		for _, o := range odd {
			fmt.Fprintf(w, " \"$%s\"", o)
		}
		w.WriteString(" \"$@\"\n;;\n")
	}
	w.WriteString("*) _js_die \"JS_SELF_ROLE:JS_SELF_PROCESS $JS_SELF_ROLE:${JS_SELF_PROCESS-} is not a task of this job\" ;;\nesac\n")
	for _, h := range c.hoistOrder {
		c.emitLine(&sh, h.name+"=", h.val, "")
	}
	return &shellRendering{c: c, shared: sh.String(), task: w.String(), roles: roles}, nil
}

type variant struct {
	k    int
	proc string
	p    *program
}

// commonDefs are the variables with the same, self-independent value in
// every variant: computed once, in the shared stage.
func commonDefs(vs []variant) map[string]expr {
	common := map[string]expr{}
	for _, d := range vs[0].p.defs {
		if !d.val.usesSelf() && !d.first {
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
	return common
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
# shellcheck disable=SC1003,SC2016,SC2089,SC2090,SC2154
# jobshift environment contract (generated; see translate/contract.Shell).
# (Variables are assigned through eval; literals are single-quoted on
# purpose, quotes inside them written for the fragment's own single quotes;
# NAME=VALUE strings are arguments for env, not code.)
_js_die() { printf 'jobshift contract: %s\n' "$1" >&2; exit 2; }
_js_num() { case $1 in ''|*[!0-9]*|0?*) return 1 ;; esac; return 0; }
`

// taskPrelude checks the utility of the task stage.
const taskPrelude = `[ "$#" -gt 0 ] || _js_die "usage: sh contract.sh utility [argument...]"
case $1 in *=*) _js_die "the utility must not contain '='" ;; esac
`

// functionPrelude reads the task stage's -f FUNCTION or -r FUNCTION
// (ShellStages: the stage sourced by a shell that calls its own function,
// no utility). After -f FUNCTION the stage exits with the function's
// status; after -r it returns, so the shell that sourced it goes on (a
// bash that runs the stage from BASH_ENV before the user's script, in a
// function of its own: the stage shifts the positional parameters).
// _js_fn and _js_ret are always assigned here, so they never come from the
// environment.
const functionPrelude = `_js_fn= _js_ret=
case $1 in
-f | -r)
	[ "$#" -ge 2 ] || _js_die "usage: -f|-r FUNCTION [argument...]"
	[ "$1" = -r ] && _js_ret=1
	_js_fn=$2
	shift 2
	;;
esac
`

// selfCheck checks the task's own inputs.
const selfCheck = `{ _js_num "${JS_SELF_ROLE-}" && _js_num "${JS_SELF_INDEX-}"; } || _js_die "JS_SELF_ROLE and JS_SELF_INDEX must be numbers"
`

// sharedPrelude are the shared stage's checks of the topology, and _js_sq,
// which writes a value for single quotes (only the run-time MPI directory
// needs it: every other value is literals, quoted at render, and checked
// addresses and ports).
const sharedPrelude = `_js_addr() {
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
`

// nodeInputs checks the node inputs of a job whose contract names its
// node (UsesNode): every task's JS_R<k>_NODE_<i> and JS_R<k>_HOSTIP_<i>
// are written unquoted into the fragment, as addresses are.
const nodeInputs = `_js_nodes() {
	_js_i=0
	while [ "$_js_i" -lt "$2" ]; do
		for _js_w in NODE HOSTIP; do
			eval "_js_v=\${JS_R$1_${_js_w}_$_js_i-}"
			case $_js_v in ''|*[!A-Za-z0-9.:_-]*) _js_die "JS_R$1_${_js_w}_$_js_i: not a node name or address: '$_js_v'" ;; esac
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
	out    strings.Builder // the task stage
	tmp    int
	odd    int
	labels map[int][]jobs.Port
	// file: appendWord writes a value for a fragment line (literals
	// escaped for single quotes, the MPI directory as _js_mq)
	file bool
	// the topology-dependent pieces of the task stage's values, each
	// computed once by the shared stage into a _js_s<n> variable
	hoisted    map[string]string // exprKey → variable
	hoistOrder []def
}

// label is the position of label in PortLabels(job, k).
func (c *shc) label(k int, label string) int {
	for l, p := range c.labelsOf(k) {
		if p.Label == label {
			return l
		}
	}
	panic("contract: label " + label + " not in PortLabels") // build guarantees it
}

// labelsOf is PortLabels(job, k), computed once.
func (c *shc) labelsOf(k int) []jobs.Port {
	if c.labels == nil {
		c.labels = map[int][]jobs.Port{}
	}
	ls, ok := c.labels[k]
	if !ok {
		ls = PortLabels(c.job, k, c.opts)
		c.labels[k] = ls
	}
	return ls
}

// inputs writes the shared stage's checks of the topology (and the MPI
// directory, quoted for the fragment's lines, as _js_mq).
func (c *shc) inputs(w *strings.Builder) {
	fmt.Fprintf(w, "{ _js_num \"${JS_NROLES-}\" && [ \"$JS_NROLES\" -eq %d ]; } || _js_die \"JS_NROLES is '${JS_NROLES-}', the job has %d roles\"\n", len(c.job.Roles), len(c.job.Roles))
	for k, r := range c.job.Roles {
		var counts []string
		for _, p := range c.labelsOf(k) {
			counts = append(counts, strconv.Itoa(p.Count))
		}
		fmt.Fprintf(w, "_js_role %d %d '%s'\n", k, r.Instances, strings.Join(counts, " "))
	}
	if UsesNode(c.job) {
		w.WriteString(nodeInputs)
		for k, r := range c.job.Roles {
			fmt.Fprintf(w, "_js_nodes %d %d\n", k, r.Instances)
		}
	}
	if needsRunTimeMPIDir(c.job, c.opts) {
		w.WriteString("case ${JS_MPI_DIR-} in /*) ;; *) _js_die \"JS_MPI_DIR: not an absolute path: '${JS_MPI_DIR-}'\" ;; esac\n")
		w.WriteString("_js_sq \"$JS_MPI_DIR\"\n_js_mq=$_js_v\n")
	}
}

// selfTable writes the shared stage's loop that writes function
// _js_self_<k> into the fragment: given a task index of role k, it sets
// that task's address (_js_sa), its node's name and address (_js_sn,
// _js_sh: UsesNode) and ports (_js_sp_<l>, _js_sp_<l>_<n>).
// Addresses and ports were checked: they need no quotes.
func (c *shc) selfTable(w *strings.Builder, k int) {
	n := c.job.Roles[k].Instances
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "printf '%%s\\n' '_js_self_%d() {' 'case $1 in'\n_js_i=0\nwhile [ \"$_js_i\" -lt %d ]; do\n", k, n)
	fmt.Fprintf(w, "\teval \"_js_a=\\${JS_R%d_ADDR_$_js_i}", k)
	format := "%s) _js_sa=%s"
	args := ` "$_js_i" "$_js_a"`
	if UsesNode(c.job) {
		fmt.Fprintf(w, " _js_nn=\\${JS_R%d_NODE_$_js_i} _js_nh=\\${JS_R%d_HOSTIP_$_js_i}", k, k)
		format += " _js_sn=%s _js_sh=%s"
		args += ` "$_js_nn" "$_js_nh"`
	}
	for l, p := range c.labelsOf(k) {
		fmt.Fprintf(w, " _js_l%d=\\${JS_R%d_PORT_%d_$_js_i}", l, k, l)
		format += fmt.Sprintf(" _js_sp_%d=%%s", l)
		args += fmt.Sprintf(` "$_js_l%d"`, l)
		for m := range p.Count {
			fmt.Fprintf(w, " _js_l%d_%d=\\${_js_p_%d_%d_${_js_i}_%d}", l, m, k, l, m)
			format += fmt.Sprintf(" _js_sp_%d_%d=%%s", l, m)
			args += fmt.Sprintf(` "$_js_l%d_%d"`, l, m)
		}
	}
	fmt.Fprintf(w, "\"\n\tprintf '%s ;;\\n'%s\n\t_js_i=$((_js_i + 1))\ndone\nprintf '%%s\\n' 'esac' '}'\n", format, args)
}

// emitExports writes the shared stage's lines that write one export
// command of the fragment for the common variables ds, all shell
// identifiers: "export \" and a line NAME='VALUE' per variable. Every task
// sources the fragment, and one command of N assignments costs bash about
// half what N export commands do (0.9 against 1.9 ms for the 344
// variables of a 64-task PAI job here). The values are literals: no
// assignment reads another.
func (c *shc) emitExports(w *strings.Builder, ds []def) {
	if len(ds) == 0 {
		return // a bare export would list the shell's exports
	}
	w.WriteString("printf '%s' export\n")
	for _, d := range ds {
		c.emitFormat(w, `' \\\n%s'`, d.name+"=", d.val, "")
	}
	w.WriteString("printf '\\n'\n")
}

// emitOdd writes the shared stage's line for common variable d, whose
// name is not a shell identifier: it is kept as NAME=VALUE in a fresh
// _js_o_<n> variable, appended to odd, for env.
func (c *shc) emitOdd(w *strings.Builder, d def, odd []string) []string {
	c.odd++
	v := "_js_o_" + strconv.Itoa(c.odd)
	c.emitLine(w, v+"=", d.val, d.name+"=")
	return append(odd[:len(odd):len(odd)], v)
}

// emitLine writes the shared stage's command that writes the fragment's
// line HEAD'PREFIX VALUE' (e evaluated, PREFIX literal).
func (c *shc) emitLine(w *strings.Builder, head string, e expr, prefix string) {
	c.emitFormat(w, `'%s\n'`, head, e, prefix)
}

// emitFormat is emitLine with printf's quoted format, which has one %s.
func (c *shc) emitFormat(w *strings.Builder, format, head string, e expr, prefix string) {
	b := append(append(append(c.wbuf[:0], "printf "...), format...), ' ')
	b = append(shquote.Append(b, head), `\'`...)
	if prefix != "" {
		b = shquote.Append(b, shquote.Escape(prefix))
	}
	c.file = true
	b = c.appendWord(b, e)
	c.file = false
	b = append(b, "\\'\n"...)
	w.Write(b)
	c.wbuf = b
}

// hoist replaces every run of e's parts that depends on the topology but
// not on the task (a host list, the cluster part of TF_CONFIG) by a
// _js_s<n> variable the shared stage computes once; equal runs share one.
func (c *shc) hoist(e expr) expr {
	var out expr
	for i := 0; i < len(e); {
		p := e[i]
		switch {
		case p.kind == pCond:
			out = append(out, part{kind: pCond, alt: &branches{c.hoist(p.alt.a), c.hoist(p.alt.b)}})
			i++
			continue
		case p.selfish():
			out = append(out, p)
			i++
			continue
		}
		j, topo := i, false
		for ; j < len(e) && !e[j].selfish(); j++ {
			topo = topo || e[j].kind != pLit
		}
		if topo {
			out = append(out, part{kind: pVar, lit: c.hoistVar(e[i:j])})
		} else {
			out = append(out, e[i:j]...)
		}
		i = j
	}
	return out
}

// selfish reports whether p depends on the task evaluating it.
func (p *part) selfish() bool {
	switch p.kind {
	case pIndex, pCond, pNode:
		return true
	case pAddr, pPorts, pPort, pHost:
		return p.idx == self
	}
	return false
}

// hoistVar is the variable of run, a new one for a run not seen before.
func (c *shc) hoistVar(run expr) string {
	var k []byte
	for _, p := range run {
		k = append(k, byte(p.kind))
		k = strconv.AppendInt(k, int64(len(p.lit)), 10)
		k = append(append(k, ':'), p.lit...)
		for _, n := range []int{p.role, p.idx, p.n, p.off} {
			k = strconv.AppendInt(append(k, ','), int64(n), 10)
		}
		k = append(append(k, ','), p.label...)
		k = append(k, ';')
	}
	key := string(k)
	if v, ok := c.hoisted[key]; ok {
		return v
	}
	v := "_js_s" + strconv.Itoa(len(c.hoistOrder))
	c.hoisted[key] = v
	c.hoistOrder = append(c.hoistOrder, def{name: v, val: run})
	return v
}

// assign writes d. A name that is not a shell identifier is kept as
// NAME=VALUE in a fresh _js_o_<n> variable, appended to odd, for env.
// (A job of N tasks has O(N) assignments: they are appended, not
// formatted with fmt.)
func (c *shc) assign(d def, odd []string) []string {
	c.wbuf = c.appendWord(c.wbuf[:0], d.val) // a pCond writes its line first
	w := &c.out
	if IsShellName(d.name) {
		if d.first { // setFirst: task 0 only
			w.WriteString("if [ \"$JS_SELF_INDEX\" -eq 0 ]; then\n")
		}
		w.WriteString(d.name)
		w.WriteByte('=')
		w.Write(c.wbuf)
		w.WriteString("\nexport ")
		w.WriteString(d.name)
		w.WriteByte('\n')
		if d.first {
			w.WriteString("fi\n")
		}
		return odd
	}
	c.odd++
	v := "_js_o_" + strconv.Itoa(c.odd)
	w.WriteString(v)
	w.WriteByte('=')
	w.WriteString(shquote.Quote(d.name + "="))
	w.Write(c.wbuf)
	w.WriteByte('\n')
	return append(odd[:len(odd):len(odd)], v)
}

// finishTo writes _js_finish NAME=VALUE... utility [argument...]: remove
// the input variables (unset, or with topo every input of Shell), export
// PAI_WORK_DIR, exec the utility (through env when there are NAME=VALUE
// arguments).
func (c *shc) finishTo(w *strings.Builder, unset string, topo, fn bool) {
	w.WriteString("_js_finish() {\n")
	if topo {
		c.unsetInputs(w)
	} else {
		w.WriteString(unset)
	}
	if NeedsWorkDir(c.job, c.opts) {
		w.WriteString(WorkDirExport)
	}
	if fn {
		// sourced with -f|-r FUNCTION (ShellStages): no exec, the
		// caller's function runs in this shell; after -r, _js_finish
		// returns and the stage's case ends the file
		w.WriteString("if [ -n \"$_js_fn\" ]; then\n\tif [ -n \"$_js_ret\" ]; then \"$_js_fn\" \"$@\"; return; fi\n\t\"$_js_fn\" \"$@\"\n\texit\nfi\n")
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
			if c.file {
				dst = shquote.Append(dst, shquote.Escape(p.lit))
			} else {
				dst = shquote.Append(dst, p.lit)
			}
		case pVar:
			dst = append(append(append(dst, `"${`...), p.lit...), `}"`...)
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
			if c.file {
				dst = append(dst, `"${_js_mq}"`...)
			} else {
				dst = append(dst, `"${JS_MPI_DIR}"`...)
			}
		case pNode:
			dst = append(dst, []string{`"${_js_sn}"`, `"${_js_sh}"`}[p.n]...)
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

func (c *shc) unsetInputs(w *strings.Builder) {
	w.WriteString("unset JS_NROLES JS_SELF_ROLE JS_SELF_INDEX JS_SELF_PROCESS\n")
	if needsRunTimeMPIDir(c.job, c.opts) {
		w.WriteString("unset JS_MPI_DIR\n")
	}
	for k, r := range c.job.Roles {
		fmt.Fprintf(w, "unset JS_R%d_N\n_js_i=0\nwhile [ \"$_js_i\" -lt %d ]; do\n\tunset JS_R%d_ADDR_$_js_i", k, r.Instances, k)
		for l := range c.labelsOf(k) {
			fmt.Fprintf(w, " JS_R%d_PORT_%d_$_js_i", k, l)
		}
		if UsesNode(c.job) {
			fmt.Fprintf(w, " JS_R%d_NODE_$_js_i JS_R%d_HOSTIP_$_js_i", k, k)
		}
		w.WriteString("\n\t_js_i=$((_js_i + 1))\ndone\n")
	}
}

// usesSelf reports whether e depends on which task evaluates it.
func (e expr) usesSelf() bool {
	for _, p := range e {
		switch p.kind {
		case pIndex, pCond, pNode:
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
