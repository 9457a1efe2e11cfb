package contract

import (
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// A contract names every task's address and ports (PAI_HOST_IP_<role>_<i>,
// PAI_PORT_LIST_<role>_<i>_<label>, ...): O(N) definitions per program.
// Written out one line each, a Nomad template of a 1,000-task PAI job is
// half a megabyte, and every allocation's client keeps its own copy of the
// job and the parsed template: O(N²) agent memory per job (a 1,000-task
// PAI job ran the client agents out of memory). The Nomad rendering
// writes such a run as one template loop over the role's tasks instead,
// so its text is O(roles) whatever the job's size.

// loopIdx is the index of a part inside a template loop over a role's
// tasks: the loop's variable $i.
const loopIdx = -2

// family is a run of definitions the program makes once per task of a
// role: block definitions per task, tasks times, starting at defs[start].
// For task i, item b is named prefix + i + suffix and has the value val
// with loopIdx standing for i.
type family struct {
	start, block, tasks int
	items               []famItem
}

type famItem struct {
	prefix, suffix string
	val            expr
}

// families finds, in order, the runs of defs that are one block of
// definitions per task of a role, for task 0, 1, ... (at least two). Only
// what checks exactly is a family: every name and value of the run equals
// its item's for that task, so writing a family as a loop renders the
// same lines as writing its definitions out.
func families(defs []def) []family {
	var out []family
	for j := 0; j < len(defs); {
		k, i, ok := taskOf(defs[j].val)
		if !ok || i != 0 {
			j++
			continue
		}
		b := 1
		for j+b < len(defs) && isTask(defs[j+b].val, k, 0) {
			b++
		}
		f, ok := familyAt(defs, j, b, k)
		if !ok {
			j += b
			continue
		}
		out = append(out, f)
		j += f.block * f.tasks
	}
	return out
}

// familyAt is the family of the block of b definitions of role k's task 0
// at defs[j], if the next block is task 1's of the same shape.
func familyAt(defs []def, j, b, k int) (family, bool) {
	if j+2*b > len(defs) {
		return family{}, false
	}
	f := family{start: j, block: b, items: make([]famItem, b)}
	for n := range b {
		d0, d1 := defs[j+n], defs[j+b+n]
		if !isTask(d1.val, k, 1) {
			return family{}, false
		}
		cp := commonPrefix(d0.name, d1.name)
		if cp >= len(d0.name) || cp >= len(d1.name) || d0.name[cp] != '0' || d1.name[cp] != '1' || d0.name[cp+1:] != d1.name[cp+1:] {
			return family{}, false
		}
		f.items[n] = famItem{prefix: d0.name[:cp], suffix: d0.name[cp+1:], val: d0.val.withIndex(0, loopIdx)}
	}
	for i := 0; j+(i+1)*b <= len(defs); i++ {
		if !f.blockIs(defs[j+i*b:j+(i+1)*b], i) {
			break
		}
		f.tasks = i + 1
	}
	return f, f.tasks >= 2
}

// blockIs reports whether ds are exactly the family's definitions of task i.
func (f *family) blockIs(ds []def, i int) bool {
	is := strconv.Itoa(i)
	for n, it := range f.items {
		d := ds[n]
		if len(d.name) != len(it.prefix)+len(is)+len(it.suffix) || !strings.HasPrefix(d.name, it.prefix) ||
			d.name[len(it.prefix):len(it.prefix)+len(is)] != is || !strings.HasSuffix(d.name, it.suffix) ||
			!d.val.equal(it.val.withIndex(loopIdx, i)) {
			return false
		}
	}
	return true
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// taskOf is the task (role k, index i) every part of e that names a task
// refers to; ok is false when no part does, when parts name different
// tasks or the evaluating task, or when e depends on the evaluating task
// in another way.
func taskOf(e expr) (k, i int, ok bool) {
	found := false
	for _, p := range e {
		switch p.kind {
		case pLit, pMPIDir:
		case pAddr, pPorts, pPort, pHost:
			if p.idx < 0 || found && (p.role != k || p.idx != i) {
				return 0, 0, false
			}
			k, i, found = p.role, p.idx, true
		default:
			return 0, 0, false
		}
	}
	return k, i, found
}

func isTask(e expr, k, i int) bool {
	k2, i2, ok := taskOf(e)
	return ok && k2 == k && i2 == i
}

// withIndex is e with every task part of index from given index to.
func (e expr) withIndex(from, to int) expr {
	out := make(expr, len(e))
	copy(out, e)
	for n := range out {
		switch out[n].kind {
		case pAddr, pPorts, pPort, pHost:
			if out[n].idx == from {
				out[n].idx = to
			}
		}
	}
	return out
}

// writeFamily writes f as one loop over the role's tasks: the lines of
// its definitions for every task, as nomadTemplate writes a definition.
func (t *tmpl) writeFamily(f family, job *jobs.Job) {
	w := &t.out
	// No "{{-": the loop's first line follows the previous line's "\n".
	w.WriteString("{{ range $i := loop ")
	w.WriteString(strconv.Itoa(f.tasks))
	w.WriteString(" }}")
	var line []byte
	for _, it := range f.items {
		line = append(append(t.lineStart(line[:0]), it.prefix...), "{{ $i }}"...)
		line = t.appendDef(append(line, it.suffix...), job, it.val)
		w.Write(line)
	}
	w.WriteString("{{ end -}}\n")
}
