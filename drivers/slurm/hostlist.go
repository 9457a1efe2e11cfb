package slurm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrHostlist is returned for a Slurm hostlist or tasks-per-node string that
// does not parse.
var ErrHostlist = errors.New("invalid hostlist")

// ExpandHostlist expands a Slurm compressed hostlist ("n[01-03,7],gpu-a[1-2]")
// in Slurm's own order: items left to right, ranges in the order written, the
// first bracket group varying slowest. Zero padding is kept (the width is the
// length of the range's low bound, as `scontrol show hostnames` does) and
// names are never sorted: the order is the allocation's block order, which is
// what maps task ordinals to nodes (spec/slurm.md §4; sorting and dropping
// padding are the classic resolver bugs, §8.2).
//
// The embedded shell function js_hostlist implements the same grammar and is
// tested against this one.
func ExpandHostlist(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	items, err := splitTop(s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		// Slurm rejects text after the last bracket group ("n[1-2]x").
		if strings.IndexByte(it, '[') >= 0 && !strings.HasSuffix(it, "]") {
			return nil, fmt.Errorf("%w: text after the last ']' in %q", ErrHostlist, it)
		}
		names, err := expandItem(it)
		if err != nil {
			return nil, err
		}
		out = append(out, names...)
	}
	return out, nil
}

// splitTop splits at commas outside brackets.
func splitTop(s string) ([]string, error) {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			if depth > 0 {
				return nil, fmt.Errorf("%w: nested '[' in %q", ErrHostlist, s)
			}
			depth++
		case ']':
			if depth == 0 {
				return nil, fmt.Errorf("%w: unbalanced ']' in %q", ErrHostlist, s)
			}
			depth--
		case ',':
			if depth == 0 {
				items = append(items, s[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%w: unbalanced '[' in %q", ErrHostlist, s)
	}
	items = append(items, s[start:])
	for _, it := range items {
		if it == "" {
			return nil, fmt.Errorf("%w: empty name in %q", ErrHostlist, s)
		}
	}
	return items, nil
}

// expandItem expands one item, first bracket group outermost.
func expandItem(it string) ([]string, error) {
	open := strings.IndexByte(it, '[')
	if open < 0 {
		return []string{it}, nil
	}
	closeAt := strings.IndexByte(it[open:], ']') + open
	prefix, ranges, suffix := it[:open], it[open+1:closeAt], it[closeAt+1:]
	rest, err := expandItem("x" + suffix) // "x": keep an empty suffix a valid item
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		nums, err := expandRange(r)
		if err != nil {
			return nil, fmt.Errorf("%w in %q", err, it)
		}
		for _, n := range nums {
			for _, s := range rest {
				out = append(out, prefix+n+s[1:])
			}
		}
	}
	return out, nil
}

func expandRange(r string) ([]string, error) {
	lo, hi, isRange := strings.Cut(r, "-")
	if !isRange {
		hi = lo
	}
	if !allDigits(lo) || !allDigits(hi) {
		return nil, fmt.Errorf("%w: range %q is not N or N-M", ErrHostlist, r)
	}
	a, errA := strconv.Atoi(lo)
	b, errB := strconv.Atoi(hi)
	if errA != nil || errB != nil || a > b {
		return nil, fmt.Errorf("%w: invalid range %q", ErrHostlist, r)
	}
	if b-a >= 1<<16 {
		return nil, fmt.Errorf("%w: range %q too large", ErrHostlist, r)
	}
	out := make([]string, 0, b-a+1)
	for n := a; n <= b; n++ {
		out = append(out, fmt.Sprintf("%0*d", len(lo), n))
	}
	return out, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ExpandTasksPerNode expands SLURM_TASKS_PER_NODE syntax ("2(x3),1") into one
// count per node.
func ExpandTasksPerNode(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		count, rep := p, "1"
		if i := strings.IndexByte(p, '('); i >= 0 {
			if !strings.HasPrefix(p[i:], "(x") || !strings.HasSuffix(p, ")") {
				return nil, fmt.Errorf("%w: tasks-per-node item %q", ErrHostlist, p)
			}
			count, rep = p[:i], p[i+2:len(p)-1]
		}
		if !allDigits(count) || !allDigits(rep) {
			return nil, fmt.Errorf("%w: tasks-per-node item %q", ErrHostlist, p)
		}
		c, _ := strconv.Atoi(count)
		n, _ := strconv.Atoi(rep)
		for k := 0; k < n; k++ {
			out = append(out, c)
		}
	}
	return out, nil
}
