package nomad

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

func TestParseEnds(t *testing.T) {
	const prefix = "jobshift/results/j~a/ended/"
	at := time.Unix(7, 0)
	cases := map[string]struct {
		paths []string
		want  map[string]endMark
	}{
		"codes, negative too": {
			[]string{prefix + "a1/0", prefix + "b2/137", prefix + "c3/-1001"},
			map[string]endMark{"a1": {0, at}, "b2": {137, at}, "c3": {-1001, at}},
		},
		"not markers": {
			[]string{prefix + "a1", prefix + "a1/x", prefix + "/3", "jobshift/results/j~a", "jobshift/results/j~ab/ended/a1/0"},
			map[string]endMark{},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var list []*api.VariableMetadata
			for _, p := range c.paths {
				list = append(list, &api.VariableMetadata{Path: p, CreateTime: at.UnixNano()})
			}
			got := parseEnds(prefix, list)
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(endMark{})); diff != "" {
				t.Errorf("parseEnds (-want +got):\n%s", diff)
			}
		})
	}
}

// A Variable path holds at most 128 characters of [a-zA-Z0-9-_~/]: a job
// whose markers cannot be written keeps the poststop finisher.
func TestEndsFit(t *testing.T) {
	cases := map[string]bool{
		"alice~mesh":              true,
		strings.Repeat("j", 50):   true,
		strings.Repeat("j", 60):   false, // 17 + 60 + 7 + 36 + 12 > 128
		"job.with.dots":           false,
		"jobshift~train-2026_v1~": true,
	}
	for id, want := range cases {
		if got := endsFit(id); got != want {
			t.Errorf("endsFit(%q) = %v, want %v", id, got, want)
		}
	}
}

// withEnds: a marker ends a task the server shows running, with its code
// at its time; the server's own end wins over a marker; the input is not
// changed.
func TestWithEnds(t *testing.T) {
	t1 := time.Unix(105, 0)
	task := func(alloc string, state completion.State, code int) observed {
		return observed{Task: completion.Task{TaskRef: jobs.TaskRef{Role: "w"}, State: state, ExitCode: code}, AllocID: alloc}
	}
	obs := []observed{task("r", completion.Running, 0), task("d", completion.Failed, 4), task("u", completion.Running, 0)}
	got := withEnds(obs, map[string]endMark{"r": {3, t1}, "d": {0, t1}})
	if r := got[0]; r.State != completion.Failed || r.ExitCode != 3 || r.Seq != t1.UnixNano() {
		t.Errorf("marked running task = %+v, want failed, exit 3 at %v", r, t1)
	}
	if got[1] != obs[1] || got[2] != obs[2] {
		t.Errorf("a task the server shows ended, or with no marker, changed: %+v", got[1:])
	}
	if obs[0].State != completion.Running {
		t.Errorf("withEnds changed its input")
	}
	// a marker older than the task's start (an earlier job's of the same
	// ID, or one written by someone else ahead of time) ends nothing
	started := obs[0]
	started.Started = time.Unix(100, 0)
	if early := withEnds([]observed{started}, map[string]endMark{"r": {0, time.Unix(90, 0)}}); early[0].State != completion.Running {
		t.Errorf("a marker from before the task started ended it: %+v", early[0])
	}
}

// TestEndMarkersLastWriterDecides checks the argument of ends.go on every
// interleaving of three in-task finishers of tasks ending together, none
// of whose ends the server shows yet: each writes its marker, then reads
// the markers (and the allocations, all still running) and judges. Under
// a rule that needs every end (PAI's default, every worker succeeded) or
// any one of them, some finisher must decide, and none may decide wrong.
func TestEndMarkersLastWriterDecides(t *testing.T) {
	one := 1
	cases := map[string]struct {
		codes     []int
		minFailed *int
		want      completion.Phase
	}{
		"every worker must succeed": {[]int{0, 0, 0}, &one, completion.PhaseSucceeded},
		"one failure decides":       {[]int{0, 2, 0}, &one, completion.PhaseFailed},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			pol := completion.Policy{Name: "j", Format: jobs.FormatPAIv2, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
				Roles: []completion.PolicyRole{{Name: "worker", Instances: len(c.codes), MinFailed: c.minFailed}}}
			var allocs []*api.AllocationListStub
			for i := range c.codes {
				allocs = append(allocs, &api.AllocationListStub{ID: fmt.Sprint("a", i), Name: fmt.Sprintf("j.worker[%d]", i), TaskGroup: "worker",
					JobVersion: 1, ClientStatus: "running", TaskStates: map[string]*api.TaskState{MainTask: {State: "running", StartedAt: time.Unix(1, 0)}}})
			}
			n := 0
			for _, order := range interleavings(len(c.codes)) {
				n++
				ends := map[string]endMark{}
				var decided []completion.Phase
				for step, f := range order {
					id := fmt.Sprint("a", f.task)
					if f.write {
						ends[id] = endMark{c.codes[f.task], time.Unix(10+int64(step), 0)}
						continue
					}
					seen := map[string]endMark{}
					for k, v := range ends {
						seen[k] = v
					}
					w := &watcher{pol: pol, version: 1, m: completion.NewMachine(pol, completion.MachineConfig{})}
					if v, _, _ := judge(w, allocs, seen); v != nil {
						decided = append(decided, v.Phase)
					}
				}
				if len(decided) == 0 {
					t.Fatalf("order %v: no finisher decided", order)
				}
				for _, p := range decided {
					if p != c.want {
						t.Fatalf("order %v: a finisher decided %s, want %s", order, p, c.want)
					}
				}
			}
			if n != 90 { // 6! / 2^3: each task writes before it reads
				t.Errorf("%d interleavings, want 90", n)
			}
		})
	}
}

