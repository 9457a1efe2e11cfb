package local

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// groupMembers lists the live (not zombie) processes of process group pgid,
// read from /proc. A zombie has exited; it only waits for its parent (init,
// for orphans) to reap it, so it does not count.
func groupMembers(pgid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command (which is in parentheses and may hold
		// spaces): state ppid pgrp ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 || string(f[0]) == "Z" || string(f[0]) == "X" {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits until process group pgid has no live process, up to
// limit; it reports whether the group is gone.
func waitGroupGone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if len(groupMembers(pgid)) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Leftovers lists the processes still alive in the process groups of every
// task start recorded under runDir (the pid files, including those of UAI
// parameter-server processes): empty once a run has
// ended cleanly. Processes that left their task's group (setsid, daemons)
// are not tracked, as on any process-group based supervisor.
func Leftovers(runDir string) ([]int, error) {
	pids, err := filepath.Glob(filepath.Join(runDir, "*", "attempt-*", "pid"))
	if err != nil {
		return nil, err
	}
	// UAI parameter-server processes (psDir).
	ps, err := filepath.Glob(filepath.Join(runDir, "*", "attempt-*", "ps", "pid"))
	if err != nil {
		return nil, err
	}
	pids = append(pids, ps...)
	var out []int
	for _, f := range pids {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, groupMembers(pgid)...)
	}
	return out, nil
}
