package plugin

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"github.com/jobshift/jobshift/siteconfig"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// v1Fields is the highest field number of each message of protocol
// version 1 (plugin/proto/driver.proto at commit e4ed286), by message.
var v1Fields = map[protoreflect.Name]protoreflect.FieldNumber{
	"Role": 23, "EnvVar": 3, "Completion": 4, "Extras": 4, "Volume": 6, "Job": 17,
}

// TestSinceV2Complete: the list the host checks against a version 1 plugin
// is exactly the fields version 2 added to version 1's messages.
func TestSinceV2Complete(t *testing.T) {
	var want []string
	msgs := pb.File_driver_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		max, ok := v1Fields[m.Name()]
		if !ok {
			continue
		}
		for j := 0; j < m.Fields().Len(); j++ {
			if f := m.Fields().Get(j); f.Number() > max {
				want = append(want, string(f.FullName()))
			}
		}
	}
	var got []string
	for name := range sinceV2 {
		got = append(got, string(name))
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sinceV2 (-fields added after version 1 +listed):\n%s", diff)
	}
}

// TestVersion1Refuses: each thing only version 2 carries, set alone, keeps
// the plan from a version 1 plugin, named; a plan without them goes.
func TestVersion1Refuses(t *testing.T) {
	two := 2
	cases := map[string]struct {
		edit func(j *jobs.Job)
		want string
	}{
		"secret variable": {func(j *jobs.Job) {
			j.Roles[0].Env = []jobs.EnvVar{{Name: "TOKEN", Value: "hunter2", Secret: true}}
		}, "a variable from a Kubernetes Secret"},
		"secret variable of an init step": {func(j *jobs.Job) {
			j.Roles[0].Init = []jobs.InitStep{{Name: "fetch", Env: []jobs.EnvVar{{Name: "T", Value: "hunter2", Secret: true}}}}
		}, "init containers"},
		"file": {func(j *jobs.Job) {
			j.Roles[0].Files = []jobs.File{{Path: "/etc/volcano/worker.host", Content: "h0\n", Mode: 0o644}}
		}, "files at fixed paths"},
		"depends on": {func(j *jobs.Job) {
			j.Roles[0].DependsOn = []jobs.Dependency{{Role: "init", Status: jobs.DependsComplete}}
		}, "the step order"},
		"role backoff": {func(j *jobs.Job) { j.Roles[0].BackoffLimit = &two }, "backoffLimit"},
		"decider":      {func(j *jobs.Job) { j.Completion.Decider = "scheduler" }, "decides success"},
		"success any":  {func(j *jobs.Job) { j.Completion.SuccessAny = true }, "JobSet successPolicy"},
		"gang timeout": {func(j *jobs.Job) { j.Completion.GangTimeoutSeconds = 60 }, "gang schedule timeout"},
		"mxnet":        {func(j *jobs.Job) { j.Extras.MXNet = &jobs.MXNet{JobMode: "MXTrain"} }, "MXJob"},
		"trainer":      {func(j *jobs.Job) { j.Extras.Trainer = &jobs.Trainer{Policy: "torch"} }, "TrainJob"},
		"volcano":      {func(j *jobs.Job) { j.Extras.Volcano = &jobs.Volcano{MaxRetry: 3} }, "Volcano"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := samplePlan()
			tc.edit(p.Job)
			_, err := planFor(p, 1, "old")
			if err == nil || !errors.Is(err, drivers.ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrUnsupported naming %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the refusal shows the secret: %v", err)
			}
			if _, err := planFor(p, 2, "new"); err != nil {
				t.Errorf("version 2: %v", err)
			}
		})
	}
	p := samplePlan()
	p.Site = &siteconfig.Config{Volumes: []siteconfig.VolumeRule{{Pattern: "data", Path: "/lustre/data"}}}
	if _, err := planFor(p, 1, "old"); err == nil || !strings.Contains(err.Error(), "volume rules") {
		t.Errorf("site volume rules to a version 1 plugin: %v", err)
	}
	if _, err := planFor(samplePlan(), 1, "old"); err != nil {
		t.Errorf("a plan version 1 carries whole was refused: %v", err)
	}
}

// TestVersion1Plugin: a plugin built before version 2 still loads and runs
// the jobs version 1 carries; the others are refused before anything is
// sent to it.
func TestVersion1Plugin(t *testing.T) {
	dir := pluginDir(t, "v1")
	ext, err := OpenDriver("v1", []string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	if ext.Protocol != 1 {
		t.Fatalf("negotiated protocol %d, want 1", ext.Protocol)
	}
	if _, err := ext.Render(context.Background(), samplePlan()); err != nil {
		t.Errorf("plain plan: %v", err)
	}
	p := samplePlan()
	p.Job.Roles[0].Env = []jobs.EnvVar{{Name: "TOKEN", Value: "hunter2", Secret: true}}
	if _, err := ext.Submit(context.Background(), p); !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("secret variable to a version 1 plugin: %v, want ErrUnsupported", err)
	}
}