// finStep is one finisher's write of its marker or its read of them.
type finStep struct {
	task  int
	write bool
}

// interleavings are the orders of n finishers' steps, each writing
// before it reads.
func interleavings(n int) [][]finStep {
	var out [][]finStep
	var rec func(prefix []finStep, wrote, read []bool)
	rec = func(prefix []finStep, wrote, read []bool) {
		if len(prefix) == 2*n {
			out = append(out, append([]finStep(nil), prefix...))
			return
		}
		for i := 0; i < n; i++ {
			switch {
			case !wrote[i]:
				wrote[i] = true
				rec(append(prefix, finStep{i, true}), wrote, read)
				wrote[i] = false
			case !read[i]:
				read[i] = true
				rec(append(prefix, finStep{i, false}), wrote, read)
				read[i] = false
			}
		}
	}
	rec(nil, make([]bool, n), make([]bool, n))
	return out
}

// TestWithFinisher runs the stop wrapper and the restart loop with an
// in-task finisher that records its arguments: it replaces the wrapper's
// exit with the command's code after an end of the command's own, never
// after a stop, and a client without it gets the command's code.
func TestWithFinisher(t *testing.T) {
	// ExitCode: exit 3 is permanent, so the loop ends after one run
	_, loop := loopOf(t, crashJob("ExitCode", nil, "true"), nil)
	wrappers := map[string]struct{ script, pre, arg0 string }{
		"stop wrapper": {stopGroupArg, "_g", "jobshift-group"},
		"restart loop": {loop, "_k", restartArg0},
	}
	for name, wr := range wrappers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fin := filepath.Join(dir, "the helper's dir", "jobshift")
			if err := os.MkdirAll(filepath.Dir(fin), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(fin, []byte("#!/bin/sh\necho \"$*\" > \"$(dirname \"$0\")/args\"\nexit 42\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			script := withFinisher(wr.script, wr.pre, fin)
			if script == wr.script {
				t.Fatalf("withFinisher left the %s as it was: its last line is not exit \"$%s_rc\"", name, wr.pre)
			}
			run := func(t *testing.T, script string, cmd ...string) (int, string) {
				c := exec.Command("dash", append([]string{"-c", script, wr.arg0}, cmd...)...)
				c.Dir = t.TempDir()
				err := c.Run()
				args, _ := os.ReadFile(filepath.Join(filepath.Dir(fin), "args"))
				os.Remove(filepath.Join(filepath.Dir(fin), "args"))
				if ee, ok := err.(*exec.ExitError); ok {
					return ee.ExitCode(), string(args)
				}
				return 0, string(args)
			}
			if code, args := run(t, script, "sh", "-c", "exit 3"); code != 42 || args != "nomad-finish -exit 3\n" {
				t.Errorf("command exit 3: wrapper exit %d, finisher args %q; want the finisher's exit (42) and %q", code, args, "nomad-finish -exit 3")
			}
			missing := withFinisher(wr.script, wr.pre, filepath.Join(dir, "absent"))
			if code, _ := run(t, missing, "sh", "-c", "exit 3"); code != 3 {
				t.Errorf("without the helper on the client: exit %d, want 3", code)
			}
			// stopped: SIGTERM to the wrapper while the command runs
			c := exec.Command("dash", "-c", script, wr.arg0, "sleep", "30")
			c.Dir = t.TempDir()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			_ = c.Process.Signal(syscall.SIGTERM)
			_ = c.Wait()
			if args, err := os.ReadFile(filepath.Join(filepath.Dir(fin), "args")); err == nil {
				t.Errorf("after a stop the finisher ran (%q)", args)
			}
		})
	}
}

