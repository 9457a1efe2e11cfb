package contract

import (
	"strings"
	"sync"

	"github.com/jobshift/jobshift/jobs"
)

// Compiled is the contract of one job, compiled once: the job checked
// once, and each role's program (per process, see Processes) built on
// first use and kept. Eval, EvalAll, Shell and NomadTemplate are this
// with a fresh Compiled; callers that evaluate or render many tasks of
// one job (explain -env, the local driver, the Nomad driver) keep one.
// A Compiled is safe for concurrent use.
type Compiled struct {
	job   *jobs.Job
	opts  Options // Process is ignored: every process has its program
	cs    []string
	procs []string

	mu    sync.Mutex
	progs map[progKey]*program
	memo  memo // what the programs share, built under mu
}

type progKey struct {
	role int
	proc string
}

// Compile checks job against the contracts opts selects (opts.Process is
// ignored) and returns its compiled contract.
func Compile(job *jobs.Job, opts Options) (*Compiled, error) {
	if job == nil {
		return nil, errNoJob
	}
	opts.Process = ProcessMain
	cs, err := contracts(job, opts)
	if err != nil {
		return nil, err
	}
	if err := check(job, cs, opts); err != nil {
		return nil, err
	}
	return &Compiled{job: job, opts: opts, cs: cs, procs: Processes(job, opts), progs: map[progKey]*program{},
		memo: memo{exprs: map[memoKey]expr{}, defs: map[memoKey][]def{}}}, nil
}

// Job is the job c was compiled for.
func (c *Compiled) Job() *jobs.Job { return c.job }

// Processes are the processes every task runs (see Processes).
func (c *Compiled) Processes() []string { return c.procs }

