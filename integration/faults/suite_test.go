package faults_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
)

// measured is one case's result, for BENCHMARKS.md.
type measured struct {
	Engine, Case     string
	FaultToVerdict   time.Duration // to the faulted attempt's verdict (0: not observable)
	Detection        time.Duration // kill-host: to the engine declaring the host down
	FaultToLastEnded time.Duration // to the last task of the faulted attempt ended
	Total            time.Duration // submit -> checks done
	Phase            string
	Attempts         int
	Passed           bool
}

var (
	resultsMu sync.Mutex
	results   []measured
)

// TestFaults runs every case on both engines (-run TestFaults/nomad/NAME
// picks one).
func TestFaults(t *testing.T) {
	// after the parallel engine subtests
	t.Cleanup(func() { writeResults(t) })
	for _, engine := range []string{"nomad", "slurm"} {
		t.Run(engine, func(t *testing.T) {
			// the engines' clusters are apart: both at once halves the
			// suite's time (CI budget); the cases of one engine run in turn
			t.Parallel()
			c := need(t, engine)
			for _, fc := range cases() {
				if !slices.Contains(fc.engines, engine) {
					continue
				}
				t.Run(fc.name, func(t *testing.T) { runCase(t, c, fc) })
			}
		})
	}
}

// writeResults logs the measurements and appends them as JSON lines to
// $JOBSHIFT_FAULTS_OUT when set.
func writeResults(t *testing.T) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	var f *os.File
	if p := os.Getenv("JOBSHIFT_FAULTS_OUT"); p != "" {
		var err error
		if f, err = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			t.Error(err)
		} else {
			defer f.Close()
		}
	}
	for _, m := range results {
		t.Logf("%-6s %-32s fault->verdict %6.2fs fault->last ended %6.2fs (host down after %5.2fs) total %5.1fs %s/%d passed=%v",
			m.Engine, m.Case, m.FaultToVerdict.Seconds(), m.FaultToLastEnded.Seconds(), m.Detection.Seconds(), m.Total.Seconds(), m.Phase, m.Attempts, m.Passed)
		if f != nil {
			b, _ := json.Marshal(m)
			fmt.Fprintf(f, "%s\n", b)
		}
	}
	results = nil
}

// caseRun is one case in progress.
type caseRun struct {
	t        *testing.T
	c        *cluster
	fc       fcase
	plan     *translate.Plan
	file     string // the rendered job file
	rec      string // the tasks' record directory
	start    time.Time
	fault    time.Time
	verdict  time.Time // the faulted attempt's verdict, when observed
	detected time.Time // the engine declared the killed host down
	final    *drivers.Result
	finalAt  time.Time // when the final event came
	nomad    *api.Client
	jobID    string
	mu       sync.Mutex
	events   []drivers.Event
}

// render writes the case's job file: the template with its variables, the
// task program and the record directory filled in.
func render(t *testing.T, fc fcase, rec string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "integration", "faults", "testdata", fc.job))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("f%d", time.Now().UnixNano()%1e9)
	r := []string{"@T@", "sh " + filepath.Join(repoRoot(), "integration", "faults", "testdata", "task.sh") + " " + rec, "@NAME@", name}
	for k, v := range fc.vars {
		r = append(r, "@"+k+"@", v)
	}
	s := strings.NewReplacer(r...).Replace(string(b))
	f := filepath.Join(t.TempDir(), name+filepath.Ext(fc.job))
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func (cr *caseRun) loadPlan() {
	t := cr.t
	site := *cr.c.Site
	if cr.fc.site != nil {
		var e siteEdit
		cr.fc.site(&e)
		if e.slurmTimeLimit != "" && site.Slurm != nil {
			sl := *site.Slurm
			sl.TimeLimit = e.slurmTimeLimit
			site.Slurm = &sl
		}
	}
	job, diags := load.Load(cr.file, jobs.ReadOptions{Path: cr.file})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", cr.file, diags)
	}
	plan, diags := translate.Build(job, &site, nil, "ci")
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	plan.Options = map[string]string{}
	cr.plan = plan
}