// TestRenderInTaskFinisher: which groups judge from inside the main task
// (no poststop task, the wrapper execs the helper, a token file for it)
// and which keep the poststop finisher.
func TestRenderInTaskFinisher(t *testing.T) {
	const helper = "/opt/jobshift bin/jobshift"
	type shape struct {
		Poststop, InTask, Token bool
	}
	cases := map[string]struct {
		opts   map[string]string
		driver string
		want   shape
	}{
		"watched raw_exec job":              {map[string]string{OptWatched: "true", OptHelper: helper}, "raw_exec", shape{InTask: true, Token: true}},
		"watched, jobshift-env too":         {map[string]string{OptWatched: "true", OptHelper: helper, OptEnvHelper: "/usr/bin/jobshift-env"}, "raw_exec", shape{InTask: true, Token: true}},
		"for nomad job run (barrier)":       {map[string]string{OptHelper: helper}, "raw_exec", shape{Poststop: true}},
		"exec: the helper may not be there": {map[string]string{OptWatched: "true", OptHelper: helper}, "exec", shape{Poststop: true}},
		"docker":                            {map[string]string{OptWatched: "true", OptHelper: helper}, "docker", shape{Poststop: true}},
		"no helper":                         {map[string]string{OptWatched: "true"}, "raw_exec", shape{}},
		// (the token is nomad-env's, which the helper runs)
		"a helper path Nomad would rewrite": {map[string]string{OptWatched: "true", OptHelper: "/opt/${node.class}/jobshift"}, "raw_exec", shape{Poststop: true, Token: true}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			site := rawExecSite()
			site.Nomad.Driver = c.driver
			p := plan(psWorker("mesh", "python3 mesh.py"), site)
			for k, v := range c.opts {
				p.Options[k] = v
			}
			job, diags := BuildJob(p, fixtureContract{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, g := range job.TaskGroups {
				var got shape
				for _, task := range g.Tasks {
					switch task.Name {
					case FinisherTask:
						got.Poststop = true
					case MainTask:
						args, _ := task.Config["args"].([]string)
						got.InTask = strings.Contains(strings.Join(args, " "), "exec '"+helper+"' nomad-finish -exit")
						got.Token = len(task.Identities) == 1 && task.Identities[0].File && !task.Identities[0].Env
					}
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("group %s (-want +got):\n%s", *g.Name, diff)
				}
			}
		})
	}
}

// recordedEnded is testdata/trainjob-initializer-ended.json: a real run's
// allocations when the job had ended, and its end markers.
type recordedEnded struct {
	Allocs []*api.AllocationListStub
	Ends   map[string]struct {
		Code       int
		CreateTime int64
	}
}

// TestOwnEndsRecorded: examples/trainjob-initializer.yaml as it ran on
// Nomad (raw_exec, in-task finishers). node-1's finisher judged last and
// stopped the job, so Nomad killed it: its main task's events read
// Killing, Terminated (exit 0), Killed, and observe calls it stopped. Its
// marker, written before the Killing event, says its command ended by
// itself with 0: succeeded. The other tasks ended before any stop and
// keep what observe saw; a marker written after the kill began, or
// before the task started, or none, leaves a stopped task stopped.
func TestOwnEndsRecorded(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "trainjob-initializer-ended.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recordedEnded
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "dataset-initializer", Instances: 1}, {Name: "node", Instances: 2}}}
	const node1 = "0481f1a9-fc4b-ead7-7b2b-41202fd455ff"
	marker := func(code int, at int64) endMark { return endMark{code, time.Unix(0, at)} }
	recorded := map[string]endMark{}
	for a, m := range rec.Ends {
		recorded[a] = marker(m.Code, m.CreateTime)
	}
	// node-1's Killing event (1796549809533543475) and start (Started
	// 1796549808432922742, the server's StartedAt 1796549808433131834)
	const killing, started = 1796549809533543475, 1796549808433131834
	cases := map[string]struct {
		ends      map[string]endMark
		node1     completion.State
		node1Code int
	}{
		"as recorded":                    {recorded, completion.Succeeded, 0},
		"no markers":                     {nil, completion.Stopped, 0},
		"marker after the kill began":    {map[string]endMark{node1: marker(0, killing+1)}, completion.Stopped, 0},
		"marker before the task began":   {map[string]endMark{node1: marker(0, started-1)}, completion.Stopped, 0},
		"command failed before the kill": {map[string]endMark{node1: marker(3, killing-1e6)}, completion.Failed, 3},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			obs := observe(pol, rec.Allocs, 0, nil)
			got := map[string]observed{}
			for _, o := range ownEnds(obs, c.ends) {
				got[fmt.Sprintf("%s-%d", o.Role, o.Index)] = o
			}
			want := map[string]completion.State{"dataset-initializer-0": completion.Succeeded, "node-0": completion.Succeeded, "node-1": c.node1}
			for task, st := range want {
				if got[task].State != st {
					t.Errorf("%s: %s (%q), want %s", task, got[task].State, got[task].Message, st)
				}
			}
			if o := got["node-1"]; o.ExitCode != c.node1Code {
				t.Errorf("node-1 exit code %d, want %d", o.ExitCode, c.node1Code)
			}
			for _, o := range obs {
				if o.AllocID == node1 && (o.State != completion.Stopped || !o.Killed.Equal(time.Unix(0, killing))) {
					t.Errorf("observe: node-1 %s killed at %v, want stopped at the recorded Killing event (obs changed?)", o.State, o.Killed)
				}
			}
		})
	}
}

