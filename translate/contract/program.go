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
)

// part is one piece of a value expression. Parts that refer to a task name
// the role by its position in the job and the task by its index (or self).
type part struct {
	kind  partKind
	lit   string
	role  int
	idx   int
	label string
	n     int
	off   int
	a, b  expr
}

// expr is a value: the concatenation of its parts.
type expr []part

type def struct {
	name string
	val  expr
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
}

func (b *builder) set(name string, v expr) {
	if i, ok := b.index[name]; ok {
		b.defs[i].val = v
		return
	}
	b.index[name] = len(b.defs)
	b.defs = append(b.defs, def{name, v})
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
	return assemble(job, k, cs, opts), nil
}

// assemble makes the program of role k of a checked job.
func assemble(job *jobs.Job, k int, cs []string, opts Options) *program {
	b := &builder{job: job, opts: opts, cs: cs, self: k, index: map[string]int{}}
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

func cond(first, other expr) expr { return expr{{kind: pCond, a: first, b: other}} }

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
			b.lit.WriteString(sep)
		}
		b.add(f(i))
	}
	return b.expr()
}

// exprBuf builds an expression, merging neighbouring literals without
// re-copying them (a join of a thousand literal parts is one string).
type exprBuf struct {
	out expr
	lit strings.Builder
}

func (b *exprBuf) add(e expr) {
	for _, p := range e {
		if p.kind == pLit {
			b.lit.WriteString(p.lit)
			continue
		}
		b.flush()
		b.out = append(b.out, p)
	}
}

func (b *exprBuf) flush() {
	if b.lit.Len() > 0 {
		b.out = append(b.out, part{kind: pLit, lit: b.lit.String()})
		b.lit.Reset()
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
		case pIndex:
			b.WriteString(strconv.Itoa(selfIdx + p.off))
		case pCond:
			if selfIdx == 0 {
				p.a.evalTo(b, topo, selfIdx)
			} else {
				p.b.evalTo(b, topo, selfIdx)
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
