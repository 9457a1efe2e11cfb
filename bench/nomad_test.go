package bench

// BenchmarkNomadStart measures, on the Nomad dev agent
// (scripts/nomad-dev-start.sh; reused or started by integration/nomad/agent),
// the time from registering a job to every user command started, for the
// job `jobshift run` submits on a site with the jobshift helper and
// jobshift-env (no services; the topology snapshot its watcher writes once
// every allocation is placed; each raw_exec task evaluates its environment
// itself through jobshift-env's nomad-env: drivers/nomad taskenv.go), for
// the same job on a site with the helper only (helper-N: the jobshift
// binary runs nomad-env) and on a site without either (template-N: an env
// template per task reading the snapshot), for the job with the barrier rendezvous of a converted or
// detached job (barrier-N: group services and a prestart barrier task per
// allocation), and for a bare job of identical shape (same groups, counts
// and driver, the same command, no services, barrier or template). It also
// reports, for the snapshot kinds, the snapshot's release: from the
// snapshot Variable's write (server clock) to the last task's environment
// file written. "Started" is when each main task's user command ran (its
// stamp, nomadStartCmd); ms/all-tasks-started is Nomad's StartedAt of the
// tasks' first process; the clock starts just before the register call.
// BenchmarkNomadStop measures the time from the deciding task's exit to
// the job being stopped by the watcher (verdict, deregister) and to every
// allocation having ended.
//
//	go test ./bench -run '^$' -bench Nomad -benchtime 3x

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

func nomadBenchJob(name string, tasks int, cmd string) *jobs.Job {
	one, neg := 1, -1
	ps := max(1, tasks/4)
	mk := func(role string, n int, ms *int) *jobs.Role {
		return &jobs.Role{Name: role, Instances: n, Image: "img",
			Command:   jobs.Command{Kind: jobs.CommandEval, Script: cmd},
			Resources: jobs.Resources{CPUMilli: 100, MemoryMiB: 32},
			Ports:     []jobs.Port{{Label: "SynPort", Count: 1}, {Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}},
			MinFailed: &one, MinSucceeded: ms}
	}
	w := tasks - ps
	return &jobs.Job{Name: name, Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractPAI},
		Roles: []*jobs.Role{mk("ps", ps, &neg), mk("worker", w, &w)}, Completion: jobs.Completion{Kind: jobs.CompletionPAI}}
}

var nomadBenchSite = &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "5m"}}

// nomadBare strips what jobshift adds: services, barrier, templates.
func nomadBare(j *api.Job) *api.Job {
	for _, g := range j.TaskGroups {
		g.Services = nil
		var keep []*api.Task
		for _, t := range g.Tasks {
			if t.Name == nomad.MainTask {
				t.Templates = nil
				withoutTaskView(t)
				keep = append(keep, t)
			}
		}
		g.Tasks = keep
	}
	return j
}

// withoutTaskView runs t's command without the task view's wrapper
// (taskns.Wrap: sh SCRIPT SPEC -- argv): a bare job has no templates, so
// no wrapper script, and what the view costs is jobshift's share.
func withoutTaskView(t *api.Task) {
	args, _ := t.Config["args"].([]string)
	if t.Config["command"] != "sh" || len(args) < 4 || !strings.HasSuffix(args[0], "taskns.sh") || args[2] != "--" {
		return
	}
	t.Config["command"], t.Config["args"] = args[3], args[4:]
}