// TestVerdictKeepsOwnEnds: the same recorded run, after the watcher that
// saw the verdict deleted the markers. When node-1's in-task finisher
// judged, the server showed node-1 still running and the others ended,
// so the verdict keeps node-1's marker alone; status, reading it back
// from the verdict, shows node-1 as its command ended (0), not stopped.
func TestVerdictKeepsOwnEnds(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "trainjob-initializer-ended.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recordedEnded
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "dataset-initializer", Instances: 1}, {Name: "node", Instances: 2}}}
	const node1 = "0481f1a9-fc4b-ead7-7b2b-41202fd455ff"
	recorded := map[string]endMark{}
	for a, m := range rec.Ends {
		recorded[a] = endMark{m.Code, time.Unix(0, m.CreateTime)}
	}
	// the view node-1's finisher judged: its main task running (events up
	// to Started), the other two ended as recorded
	var judging []*api.AllocationListStub
	for _, a := range rec.Allocs {
		if a.ID == node1 {
			c := *a
			c.ClientStatus, c.DesiredStatus = "running", "run"
			c.TaskStates = map[string]*api.TaskState{}
			for name, ts := range a.TaskStates {
				cts := *ts
				if name == MainTask {
					cts.State, cts.FinishedAt, cts.Events = "running", time.Time{}, ts.Events[:3]
				}
				c.TaskStates[name] = &cts
			}
			a = &c
		}
		judging = append(judging, a)
	}
	const item = "0481f1a9-fc4b-ead7-7b2b-41202fd455ff:0:1796549809493134397"
	if got := formatEnds(unseenEnds(observe(pol, judging, 0, nil), recorded)); got != item {
		t.Errorf("the verdict keeps %q, want %q", got, item)
	}
	cases := map[string]struct {
		item      string
		node1     completion.State
		node1Code int
	}{
		"as kept":                   {item, completion.Succeeded, 0},
		"nothing kept":              {"", completion.Stopped, 0},
		"another allocation's":      {"b33c9749-88ba-155a-27b4-c1c1baed9a08:0:1796549809409466612", completion.Stopped, 0},
		"no time":                   {"0481f1a9-fc4b-ead7-7b2b-41202fd455ff:0", completion.Stopped, 0},
		"kept end after the kill":   {"0481f1a9-fc4b-ead7-7b2b-41202fd455ff:0:1796549809533543476", completion.Stopped, 0},
		"failed command, then kill": {"x:1:2,0481f1a9-fc4b-ead7-7b2b-41202fd455ff:7:1796549809493134397", completion.Failed, 7},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := map[string]observed{}
			for _, o := range ownEnds(observe(pol, rec.Allocs, 0, nil), parseVerdictEnds(c.item)) {
				got[fmt.Sprintf("%s-%d", o.Role, o.Index)] = o
			}
			want := map[string]completion.State{"dataset-initializer-0": completion.Succeeded, "node-0": completion.Succeeded, "node-1": c.node1}
			for task, st := range want {
				if got[task].State != st {
					t.Errorf("%s: %s (%q), want %s", task, got[task].State, got[task].Message, st)
				}
			}
			if o := got["node-1"]; o.ExitCode != c.node1Code {
				t.Errorf("node-1 exit code %d, want %d", o.ExitCode, c.node1Code)
			}
		})
	}
}