func runCase(t *testing.T, c *cluster, fc fcase) {
	// the record directory under /tmp: every host sees it, and its path in
	// a command line marks the case's processes
	rec, err := os.MkdirTemp("", "jsf-rec-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rec) })
	cr := &caseRun{t: t, c: c, fc: fc, rec: rec, start: time.Now()}
	cr.file = render(t, fc, rec)
	cr.loadPlan()
	ctx, cancel := context.WithTimeout(context.Background(), fc.limit)
	defer cancel()
	m := measured{Engine: c.Engine, Case: fc.name}
	defer func() {
		m.Total = time.Since(cr.start)
		m.Passed = !t.Failed()
		resultsMu.Lock()
		results = append(results, m)
		resultsMu.Unlock()
	}()

	switch fc.fault {
	case killRun:
		cr.runCLIKilled(ctx)
	case killController:
		cr.runControllerKilled(ctx)
	default:
		cr.runInProcess(ctx)
	}
	if cr.final == nil {
		t.Fatalf("no verdict within %s", fc.limit)
	}
	m.Phase, m.Attempts = string(cr.final.Phase), cr.final.Attempts
	recs := readRecords(t, rec)
	for _, r := range recs {
		t.Logf("record: %v", r)
	}
	cr.checkLeftovers()
	checkNoProcess(t, rec)
	checkNoOverlap(t, recs)
	cr.checkOutcome(recs, &m)
}

// checkOutcome compares the verdict and the records with the case's want.
func (cr *caseRun) checkOutcome(recs []record, m *measured) {
	t, w := cr.t, cr.fc.want
	if cr.final.Phase != w.phase || cr.final.Attempts != w.attempts {
		t.Errorf("verdict %s after %d attempt(s) (%s), want %s after %d", cr.final.Phase, cr.final.Attempts, cr.final.Reason, w.phase, w.attempts)
	}
	if w.reason != "" && !strings.Contains(cr.final.Reason, w.reason) {
		t.Errorf("reason %q, want it to mention %q", cr.final.Reason, w.reason)
	}
	byAttempt := attempts(recs)
	if len(byAttempt) != w.attempts {
		t.Errorf("the tasks' records show %d attempt(s), want %d", len(byAttempt), w.attempts)
	}
	total := cr.plan.Job.TaskCount()
	for a, rs := range byAttempt {
		tasks := map[string]bool{}
		for _, r := range rs {
			tasks[r.task] = true
		}
		if len(tasks) != total {
			t.Errorf("attempt %d: %d of %d tasks left records", a, len(tasks), total)
		}
	}
	first := byAttempt[0]
	if cr.fc.target != "" && cr.fc.fault == killTask {
		n := 0
		for _, r := range first {
			if r.task == cr.fc.target {
				n++
			}
		}
		if n-1 != w.restarts {
			t.Errorf("%s ran %d time(s) in attempt 0, want %d restart(s) in place", cr.fc.target, n, w.restarts)
		}
	}
	last := lastEnd(first)
	if cr.fc.fault == noFault {
		// the deadline is the fault: its first SIGTERM, to the verdict
		// (the final event) and to the last task ended
		for _, r := range first {
			if r.termAt.After(time.Time{}) && (cr.fault.IsZero() || r.termAt.Before(cr.fault)) {
				cr.fault = r.termAt
			}
		}
		cr.verdict = cr.finalAt
	}
	if !cr.fault.IsZero() {
		m.FaultToLastEnded = last.Sub(cr.fault)
		if !cr.verdict.IsZero() {
			m.FaultToVerdict = cr.verdict.Sub(cr.fault)
		}
	}
	if w.verdictWithin > 0 && m.FaultToVerdict > w.verdictWithin {
		t.Errorf("fault -> verdict %s, want at most %s", m.FaultToVerdict, w.verdictWithin)
	}
	if cr.fc.fault == killHost {
		cr.mu.Lock()
		det := cr.detected
		cr.mu.Unlock()
		if det.IsZero() {
			t.Errorf("the engine never declared the killed host down")
		} else {
			m.Detection = det.Sub(cr.fault)
			t.Logf("host declared down %s after the kill", m.Detection)
			if cr.verdict.IsZero() || cr.verdict.Sub(det) > 10*time.Second {
				t.Errorf("host lost -> verdict %s, detection %s: want the verdict within the detection time + 10 s", m.FaultToVerdict, m.Detection)
			}
		}
	}
	if w.stopWithin > 0 && !cr.verdict.IsZero() && last.Sub(cr.verdict) > w.stopWithin {
		t.Errorf("verdict -> last task of attempt 0 ended %s, want at most %s", last.Sub(cr.verdict), w.stopWithin)
	}
	if w.terminated {
		for _, r := range byAttempt[len(byAttempt)-1] {
			if r.term != "TERM" || !r.ckpt {
				t.Errorf("%v: want SIGTERM and its checkpoint written (term %q, checkpoint %v)", r, r.term, r.ckpt)
			}
		}
	}
}

// waitStarted waits until every task of attempt 0 has written its start
// record, then for the case's delay.
func (cr *caseRun) waitStarted(ctx context.Context) bool {
	total := cr.plan.Job.TaskCount()
	for ctx.Err() == nil {
		tasks := map[string]bool{}
		for _, r := range readRecords(cr.t, cr.rec) {
			if r.attempt == 0 {
				tasks[r.task] = true
				if cr.jobID == "" {
					cr.jobID = r.job
				}
			}
		}
		if len(tasks) == total {
			select {
			case <-time.After(cr.fc.after):
			case <-ctx.Done():
			}
			return ctx.Err() == nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// targetRecord is the running process of the case's target task.
func (cr *caseRun) targetRecord() record {
	for _, r := range readRecords(cr.t, cr.rec) {
		if r.task == cr.fc.target && r.attempt == 0 && !r.ended {
			return r
		}
	}
	cr.t.Fatalf("no running process of %s", cr.fc.target)
	return record{}
}

// targetHost is the host of the case's target: its task's, or the Slurm
// batch script's (scontrol's BatchHost).
func (cr *caseRun) targetHost() string {
	if cr.fc.target != batchHost {
		return cr.targetRecord().host
	}
	out, err := exec.Command("scontrol", "show", "job", "-o", cr.jobID).Output()
	if err != nil {
		cr.t.Fatalf("scontrol show job %s: %v", cr.jobID, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if h, ok := strings.CutPrefix(f, "BatchHost="); ok {
			return h
		}
	}
	cr.t.Fatalf("job %s has no BatchHost: %s", cr.jobID, out)
	return ""
}

// inject applies the case's fault (kill-run and kill-controller are done
// by their runners).
func (cr *caseRun) inject(ctx context.Context) {
	t, e := cr.t, cr.c.Engine
	var err error
	switch cr.fc.fault {
	case killTask:
		r := cr.targetRecord()
		cr.fault = time.Now()
		err = syscall.Kill(r.pid, syscall.SIGKILL)
	case killHost:
		host := cr.targetHost()
		t.Cleanup(func() {
			// the host back, as a repaired machine rejoins
			if out, err := suite.Sh("up", e, fmt.Sprint(suite.Hosts[e])); err != nil {
				t.Errorf("bringing %s back: %v\n%s", host, err, out)
			}
		})
		cr.fault = time.Now()
		cr.watchDetection(ctx, host)
		_, err = suite.Sh("kill-host", e, host)
	case restartAgent:
		r := cr.targetRecord()
		cr.fault = time.Now()
		_, err = suite.Sh("restart-agent", e, r.host)
	case restartServer:
		cr.fault = time.Now()
		_, err = suite.Sh("restart-server", e)
	}
	t.Logf("fault %s %s at %s", cr.fc.fault, cr.fc.target, cr.fault.Format("15:04:05.000"))
	if err != nil {
		t.Fatalf("injecting %s: %v", cr.fc.fault, err)
	}
}