// nomadAllStarted waits until every main task has started; it returns the
// latest StartedAt.
func nomadAllStarted(b *testing.B, c *api.Client, id string, n int) time.Time {
	deadline := time.Now().Add(5 * time.Minute)
	var index uint64
	for time.Now().Before(deadline) {
		allocs, meta, err := c.Jobs().Allocations(id, false, &api.QueryOptions{WaitIndex: index, WaitTime: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		index = meta.LastIndex
		var last time.Time
		started := 0
		for _, a := range allocs {
			if ts := a.TaskStates[nomad.MainTask]; ts != nil && !ts.StartedAt.IsZero() {
				started++
				if ts.StartedAt.After(last) {
					last = ts.StartedAt
				}
			}
		}
		if started == n {
			return last
		}
	}
	b.Fatalf("job %s: not every task started within 5 minutes", id)
	return time.Time{}
}

func BenchmarkNomadStart(b *testing.B) {
	b.Setenv("NOMAD_ADDR", agent.Addr(b))
	c := agent.Client(b)
	for _, n := range []int{4, 16, 64} {
		for _, kind := range []string{"jobshift", "helper", "sourced", "template", "barrier", "bare"} {
			b.Run(fmt.Sprintf("%s-%d", kind, n), func(b *testing.B) { nomadStartRuns(b, c, kind, n) })
		}
	}
}

// BenchmarkNomadStartRatio measures what BenchmarkNomadStart's jobshift-N
// and bare-N rows do, alternately: each iteration starts one jobshift job
// and one bare job of n tasks, so both see the same host (on 2 cores the
// load drifts by more than the gap between rows run one after the other).
// It reports both kinds' mean and median and their ratios, the figure the
// issue's target is stated in (≤ 1.10 at 16 tasks, ≤ 1.25 at 64), and
// each kind's mean busy CPU of the host over a start (ms-cpu: on 2 cores
// a start is bound by CPU, so this says where a gap comes from), with the
// agent's share (ms-cpu-agent) and this process's (ms-cpu-self: the
// watcher and coordinator `jobshift run` would run); the rest is the
// tasks' processes.
//
//	go test ./bench -run '^$' -bench 'NomadStartRatio/16' -benchtime 20x
func BenchmarkNomadStartRatio(b *testing.B) {
	b.Setenv("NOMAD_ADDR", agent.Addr(b))
	c := agent.Client(b)
	for _, n := range []int{16, 64} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var js, bare []time.Duration
			var jsCPU, bareCPU nomadStages
			// the order alternates, as in BenchmarkSlurmStartRatio: each
			// kind follows the other as often as it leads
			for i := 0; b.Loop(); i++ {
				kinds := []string{"jobshift", "bare"}
				if i%2 == 1 {
					kinds[0], kinds[1] = kinds[1], kinds[0]
				}
				for _, kind := range kinds {
					d, _, st := nomadStartOnce(b, c, kind, n)
					if kind == "jobshift" {
						js = append(js, d)
						jsCPU.add(st)
					} else {
						bare = append(bare, d)
						bareCPU.add(st)
					}
				}
			}
			reportRatio(b, js, bare)
			reportCPU(b, "jobshift", jsCPU, len(js))
			reportCPU(b, "bare", bareCPU, len(bare))
		})
	}
}

// reportCPU reports one kind's mean CPU per start: the host's, the
// agent's and this process's.
func reportCPU(b *testing.B, kind string, st nomadStages, n int) {
	per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(max(1, n)) }
	b.ReportMetric(per(st.busy), "ms-cpu/"+kind)
	b.ReportMetric(per(st.agent), "ms-cpu-agent/"+kind)
	b.ReportMetric(per(st.self), "ms-cpu-self/"+kind)
}

// reportRatio reports an alternated run's jobshift and bare starts: both
// kinds' mean and median, their ratios and the host's load.
func reportRatio(b *testing.B, js, bare []time.Duration) {
	jm, bm := meanOf(js), meanOf(bare)
	b.ReportMetric(float64(jm.Milliseconds()), "ms/jobshift")
	b.ReportMetric(float64(bm.Milliseconds()), "ms/bare")
	b.ReportMetric(float64(median(js).Milliseconds()), "ms/jobshift-median")
	b.ReportMetric(float64(median(bare).Milliseconds()), "ms/bare-median")
	b.ReportMetric(float64(jm)/float64(bm), "ratio-of-means")
	b.ReportMetric(float64(median(js))/float64(median(bare)), "ratio-of-medians")
	b.ReportMetric(load1(), "load1")
}

func meanOf(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(1, len(ds)))
}

// nomadStartRuns runs b.N starts of one kind and reports their mean, the
// timeline's stages (nomadTimeline) and the snapshot's release (mean and
// worst) for jobshift-N.
func nomadStartRuns(b *testing.B, c *api.Client, kind string, n int) {
	var total, release, worst time.Duration
	var tl nomadStages
	var each []time.Duration
	for i := 0; i < b.N; i++ {
		start, rel, stages := nomadStartOnce(b, c, kind, n)
		total += start
		each = append(each, start)
		release += rel
		worst = max(worst, rel)
		tl.add(stages)
	}
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(ms(total), "ms/all-started")
	b.ReportMetric(float64(median(each).Milliseconds()), "ms/all-started-median")
	b.ReportMetric(ms(tl.taskStarted), "ms/all-tasks-started")
	b.ReportMetric(ms(tl.placed), "ms/last-placed")
	b.ReportMetric(ms(tl.received), "ms/last-received")
	b.ReportMetric(ms(tl.perTask), "ms/received-to-started")
	b.ReportMetric(ms(tl.busy), "ms-cpu/host")
	b.ReportMetric(ms(tl.agent), "ms-cpu/agent")
	b.ReportMetric(ms(tl.self), "ms-cpu/self")
	if kind != "bare" && kind != "barrier" {
		b.ReportMetric(ms(tl.snapshot), "ms/snapshot-written")
		b.ReportMetric(ms(release), "ms/release")
		b.ReportMetric(float64(worst.Milliseconds()), "ms/release-max")
	}
	b.ReportMetric(load1(), "load1")
}

