package contract

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// self is the index of a part that refers to the task being evaluated.
const self = -1

type partKind uint8

const (
	pLit    partKind = iota // lit
	pAddr                   // address of task (role, idx)
	pPorts                  // ports of label, comma-joined
	pPort                   // port n of label
	pHost                   // JSON string "addr:port n of label"
	pIndex                  // decimal self index + off
	pCond                   // self index == 0 ? a : b
	pMPIDir                 // the topology's MPI directory (Options.MPIDirRunTime)
	pVar                    // the shell variable lit (Shell: a piece the shared stage computed)
	pNode                   // the evaluating task's node: its name (n 0) or address (n 1)
)

// part is one piece of a value expression. Parts that refer to a task name
// the role by its position in the job and the task by its index (or self).
// A job of N tasks has programs of O(N) parts, so a part is kept small:
// the two branches of a pCond (rare) hang off a pointer.
type part struct {
	kind  partKind
	lit   string
	role  int
	idx   int
	label string
	n     int
	off   int
	alt   *branches // pCond only
}

// branches are a pCond's values: a for the task of index 0, b for the others.
type branches struct{ a, b expr }

// expr is a value: the concatenation of its parts.
type expr []part

type def struct {
	name string
	val  expr
	// first: only the task of index 0 has the variable (PaddleJob's
	// POD_IP_DUMMY); every evaluator leaves it out of the others.
	first bool
}

// program is the contract of one role (and process): every variable, in
// order.
type program struct {
	role int
	defs []def
}

// builder collects a program; set replaces an earlier definition of the
// same name in place (a later contract wins).
type builder struct {
	job   *jobs.Job
	opts  Options
	cs    []string
	self  int
	defs  []def
	index map[string]int
	memo  *memo // nil: nothing is shared with other programs
}

// memo keeps what the programs of one job share whatever role they are
// for: every task's address and port variables and the host lists. They
// are O(N) for a job of N tasks, and every role's program names them all,
// so a job of R roles builds them once instead of R times (the programs
// share the definitions; nothing mutates an expr once built). A Compiled
// owns one and uses it under its lock.
type memo struct {
	exprs map[memoKey]expr
	defs  map[memoKey][]def
}

type memoKey struct {
	what string
	role int
}

// sharedExpr is f() built once per memo and key.
func (b *builder) sharedExpr(what string, role int, f func() expr) expr {
	if b.memo == nil {
		return f()
	}
	key := memoKey{what, role}
	e, ok := b.memo.exprs[key]
	if !ok {
		e = f()
		e = e[:len(e):len(e)] // shared: an append must copy
		b.memo.exprs[key] = e
	}
	return e
}

// setShared sets every definition f() returns, built once per memo and key.
func (b *builder) setShared(what string, role int, f func() []def) {
	var ds []def
	if b.memo == nil {
		ds = f()
	} else {
		key := memoKey{what, role}
		var ok bool
		if ds, ok = b.memo.defs[key]; !ok {
			ds = f()
			b.memo.defs[key] = ds
		}
	}
	for _, d := range ds {
		b.setDef(d)
	}
}

func (b *builder) set(name string, v expr) { b.setDef(def{name: name, val: v}) }

// setFirst sets name on the task of index 0 only. Its value must use self
// (so no evaluator takes it for a variable every task shares) and name
// must be a shell name (the shell rendering guards only an export).
func (b *builder) setFirst(name string, v expr) {
	b.setDef(def{name: name, val: v, first: true})
}

func (b *builder) setDef(d def) {
	if i, ok := b.index[d.name]; ok {
		b.defs[i] = d
		return
	}
	b.index[d.name] = len(b.defs)
	b.defs = append(b.defs, d)
}

func (b *builder) setLit(name, v string) { b.set(name, lit(v)) }

// build makes the program of role k. It runs every check first, so a
// program that builds can be rendered.
func build(job *jobs.Job, k int, opts Options) (*program, error) {
	cs, err := contracts(job, opts)
	if err != nil {
		return nil, err
	}
	if err := check(job, cs, opts); err != nil {
		return nil, err
	}
	return assemble(job, k, cs, opts, nil), nil
}

// assemble makes the program of role k of a checked job; m (nil: none)
// keeps what the job's programs share.
func assemble(job *jobs.Job, k int, cs []string, opts Options, m *memo) *program {
	// every task has a few variables of its own in every program: size
	// the index for them at once
	b := &builder{job: job, opts: opts, cs: cs, self: k, memo: m,
		defs: make([]def, 0, 64+6*job.TaskCount()), index: make(map[string]int, 64+6*job.TaskCount())}
	// first, whatever contracts the job has: a contract's variable of the
	// same name replaces it (see fieldRefs)
	b.fieldRefs()
	for _, c := range cs {
		switch c {
		case jobs.ContractPAI:
			b.pai()
		case jobs.ContractPAIYarn:
			b.yarn()
		case jobs.ContractLeinao:
			b.leinao()
		case jobs.ContractTF:
			b.tf()
		case jobs.ContractUAI:
			b.uai()
		case jobs.ContractTorch:
			b.torch()
		case jobs.ContractMPI:
			b.mpi()
		case jobs.ContractXGBoost:
			b.xgboost()
		case jobs.ContractPaddle:
			b.paddle()
		case jobs.ContractJAX:
			b.jax()
		case jobs.ContractMXNet:
			b.mxnet()
		case jobs.ContractTrainerTorch:
			b.trainerTorch()
		case jobs.ContractTrainerMPI:
			b.trainerMPI()
		case jobs.ContractTrainerJAX:
			b.trainerJAX()
		case jobs.ContractTrainerXGBoost:
			b.trainerXGBoost()
		case jobs.ContractVolcano:
			b.volcano()
		}
	}
	if opts.SSH {
		b.ssh()
	}
	return &program{role: k, defs: b.defs}
}

