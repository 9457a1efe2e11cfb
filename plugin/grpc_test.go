package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// recordingDriver is a unit-test fake: it records what it was given and
// answers from its fields.
type recordingDriver struct {
	gotPlan   *translate.Plan
	gotHandle drivers.Handle
	gotLogs   drivers.LogOptions
	artifact  *drivers.Artifact
	err       error
	events    []drivers.Event
	logs      []byte
}

func (d *recordingDriver) Name() string { return "fake" }

func (d *recordingDriver) Render(_ context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	d.gotPlan = p
	return d.artifact, d.err
}

func (d *recordingDriver) Submit(_ context.Context, p *translate.Plan) (drivers.Handle, error) {
	d.gotPlan = p
	if d.err != nil {
		return drivers.Handle{}, d.err
	}
	return drivers.Handle{Driver: "fake", ID: "job-1", Meta: map[string]string{"eval": "e1"}}, nil
}

func (d *recordingDriver) Watch(_ context.Context, h drivers.Handle) (<-chan drivers.Event, error) {
	d.gotHandle = h
	if d.err != nil {
		return nil, d.err
	}
	ch := make(chan drivers.Event, len(d.events))
	for _, e := range d.events {
		ch <- e
	}
	close(ch)
	return ch, nil
}

func (d *recordingDriver) Stop(_ context.Context, h drivers.Handle) error {
	d.gotHandle = h
	return d.err
}

func (d *recordingDriver) Logs(_ context.Context, h drivers.Handle, o drivers.LogOptions) (io.ReadCloser, error) {
	d.gotHandle, d.gotLogs = h, o
	if d.err != nil {
		return nil, d.err
	}
	return io.NopCloser(bytes.NewReader(d.logs)), nil
}

// connect serves impl in-process over a real gRPC connection.
func connect(t *testing.T, impl drivers.Driver) *GRPCClient {
	t.Helper()
	client, _ := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		PluginName: &GRPCDriverPlugin{Impl: impl, Version: "9.9.9"},
	})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*GRPCClient)
}

func samplePlan() *translate.Plan {
	one := 1
	return &translate.Plan{
		Job: &jobs.Job{Name: "mnist", Source: jobs.Source{Format: jobs.FormatPAIv2, Path: "job.yaml"},
			Roles: []*jobs.Role{{Name: "worker", Instances: 2, MinFailed: &one,
				Command: jobs.Command{Kind: jobs.CommandBashScript, Script: "echo '$x' \"`y`\" {{z}} %>\n"},
				Ports:   []jobs.Port{{Label: "SynPort", Count: 1}}}},
			Secrets: map[string]any{"token": "s3cr3t"}},
		Contracts: []string{"pai"}, User: "alice",
	}
}

func TestInfo(t *testing.T) {
	c := connect(t, &recordingDriver{})
	if c.Name() != "fake" || c.Version() != "9.9.9" {
		t.Errorf("got name %q version %q, want fake 9.9.9", c.Name(), c.Version())
	}
}

func TestRender(t *testing.T) {
	want := &drivers.Artifact{MediaType: "text/x-shellscript", Files: []drivers.File{
		{Name: "job.sbatch", Mode: 0o755, Data: []byte("#!/bin/sh\n\x00binary\xff")},
		{Name: "secrets", Mode: 0o600, Data: []byte("k=v")},
	}}
	d := &recordingDriver{artifact: want}
	c := connect(t, d)
	plan := samplePlan()
	got, err := c.Render(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("artifact (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plan.Job, d.gotPlan.Job); diff != "" {
		t.Errorf("plan job as the plugin saw it (-sent +received):\n%s", diff)
	}
}

func TestErrorsSurvive(t *testing.T) {
	diags := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Too many GPUs", Detail: "Ask for at most 4.",
			Subject: &hcl.Range{Filename: "job.yaml", Start: hcl.Pos{Line: 7, Column: 9, Byte: 80}, End: hcl.Pos{Line: 7, Column: 10, Byte: 81}}},
		{Severity: hcl.DiagWarning, Summary: "Image not run", Detail: "local runs no images."},
	}
	cases := map[string]struct {
		err       error
		sentinel  error
		wantDiags hcl.Diagnostics
	}{
		"diagnostics": {err: diags, wantDiags: diags},
		// a driver's refusal: the message is its own, not hcl's join
		"diagnostics with a kind": {err: diag.Errors(drivers.ErrUnsupported, diags), sentinel: drivers.ErrUnsupported, wantDiags: diags},
		"not found":               {err: drivers.ErrNotFound, sentinel: drivers.ErrNotFound},
		"wrapped sentinel":        {err: errors.Join(errors.New("job 42"), drivers.ErrUnsupported), sentinel: drivers.ErrUnsupported},
		"plain error":             {err: errors.New("boom: sbatch said no")},
		"context deadline":        {err: context.DeadlineExceeded, sentinel: context.DeadlineExceeded},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := connect(t, &recordingDriver{err: tc.err})
			calls := map[string]func() error{
				"Render": func() error { _, err := c.Render(context.Background(), samplePlan()); return err },
				"Submit": func() error { _, err := c.Submit(context.Background(), samplePlan()); return err },
				"Watch":  func() error { _, err := c.Watch(context.Background(), drivers.Handle{ID: "x"}); return err },
				"Stop":   func() error { return c.Stop(context.Background(), drivers.Handle{ID: "x"}) },
				"Logs": func() error {
					_, err := c.Logs(context.Background(), drivers.Handle{ID: "x"}, drivers.LogOptions{})
					return err
				},
			}
			for method, call := range calls {
				err := call()
				if err == nil {
					t.Fatalf("%s: no error", method)
				}
				if tc.wantDiags != nil {
					var got hcl.Diagnostics
					if !errors.As(err, &got) {
						t.Fatalf("%s: error %T is not hcl.Diagnostics", method, err)
					}
					if diff := cmp.Diff(tc.wantDiags, got); diff != "" {
						t.Errorf("%s: diagnostics (-want +got):\n%s", method, diff)
					}
				}
				if err.Error() != tc.err.Error() {
					t.Errorf("%s: message %q, want %q", method, err.Error(), tc.err.Error())
				}
				if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
					t.Errorf("%s: errors.Is(%v, %v) = false", method, err, tc.sentinel)
				}
			}
		})
	}
}