// program is role k's program for process proc, built once.
func (c *Compiled) program(k int, proc string) (*program, error) {
	if proc != ProcessMain && !has(c.procs, proc) {
		o := c.opts
		o.Process = proc
		return nil, check(c.job, c.cs, o) // the check's message says why
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := progKey{k, proc}
	if p, ok := c.progs[key]; ok {
		return p, nil
	}
	o := c.opts
	o.Process = proc
	p := assemble(c.job, k, c.cs, o, &c.memo)
	c.progs[key] = p
	return p, nil
}

// task resolves self to a role position, checking the index.
func (c *Compiled) task(self jobs.TaskRef) (int, error) {
	job := c.job
	k := roleIndex(job, self.Role)
	if k < 0 {
		return -1, fail(ErrTopology, job.NamePos, "Unknown task", "task %s-%d: the job has no role %q.", self.Role, self.Index, self.Role)
	}
	if self.Index < 0 || self.Index >= job.Roles[k].Instances {
		return -1, fail(ErrTopology, job.Roles[k].Pos, "Unknown task", "task %s-%d: role %q has %d instances.", self.Role, self.Index, self.Role, job.Roles[k].Instances)
	}
	return k, nil
}

// Bound is a Compiled contract on one topology: the topology checked
// once, and every value's task-independent parts (host lists, every
// task's address and port variables, the cluster part of TF_CONFIG)
// evaluated once per role and process, so each task's environment costs
// only its own few parts. Safe for concurrent use.
type Bound struct {
	c    *Compiled
	topo Topology

	mu     sync.Mutex
	folded map[progKey][]def
	own    map[progKey][]int // positions of the variables not Shared

	sharedOnce sync.Once
	shared     Env
	sharedErr  error
}

// Bind checks topo against the job and binds c to it.
func (c *Compiled) Bind(topo Topology) (*Bound, error) {
	if err := checkTopology(c.job, topo, c.opts); err != nil {
		return nil, err
	}
	return c.bound(topo), nil
}

// bound binds c to a topology already checked.
func (c *Compiled) bound(topo Topology) *Bound {
	return &Bound{c: c, topo: topo, folded: map[progKey][]def{}, own: map[progKey][]int{}}
}

// Env is the environment of process proc (ProcessMain or ProcessPS) of
// task self.
func (b *Bound) Env(self jobs.TaskRef, proc string) (Env, error) {
	k, err := b.c.task(self)
	if err != nil {
		return nil, err
	}
	defs, err := b.defs(k, proc)
	if err != nil {
		return nil, err
	}
	env := make(Env, 0, len(defs))
	for _, d := range defs {
		if d.first && self.Index != 0 {
			continue
		}
		if s, ok := d.val.static(); ok {
			env = append(env, Var{d.name, s}) // shared by every task: no copy
			continue
		}
		env = append(env, Var{d.name, d.val.eval(b.topo, self.Index)})
	}
	return env, nil
}

// Shared are the variables every task (and process) of the job gets with
// the same value, in the order of the first role's program; Own(self,
// proc) is the rest of that task's environment. Together they are
// Env(self, proc) (in another order): explain -env prints them that way.
// Computed once per Bound.
func (b *Bound) Shared() (Env, error) {
	b.sharedOnce.Do(func() { b.shared, b.sharedErr = b.computeShared() })
	return b.shared, b.sharedErr
}

func (b *Bound) computeShared() (Env, error) {
	var shared Env
	first := true
	keep := map[string]string{}
	for k, r := range b.c.job.Roles {
		if r.Instances == 0 {
			continue
		}
		for _, proc := range b.c.procs {
			defs, err := b.defs(k, proc)
			if err != nil {
				return nil, err
			}
			seen := make(map[string]bool, len(defs))
			for _, d := range defs {
				s, ok := d.val.static()
				if !ok || d.first {
					continue
				}
				if first {
					keep[d.name] = s
					shared = append(shared, Var{d.name, s})
					seen[d.name] = true
				} else if v, ok := keep[d.name]; ok && v == s {
					seen[d.name] = true
				}
			}
			for n := range keep {
				if !seen[n] {
					delete(keep, n)
				}
			}
			first = false
		}
	}
	out := shared[:0]
	for _, v := range shared {
		if _, ok := keep[v.Name]; ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// Own is task self's environment without the Shared variables: only its
// own few are evaluated (the positions are found once per role).
func (b *Bound) Own(self jobs.TaskRef, proc string) (Env, error) {
	k, err := b.c.task(self)
	if err != nil {
		return nil, err
	}
	shared, err := b.Shared()
	if err != nil {
		return nil, err
	}
	defs, err := b.defs(k, proc)
	if err != nil {
		return nil, err
	}
	key := progKey{k, proc}
	b.mu.Lock()
	own, ok := b.own[key]
	if !ok {
		skip := make(map[string]bool, len(shared))
		for _, v := range shared {
			skip[v.Name] = true
		}
		for n, d := range defs {
			if !skip[d.name] {
				own = append(own, n)
			}
		}
		b.own[key] = own
	}
	b.mu.Unlock()
	env := make(Env, 0, len(own))
	for _, i := range own {
		d := defs[i]
		switch s, ok := d.val.static(); {
		case d.first && self.Index != 0:
		case ok:
			env = append(env, Var{d.name, s})
		default:
			env = append(env, Var{d.name, d.val.eval(b.topo, self.Index)})
		}
	}
	return env, nil
}

// defs is role k's program for proc with every value folded on the
// topology.
func (b *Bound) defs(k int, proc string) ([]def, error) {
	p, err := b.c.program(k, proc)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key := progKey{k, proc}
	if f, ok := b.folded[key]; ok {
		return f, nil
	}
	f := make([]def, len(p.defs))
	for n, d := range p.defs {
		f[n] = def{name: d.name, val: d.val.fold(b.topo), first: d.first}
	}
	b.folded[key] = f
	return f, nil
}

// fold evaluates every part of e that does not depend on the task on
// topo: what is left is literals and the parts that name the task itself.
func (e expr) fold(topo Topology) expr {
	var out expr
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, part{kind: pLit, lit: b.String()})
			b.Reset()
		}
	}
	for _, p := range e {
		switch {
		case p.kind == pCond:
			flush()
			out = append(out, part{kind: pCond, alt: &branches{p.alt.a.fold(topo), p.alt.b.fold(topo)}})
		case p.kind == pIndex || p.idx == self && p.kind != pLit:
			flush()
			out = append(out, p)
		default:
			expr{p}.evalTo(&b, topo, 0)
		}
	}
	flush()
	if out == nil {
		out = expr{}
	}
	return out
}