func lit(s string) expr { return expr{{kind: pLit, lit: s}} }

func addr(k, i int) expr { return expr{{kind: pAddr, role: k, idx: i}} }

func ports(k, i int, label string) expr {
	return expr{{kind: pPorts, role: k, idx: i, label: label}}
}

func port(k, i int, label string, n int) expr {
	return expr{{kind: pPort, role: k, idx: i, label: label, n: n}}
}

func host(k, i int, label string, n int) expr {
	return expr{{kind: pHost, role: k, idx: i, label: label, n: n}}
}

// mpiDirExpr is the directory of an MPIJob's files: the target's run-time
// directory, its literal one, or the operator's /etc/mpi.
func (b *builder) mpiDirExpr() expr {
	switch {
	case b.opts.MPIDirRunTime:
		return expr{{kind: pMPIDir}}
	case b.opts.MPIDir != "":
		return lit(b.opts.MPIDir)
	}
	return lit(MPIDefaultDir)
}

func index(off int) expr { return expr{{kind: pIndex, off: off}} }

func cond(first, other expr) expr {
	return expr{{kind: pCond, alt: &branches{first, other}}}
}

// cat concatenates expressions, merging neighbouring literals.
func cat(es ...expr) expr {
	var b exprBuf
	for _, e := range es {
		b.add(e)
	}
	return b.expr()
}

// join joins f(i) for every task i of role k with sep.
func join(n int, sep string, f func(i int) expr) expr {
	var b exprBuf
	for i := range n {
		if i > 0 {
			b.addLit(sep)
		}
		b.add(f(i))
	}
	return b.expr()
}

// exprBuf builds an expression, merging neighbouring literals without
// re-copying them (a join of a thousand literal parts is one string). A
// literal that meets no other is kept as it was given: the ":" and ","
// between the parts of a host list cost no allocation.
type exprBuf struct {
	out  expr
	one  string          // the pending literal while it is a single piece
	lit  strings.Builder // the pending literal once pieces were merged
	many bool            // lit holds the pending literal
}

func (b *exprBuf) add(e expr) {
	if b.out == nil && len(e) > 1 {
		b.out = make(expr, 0, len(e))
	}
	for _, p := range e {
		if p.kind == pLit {
			b.addLit(p.lit)
			continue
		}
		b.flush()
		b.out = append(b.out, p)
	}
}

// addPart adds one part that is not a literal.
func (b *exprBuf) addPart(p part) {
	b.flush()
	b.out = append(b.out, p)
}

func (b *exprBuf) addLit(s string) {
	switch {
	case s == "":
	case b.many:
		b.lit.WriteString(s)
	case b.one == "":
		b.one = s
	default:
		b.lit.WriteString(b.one)
		b.lit.WriteString(s)
		b.one, b.many = "", true
	}
}

func (b *exprBuf) flush() {
	switch {
	case b.many:
		b.out = append(b.out, part{kind: pLit, lit: b.lit.String()})
		b.lit = strings.Builder{} // String shares the buffer: start a new one
		b.many = false
	case b.one != "":
		b.out = append(b.out, part{kind: pLit, lit: b.one})
		b.one = ""
	}
}

func (b *exprBuf) expr() expr {
	b.flush()
	if b.out == nil {
		return expr{}
	}
	return b.out
}

// jsonString is Go's encoding of s as a JSON string, the form the
// Kubeflow operators (Go) wrote.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (e expr) eval(topo Topology, selfIdx int) string {
	var b strings.Builder
	e.evalTo(&b, topo, selfIdx)
	return b.String()
}

func (e expr) evalTo(b *strings.Builder, topo Topology, selfIdx int) {
	for _, p := range e {
		i := p.idx
		if i == self {
			i = selfIdx
		}
		switch p.kind {
		case pLit:
			b.WriteString(p.lit)
		case pAddr:
			b.WriteString(topo.Roles[p.role].Tasks[i].Addr)
		case pPorts:
			for n, v := range topo.Roles[p.role].Tasks[i].Ports[p.label] {
				if n > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(v))
			}
		case pPort:
			b.WriteString(strconv.Itoa(topo.Roles[p.role].Tasks[i].Ports[p.label][p.n]))
		case pHost:
			t := topo.Roles[p.role].Tasks[i]
			b.WriteString(jsonString(t.Addr + ":" + strconv.Itoa(t.Ports[p.label][p.n])))
		case pMPIDir:
			b.WriteString(topo.MPIDir)
		case pNode:
			t := topo.Roles[p.role].Tasks[selfIdx]
			b.WriteString([]string{t.Node, t.NodeAddr}[p.n])
		case pIndex:
			b.WriteString(strconv.Itoa(selfIdx + p.off))
		case pCond:
			if selfIdx == 0 {
				p.alt.a.evalTo(b, topo, selfIdx)
			} else {
				p.alt.b.evalTo(b, topo, selfIdx)
			}
		}
	}
}

// static reports whether e is a plain literal, and its text.
func (e expr) static() (string, bool) {
	switch len(e) {
	case 0:
		return "", true
	case 1:
		if e[0].kind == pLit {
			return e[0].lit, true
		}
	}
	return "", false
}