// nomadStages is where a start's time goes, from the register call: the
// last allocation created (placed), the last main task received by its
// client, the snapshot's write (jobshift), and per task the mean of
// received → started (the client's own work: hooks, template, launch).
//
// busy is the host's busy CPU over the start, agent the Nomad agent's
// share of it and self this process's (the watcher and coordinator of a
// jobshift kind, the start's polling for every kind): the rest is the
// tasks' processes (executors, log collectors, wrappers, commands).
type nomadStages struct {
	placed, received, snapshot, perTask, taskStarted time.Duration
	busy, agent, self                                time.Duration
}

func (s *nomadStages) add(o nomadStages) {
	s.taskStarted += o.taskStarted
	s.placed += o.placed
	s.received += o.received
	s.snapshot += o.snapshot
	s.perTask += o.perTask
	s.busy += o.busy
	s.agent += o.agent
	s.self += o.self
}

// nomadTimeline reads the stages of job's start from its allocations'
// create times and main task events (server and client clocks: one host).
func nomadTimeline(b *testing.B, c *api.Client, job *api.Job, t0 time.Time) nomadStages {
	allocs, _, err := c.Jobs().Allocations(*job.ID, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	var st nomadStages
	var sum time.Duration
	for _, a := range allocs {
		st.placed = max(st.placed, time.Unix(0, a.CreateTime).Sub(t0))
		ts := a.TaskStates[nomad.MainTask]
		if ts == nil {
			continue
		}
		for _, e := range ts.Events {
			if e.Type == "Received" {
				st.received = max(st.received, time.Unix(0, e.Time).Sub(t0))
				sum += ts.StartedAt.Sub(time.Unix(0, e.Time))
				break
			}
		}
	}
	if len(allocs) > 0 {
		st.perTask = sum / time.Duration(len(allocs))
	}
	if job.Meta[nomad.MetaRendezvous] == nomad.RendezvousSnap {
		for _, g := range job.TaskGroups {
			if v, _, err := c.Variables().Peek(nomad.TopologyPath(*job.ID, *g.Name), nil); err == nil && v != nil {
				st.snapshot = max(st.snapshot, time.Unix(0, v.ModifyTime).Sub(t0))
			}
		}
	}
	return st
}

// nomadStartOnce registers one job of n tasks (kind jobshift, helper,
// sourced, template, barrier, no-finisher or bare), once the host is idle
// (quiesce), and returns the time from the register call
// to the last main task's start, for the snapshot kinds the snapshot's
// release, and the timeline. The snapshot kinds' watcher is the driver's,
// as `jobshift run` runs it (NOMAD_ADDR names c's agent).
func nomadStartOnce(b *testing.B, c *api.Client, kind string, n int) (time.Duration, time.Duration, nomadStages) {
	name := fmt.Sprintf("bench-%s-%d-%d", kind, n, time.Now().UnixNano()%1e9)
	p := &translate.Plan{Job: nomadBenchJob(name, n, nomadStartCmd), Site: nomadBenchSite, User: "bench", Options: map[string]string{}}
	switch kind {
	case "jobshift", "no-finisher", "job-finisher": // what jobshift run submits on a site with the helper and jobshift-env
		p.Options[nomad.OptWatched] = "true"
		p.Options[nomad.OptHelper] = drivertest.Jobshift(b)
		p.Options[nomad.OptEnvHelper] = drivertest.JobshiftEnv(b)
	case "helper": // ... with the helper only: the jobshift binary runs nomad-env
		p.Options[nomad.OptWatched] = "true"
		p.Options[nomad.OptHelper] = drivertest.Jobshift(b)
	case "sourced": // ... and on a site without it: the file env-wait sources
		p.Options[nomad.OptWatched] = "true"
	case "template": // ... or the env template, as a container task has it
		p.Options[nomad.OptWatched] = "true"
		p.Options[nomad.OptEnvTemplate] = "1"
	}
	job, diags := nomad.BuildJob(p, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	if kind == "bare" {
		job = nomadBare(job)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch kind {
	case "no-finisher":
		withoutFinisher(job)
	case "job-finisher":
		withoutFinisher(job)
		job.TaskGroups = append(job.TaskGroups, jobFinisherGroup())
	}
	apid := agentPID()
	quiesce()
	busy0, agent0, self0 := hostBusy(), procCPU(apid), procCPU(os.Getpid())
	t0 := time.Now()
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		b.Fatal(err)
	}
	if kind != "bare" && kind != "barrier" {
		d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: nomadBenchSite})
		ev, err := d.Watch(ctx, drivers.Handle{Driver: nomad.TargetHCL, ID: *job.ID})
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for range ev {
			}
		}()
	}
	tasks := nomadAllStarted(b, c, *job.ID, n)
	last := nomadUserStarted(b, c, *job.ID)
	busy := hostBusy() - busy0
	agentCPU, selfCPU := procCPU(apid)-agent0, procCPU(os.Getpid())-self0
	var release time.Duration
	if kind != "bare" && kind != "barrier" {
		release = nomadRelease(b, c, job)
	}
	stages := nomadTimeline(b, c, job, t0)
	stages.taskStarted = tasks.Sub(t0)
	stages.busy, stages.agent, stages.self = busy, agentCPU, selfCPU
	cancel()
	nomadPurge(b, c, job)
	return last.Sub(t0), release, stages
}