func TestSubmitStop(t *testing.T) {
	d := &recordingDriver{}
	c := connect(t, d)
	h, err := c.Submit(context.Background(), samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	want := drivers.Handle{Driver: "fake", ID: "job-1", Meta: map[string]string{"eval": "e1"}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("handle (-want +got):\n%s", diff)
	}
	if got := d.gotPlan.Job.Secrets["token"]; got != "s3cr3t" {
		t.Errorf("secrets did not reach the driver: %v", got)
	}
	if err := c.Stop(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, d.gotHandle); diff != "" {
		t.Errorf("Stop handle (-want +got):\n%s", diff)
	}
}

func TestWatchStream(t *testing.T) {
	at := time.Unix(1700000000, 123456789)
	events := []drivers.Event{
		{Time: at, Task: &jobs.TaskRef{Role: "ps", Index: 1}, State: completion.Running},
		{Time: at.Add(time.Second), Attempt: 1, Task: &jobs.TaskRef{Role: "worker", Index: 0}, State: completion.Failed, ExitCode: 137, Message: "killed"},
		{Time: at.Add(2 * time.Second), Attempt: 1, Final: &drivers.Result{Phase: completion.PhaseFailed, ExitCode: 137, Reason: "worker-0 failed", Attempts: 2}},
	}
	c := connect(t, &recordingDriver{events: events})
	ch, err := c.Watch(context.Background(), drivers.Handle{ID: "job-1"})
	if err != nil {
		t.Fatal(err)
	}
	var got []drivers.Event
	for e := range ch {
		got = append(got, e)
	}
	if diff := cmp.Diff(events, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestLogsStream(t *testing.T) {
	// Larger than one chunk, with bytes that are not UTF-8.
	data := bytes.Repeat([]byte("line \xff\x00 [worker-0]\n"), 10000)
	d := &recordingDriver{logs: data}
	c := connect(t, d)
	task := &jobs.TaskRef{Role: "worker", Index: 3}
	rc, err := c.Logs(context.Background(), drivers.Handle{ID: "job-1"}, drivers.LogOptions{Task: task, Stderr: true, Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("logs: got %d bytes, want %d (equal=%v)", len(got), len(data), bytes.Equal(got, data))
	}
	if diff := cmp.Diff(drivers.LogOptions{Task: task, Stderr: true, Follow: true}, d.gotLogs); diff != "" {
		t.Errorf("log options (-want +got):\n%s", diff)
	}
}

func TestEmptyLogs(t *testing.T) {
	c := connect(t, &recordingDriver{})
	rc, err := c.Logs(context.Background(), drivers.Handle{ID: "job-1"}, drivers.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	if err != nil || len(got) != 0 {
		t.Errorf("empty logs: got %q, %v", got, err)
	}
	if !strings.Contains("", "") { // keep strings import honest
		t.Fatal()
	}
}

// TestInspectUnsupported: a driver without snapshots — as a plugin built
// before Inspect was in the protocol answers — gives ErrUnsupported with a
// message that says what to do, not a raw gRPC status.
func TestInspectUnsupported(t *testing.T) {
	c := connect(t, &recordingDriver{})
	_, err := c.Inspect(context.Background(), drivers.Handle{Driver: "fake", ID: "x"})
	if !errors.Is(err, drivers.ErrUnsupported) || !strings.Contains(err.Error(), "status -follow") || strings.Contains(err.Error(), "rpc error") {
		t.Errorf("err = %v, want ErrUnsupported naming status -follow", err)
	}
}

// inspectingDriver is recordingDriver with snapshots.
type inspectingDriver struct{ recordingDriver }

func (d *inspectingDriver) Inspect(_ context.Context, h drivers.Handle) (*drivers.Status, error) {
	if h.ID == "gone" {
		return nil, fmt.Errorf("no such job: %w", drivers.ErrNotFound)
	}
	return &drivers.Status{Handle: h.String(), Name: "n", User: "u", Phase: completion.PhaseFailed, ExitCode: 3, Reason: "r", Attempt: 1,
		Submitted: time.Unix(1700000000, 5), Tasks: []drivers.TaskStatus{{Role: "worker", Index: 1, State: completion.Failed, ExitCode: 3, Message: "m"}}}, nil
}

// TestInspectTravels: every field of a snapshot survives the wire, and
// ErrNotFound stays ErrNotFound.
func TestInspectTravels(t *testing.T) {
	c := connect(t, &inspectingDriver{})
	h := drivers.Handle{Driver: "fake", ID: "x"}
	got, err := c.Inspect(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	want := &drivers.Status{Handle: "fake:x", Name: "n", User: "u", Phase: completion.PhaseFailed, ExitCode: 3, Reason: "r", Attempt: 1,
		Submitted: time.Unix(1700000000, 5), Tasks: []drivers.TaskStatus{{Role: "worker", Index: 1, State: completion.Failed, ExitCode: 3, Message: "m"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-sent +received):\n%s", d)
	}
	if _, err := c.Inspect(context.Background(), drivers.Handle{Driver: "fake", ID: "gone"}); !errors.Is(err, drivers.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}