// nomadStartCmd is the benchmark jobs' command: it stamps the moment the
// user's command runs (a shell builtin's redirection: no fork), then
// sleeps. Nomad's StartedAt is when the task's first process started: for
// a jobshift task that is a wrapper (the helper's nomad-env, the stop
// wrapper's sh), not the user's command, so "started" is this stamp.
const nomadStartCmd = `: > "$NOMAD_TASK_DIR/started"; exec sleep 600`

// nomadUserStarted is the latest start of the user's command among the
// job's main tasks: the modification time of each one's stamp (client
// clock: one host), waiting for stamps still to come.
func nomadUserStarted(b *testing.B, c *api.Client, id string) time.Time {
	allocs, _, err := c.Jobs().Allocations(id, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	var last time.Time
	for _, a := range allocs {
		if a.TaskGroup == jobFinisherName {
			continue
		}
		for try := 0; ; try++ {
			fi, _, err := c.AllocFS().Stat(&api.Allocation{ID: a.ID, NodeID: a.NodeID}, nomad.MainTask+"/local/started", nil)
			if err == nil {
				last = later(last, fi.ModTime)
				break
			}
			if try == 600 {
				b.Fatalf("alloc %s: no start stamp after a minute: %v", a.Name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return last
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// nomadRelease is the snapshot's release: from the first write of the
// topology snapshot (server clock) to the last main task's env file
// rendered (now that the snapshot is written at placement, this includes
// the clients' start of the allocations: see ms/received-to-started) (its modification time, client clock: the same host's clock on
// the dev agent and the cluster.sh clusters).
func nomadRelease(b *testing.B, c *api.Client, job *api.Job) time.Duration {
	each, _ := nomadReleases(b, c, job)
	return each[len(each)-1]
}

// nomadReleases is, for every task of the job, the time from the first
// write of a snapshot Variable to its env file (jobshift.env of the env
// template or nomad-env, jobshift.env.sh of a sourcing task), and to its
// user command running with that environment (its nomadStartCmd stamp
// when it has one; else the later of the env file and the task's start: a
// template task starts after its render, a nomad-env task execs the
// command right after writing the file), shortest first.
func nomadReleases(b *testing.B, c *api.Client, job *api.Job) (env, user []time.Duration) {
	var written time.Time
	for _, g := range job.TaskGroups {
		if *g.Name == jobFinisherName {
			continue
		}
		v, _, err := c.Variables().Peek(nomad.TopologyPath(*job.ID, *g.Name), nil)
		if err != nil || v == nil {
			b.Fatalf("no topology snapshot: %v", err)
		}
		if t := time.Unix(0, v.ModifyTime); written.IsZero() || t.Before(written) {
			written = t
		}
	}
	allocs, _, err := c.Jobs().Allocations(*job.ID, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range allocs {
		if a.TaskGroup == jobFinisherName {
			continue
		}
		alloc := &api.Allocation{ID: a.ID, NodeID: a.NodeID}
		fi, _, err := c.AllocFS().Stat(alloc, "main/local/jobshift.env", nil)
		if err != nil {
			fi, _, err = c.AllocFS().Stat(alloc, "main/local/jobshift.env.sh", nil)
		}
		if err != nil {
			b.Fatalf("alloc %s: %v", a.Name, err)
		}
		env = append(env, fi.ModTime.Sub(written))
		at := fi.ModTime
		if ts := a.TaskStates[nomad.MainTask]; ts != nil && ts.StartedAt.After(at) {
			at = ts.StartedAt
		}
		if st, _, err := c.AllocFS().Stat(alloc, "main/local/started", nil); err == nil {
			at = st.ModTime
		}
		user = append(user, at.Sub(written))
	}
	slices.Sort(env)
	slices.Sort(user)
	return env, user
}

// nomadWaitTerminal waits (up to 2 minutes) until every allocation of the
// job has ended on its client, poststop tasks included.
func nomadWaitTerminal(c *api.Client, id string) {
	for range 1200 {
		allocs, _, err := c.Jobs().Allocations(id, true, nil)
		if err != nil {
			return
		}
		live := 0
		for _, a := range allocs {
			if a.ClientStatus == "pending" || a.ClientStatus == "running" {
				live++
			}
		}
		if live == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// nomadWaitGone lets the agent clean up between runs (2 shared cores).
func nomadWaitGone(c *api.Client, id string) {
	for i := 0; i < 100; i++ {
		if _, _, err := c.Jobs().Info(id, nil); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// BenchmarkNomadStop measures the deciding exit → verdict → every task
// ended path (issue 15: ≤ 1 s on Nomad) of a job `jobshift run` submits:
// 3 PS that never exit and 1 worker whose exit 0 decides (minSucceeded 1).
// The worker's command stamps its exit (the mtime of a file it touches as
// its last act, client clock, one host), which is the deciding end: on a
// site with the helper (sub-benchmark helper) the task itself then judges
// the job before it ends (the in-task finisher), so the task's own end is
// later than its command's, and either its verdict or the watcher's stops
// the job. Reported: stamp → the watcher's stop or the recorded verdict
// (exit-to-deregister), stamp → the watcher's final event, every
// allocation ended (exit-to-all-ended).
func BenchmarkNomadStop(b *testing.B) {
	b.Setenv("NOMAD_ADDR", agent.Addr(b))
	c := agent.Client(b)
	for _, kind := range []string{"no-helper", "helper"} {
		b.Run(kind, func(b *testing.B) {
			var toVerdict, toStopped time.Duration
			for i := 0; i < b.N; i++ {
				v, s := nomadStopOnce(b, c, kind == "helper")
				toVerdict += v
				toStopped += s
			}
			b.ReportMetric(float64(toVerdict.Milliseconds())/float64(b.N), "ms/exit-to-deregister")
			b.ReportMetric(float64(toStopped.Milliseconds())/float64(b.N), "ms/exit-to-all-ended")
		})
	}
}

// nomadStopOnce runs BenchmarkNomadStop's job once and returns the
// worker's exit → the verdict's stop, and → every allocation ended.
func nomadStopOnce(b *testing.B, c *api.Client, helper bool) (time.Duration, time.Duration) {
	name := fmt.Sprintf("bench-stop-%d", time.Now().UnixNano()%1e9)
	j := nomadBenchJob(name, 4, `if [ "$PAI_CURRENT_TASK_ROLE_NAME" = ps ]; then exec sleep 600; fi; sleep 2; : > "$NOMAD_TASK_DIR/exited"`)
	j.Roles[0].Instances, j.Roles[1].Instances = 3, 1
	one := 1
	j.Roles[1].MinSucceeded = &one
	p := &translate.Plan{Job: j, Site: nomadBenchSite, User: "bench", Options: map[string]string{}}
	if helper {
		p.Options[nomad.OptHelper] = drivertest.Jobshift(b)
		p.Options[nomad.OptEnvHelper] = drivertest.JobshiftEnv(b)
	}
	d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: nomadBenchSite})
	h, err := d.Submit(context.Background(), p)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := d.Watch(context.Background(), h)
	if err != nil {
		b.Fatal(err)
	}
	var verdictAt, finalAt time.Time
	for e := range ev {
		if e.Task == nil && e.Final == nil && verdictAt.IsZero() && strings.HasPrefix(e.Message, "succeeded") {
			verdictAt = e.Time
		}
		if e.Final != nil {
			finalAt = e.Time
		}
	}
	if verdictAt.IsZero() {
		// the in-task finisher stopped the job first: its verdict's
		// record is when it stopped it
		if v, _, err := c.Variables().Read(nomad.ResultPath(h.ID), nil); err == nil && v != nil {
			verdictAt = time.Unix(0, v.CreateTime)
		}
	}
	allocs, _, _ := c.Jobs().Allocations(h.ID, true, nil)
	var exit time.Time
	for _, a := range allocs {
		if a.TaskGroup == "worker" {
			fi, _, err := c.AllocFS().Stat(&api.Allocation{ID: a.ID, NodeID: a.NodeID}, nomad.MainTask+"/local/exited", nil)
			if err != nil {
				b.Fatalf("the worker's exit stamp: %v", err)
			}
			exit = fi.ModTime
		}
	}
	_, _, _ = c.Jobs().Deregister(h.ID, true, nil)
	nomadWaitGone(c, h.ID)
	return verdictAt.Sub(exit), finalAt.Sub(exit)
}

// BenchmarkNomadRelease measures the snapshot's release alone: a 16-task
// jobshift job is registered without its watcher, so every main task
// waits for the snapshot; then the watcher starts, as `jobshift run`'s
// does, writes the snapshot, and each task gets its environment.
// Sub-benchmarks, one per way a task can get it:
//   - template: the env template (env = true), what a container task has:
//     it waits in Nomad's template hook ("Missing: nomad.var.block"), and
//     Nomad starts the task once consul-template has rendered it
//     (nomad.OptEnvTemplate forces it on raw_exec);
//   - sourced: raw_exec without jobshift-env, since session 20: the task
//     is started before the snapshot, waits in sh (env-wait.sh) and
//     sources the file rendered when the snapshot appears;
//   - in-task: raw_exec with jobshift-env: each task's nomad-env is
//     started and blocked in its read of the Variable;
//   - exec-template, exec-sourced, exec-in-task: the same on the exec
//     driver (jobshift-env copied under /usr, in every exec task's chroot).
//
// Reported: from the snapshot's write (server clock) to the last env file
// written (client clock, same host), mean and worst of b.N runs
// (-benchtime 20x: the worst of 20 is their p95..p100), the first and the
// median task's; and to the last user command running with its
// environment (ms/user-running: a template task's executor starts the
// command only after its render; a sourced or nomad-env task stamps its
// command's start).
//
// On the template path the renders compete for the client's CPU with the
// executors of the tasks rendered first (the nomad binary, started per
// task: ~144–200 ms of CPU on the slow VMs of BENCHMARKS.md, sessions 17
// and 19; an exec task's also sets up its isolation): a 16-task job's env
// files spread over ~1–1.5 s there, and its commands over seconds more.
// The sourced and in-task paths start every executor before the snapshot.
//
//	go test ./bench -run '^$' -bench 'NomadRelease/^(template|sourced|in-task)$' -benchtime 20x
func BenchmarkNomadRelease(b *testing.B) {
	b.Setenv("NOMAD_ADDR", agent.Addr(b))
	c := agent.Client(b)
	for _, kind := range []string{"template", "sourced", "in-task", "exec-template", "exec-sourced", "exec-in-task"} {
		b.Run(kind, func(b *testing.B) {
			var sum, worst, first, mid, users time.Duration
			for i := 0; i < b.N; i++ {
				each, user := nomadReleaseOnce(b, c, kind, 16)
				b.Logf("iteration %d: env files written after the snapshot %v; user commands running %v", i, each, user)
				users += user[len(user)-1]
				rel := each[len(each)-1]
				sum += rel
				worst = max(worst, rel)
				first += each[0]
				mid += each[len(each)/2]
			}
			b.ReportMetric(float64(sum.Milliseconds())/float64(b.N), "ms/release")
			b.ReportMetric(float64(worst.Milliseconds()), "ms/release-max")
			// the spread: on one client, the template path's tasks render
			// one after another, each followed by its executor's start
			b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "ms/release-first")
			b.ReportMetric(float64(mid.Milliseconds())/float64(b.N), "ms/release-median-task")
			b.ReportMetric(float64(users.Milliseconds())/float64(b.N), "ms/user-running")
			b.ReportMetric(load1(), "load1")
		})
	}
}

func nomadReleaseOnce(b *testing.B, c *api.Client, kind string, n int) (env, user []time.Duration) {
	name := fmt.Sprintf("bench-release-%d-%d", n, time.Now().UnixNano()%1e9)
	inTask := strings.HasSuffix(kind, "in-task")
	template := strings.HasSuffix(kind, "template")
	cmd := "exec sleep 600"
	if !template {
		cmd = nomadStartCmd // its stamp says when the last one is through
	}
	site := nomadBenchSite
	if strings.HasPrefix(kind, "exec-") {
		s := *nomadBenchSite
		nc := *s.Nomad
		nc.Driver = "exec"
		s.Nomad = &nc
		site = &s
	}
	p := &translate.Plan{Job: nomadBenchJob(name, n, cmd), Site: site, User: "bench",
		Options: map[string]string{nomad.OptWatched: "true"}}
	if template {
		p.Options[nomad.OptEnvTemplate] = "1"
	}
	if inTask {
		p.Options[nomad.OptHelper] = drivertest.Jobshift(b)
		p.Options[nomad.OptEnvHelper] = drivertest.JobshiftEnv(b)
		if site.Nomad.Driver == "exec" {
			// where Nomad's default chroot_env puts it in the task's root
			p.Options[nomad.OptEnvHelper] = drivertest.UnderUsr(b, drivertest.JobshiftEnv(b))
		}
	}
	job, diags := nomad.BuildJob(p, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		b.Fatal(err)
	}
	if template {
		nomadAllWaiting(b, c, *job.ID, n)
	} else {
		// every nomad-env or env-wait started; a second to reach its
		// blocking read
		nomadAllStarted(b, c, *job.ID, n)
		time.Sleep(time.Second)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: nomadBenchSite})
	ev, err := d.Watch(ctx, drivers.Handle{Driver: nomad.TargetHCL, ID: *job.ID})
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for range ev {
		}
	}()
	if template {
		nomadAllStarted(b, c, *job.ID, n)
	} else {
		nomadUserStarted(b, c, *job.ID)
	}
	env, user = nomadReleases(b, c, job)
	cancel()
	nomadPurge(b, c, job)
	return env, user
}

// nomadAllWaiting waits until every main task reports waiting for its
// snapshot (the template event naming the missing Variable).
func nomadAllWaiting(b *testing.B, c *api.Client, id string, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	var index uint64
	for time.Now().Before(deadline) {
		allocs, meta, err := c.Jobs().Allocations(id, false, &api.QueryOptions{WaitIndex: index, WaitTime: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		index = meta.LastIndex
		waiting := 0
		for _, a := range allocs {
			ts := a.TaskStates[nomad.MainTask]
			if ts == nil {
				continue
			}
			for _, e := range ts.Events {
				if e.Type == "Template" && strings.Contains(e.DisplayMessage, "nomad.var.block") {
					waiting++
					break
				}
			}
		}
		if waiting == n {
			return
		}
	}
	b.Fatalf("job %s: not every task waited for its snapshot within 5 minutes", id)
}

// nomadPurge deregisters a benchmark job, deletes its topology Variables
// (one per group) and waits until every allocation is gone, so the next
// row starts on an idle agent.
// The job is stopped first and purged once every allocation is terminal on
// its client: a purge alone returns at once while the client still tears
// the tasks down (an executor and a logmon each), and on 2 cores that
// teardown ran into the next row's start (BENCHMARKS.md, 2026-11-28).
func nomadPurge(b *testing.B, c *api.Client, job *api.Job) {
	b.Helper()
	if _, _, err := c.Jobs().Deregister(*job.ID, false, nil); err != nil {
		b.Fatal(err)
	}
	nomadWaitTerminal(c, *job.ID)
	if _, _, err := c.Jobs().Deregister(*job.ID, true, nil); err != nil {
		b.Fatal(err)
	}
	for _, g := range job.TaskGroups {
		_, _ = c.Variables().Delete(nomad.TopologyPath(*job.ID, *g.Name), nil)
	}
	nomadWaitGone(c, *job.ID)
}

// withoutFinisher removes the in-job finisher (the poststop finish task
// and the UAI groups' judge) from a jobshift job.
func withoutFinisher(j *api.Job) {
	for _, g := range j.TaskGroups {
		var keep []*api.Task
		for _, t := range g.Tasks {
			if t.Name != nomad.FinisherTask && t.Name != nomad.JudgeTask {
				keep = append(keep, t)
			}
		}
		g.Tasks = keep
	}
}

// jobFinisherGroup stands for a finisher of the whole job instead of one
// per allocation: one more group of one allocation whose task would run
// from the start to the verdict (here it sleeps: what is measured is what
// its start costs), logs off (no logmon), with the finisher's identity and
// resources.
const jobFinisherName = "jobshift-finish"

func jobFinisherGroup() *api.TaskGroup {
	one := 1
	return &api.TaskGroup{Name: new(jobFinisherName), Count: &one, Tasks: []*api.Task{{
		Name: nomad.FinisherTask, Driver: "raw_exec",
		Config:     map[string]any{"command": "/bin/sleep", "args": []string{"600"}},
		Identities: []*api.WorkloadIdentity{{Name: "default", Env: true}},
		Resources:  &api.Resources{CPU: new(50), MemoryMB: new(64)},
		LogConfig:  &api.LogConfig{Disabled: new(true)},
	}}}
}

// hostBusy is the host's busy CPU time so far: /proc/stat's first line
// (busyOf).
func hostBusy() time.Duration {
	b, _ := os.ReadFile("/proc/stat")
	line, _, _ := strings.Cut(string(b), "\n")
	return busyOf(line)
}

// busyOf is the busy time of /proc/stat's "cpu" line: user, nice, system,
// irq, softirq and steal, not idle, iowait or guest (already counted in
// user), in USER_HZ ticks of 10 ms.
func busyOf(line string) time.Duration {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var sum int64
	for _, k := range []int{1, 2, 3, 6, 7, 8} {
		n, _ := strconv.ParseInt(f[k], 10, 64)
		sum += n
	}
	return time.Duration(sum) * 10 * time.Millisecond
}

// procCPU is a process's CPU so far (utime + stime of /proc/<pid>/stat,
// in ticks of 10 ms); 0 when it cannot be read.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// the command name may hold spaces: the fields follow its ')'
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// agentPID is the pid of the local Nomad agent (the dev agent: one
// process is server and client), or 0.
func agentPID() int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if args := strings.Split(string(cmd), "\x00"); len(args) > 1 && filepath.Base(args[0]) == "nomad" && args[1] == "agent" {
			return pid
		}
	}
	return 0
}

// quiesce waits (up to 10 s) until the host is idle: under 5 % of its
// CPU busy over 200 ms. A job's end leaves work behind on the client
// (executors exiting, alloc directories and secrets mounts removed, the
// poststop finishers of a jobshift job): a start that overlaps it is
// slower by however much is left, which on 2 cores moves one start by
// more than the gap being measured. Every kind waits the same way.
func quiesce() {
	const window = 200 * time.Millisecond
	capacity := window * time.Duration(runtime.NumCPU())
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		b0 := hostBusy()
		time.Sleep(window)
		if hostBusy()-b0 < capacity/20 {
			return
		}
	}
}

// BenchmarkNomadFinisher measures what the in-job finisher costs a
// start: it rotates the jobshift job, the same job without its finisher
// tasks (no-finisher: not a job jobshift submits, since a job submitted
// with plain `nomad job run` must still end by its rules), that job with
// one finisher allocation for the whole job in their place
// (job-finisher, jobFinisherGroup: the start cost of that design) and the
// bare job, at 16 tasks, and reports each kind's start (mean, median), the
// host's busy CPU over it, when its client received the last allocation
// (ms-last-received: any lifecycle task, the poststop finisher included,
// makes the client create each allocation's runner more slowly, in
// series: BENCHMARKS.md, session 21) and the jobshift kinds' ratios to
// bare.
//
//	go test ./bench -run '^$' -bench NomadFinisher -benchtime 20x
func BenchmarkNomadFinisher(b *testing.B) {
	b.Setenv("NOMAD_ADDR", agent.Addr(b))
	c := agent.Client(b)
	kinds := []string{"jobshift", "no-finisher", "job-finisher", "bare"}
	d := map[string][]time.Duration{}
	cpu, received := map[string]time.Duration{}, map[string]time.Duration{}
	rotate(b.N, kinds, func(_ int, kind string) {
		t, _, st := nomadStartOnce(b, c, kind, 16)
		d[kind] = append(d[kind], t)
		cpu[kind] += st.busy
		received[kind] += st.received
	})
	for _, k := range kinds {
		b.ReportMetric(float64(meanOf(d[k]).Milliseconds()), "ms/"+k)
		b.ReportMetric(float64(median(d[k]).Milliseconds()), "ms-median/"+k)
		b.ReportMetric(float64(cpu[k].Milliseconds())/float64(len(d[k])), "ms-cpu/"+k)
		b.ReportMetric(float64(received[k].Milliseconds())/float64(len(d[k])), "ms-last-received/"+k)
		if k != "bare" {
			b.ReportMetric(float64(meanOf(d[k]))/float64(meanOf(d["bare"])), "ratio/"+k)
		}
	}
}
