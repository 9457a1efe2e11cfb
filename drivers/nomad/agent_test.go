package nomad

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	jhcl "github.com/jobshift/jobshift/hcl"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// These tests need a real Nomad agent (integration/nomad/agent starts or
// reuses the dev agent); they use the test-only contract fixture, so they
// check Render, the rendezvous and the watcher, not the contract's text.

func TestMain(m *testing.M) {
	code := m.Run()
	agent.StopIfStarted()
	os.Exit(code)
}

func jsonRoundTrip(t *testing.T, j *api.Job) *api.Job {
	t.Helper()
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var out api.Job
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestAgentHCLParsesBack: the HCL parses (Nomad's jobspec2, through
// /v1/jobs/parse) to the same job as the api.Job it was written from, the
// job validates, and the HCL is a fixed point of `nomad fmt`.
func TestAgentHCLParsesBack(t *testing.T) {
	c := agent.Client(t)
	cases := map[string]*translate.Plan{
		"ps-worker-raw_exec": plan(psWorker("mesh", `python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST`), rawExecSite()),
		"ps-worker-docker":   plan(psWorker("mesh", `python3 mesh.py`), nil),
		"hostile":            plan(psWorker("x y/z", strings.Join(hostileStrings, " ")), rawExecSite()),
	}
	for name, p := range cases {
		job, diags := BuildJob(p, fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		src, err := jhcl.NomadJobHCL(job)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: string(src), Canonicalize: false})
		if err != nil {
			t.Fatalf("%s: parse: %v\n%s", name, err, src)
		}
		// jobspec2 fills some defaults even uncanonicalised (template
		// splay, error_on_missing_key); compare both canonicalised, as
		// the agent would register them.
		want, got := jsonRoundTrip(t, job), jsonRoundTrip(t, parsed)
		want.Canonicalize()
		got.Canonicalize()
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: parsed HCL differs (-rendered +parsed):\n%s", name, diff)
		}
		resp, _, err := c.Jobs().Validate(job, nil)
		if err != nil || len(resp.ValidationErrors) > 0 || resp.Error != "" {
			t.Errorf("%s: validate: %v %v %s", name, err, resp.ValidationErrors, resp.Error)
		}
		f := filepath.Join(t.TempDir(), "job.nomad.hcl")
		if err := os.WriteFile(f, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := execCombined(agent.Binary(), "fmt", "-check", f); err != nil {
			t.Errorf("%s: nomad fmt -check: %v\n%s", name, err, out)
		}
	}
}

var hostileStrings = []string{`${HOME}`, `${NOMAD_ALLOC_INDEX}`, `$${x}`, `%{ if true }x%{ endif }`, `{{ env "HOME" }}`,
	`}}{{`, `"q"`, `back\slash`, `'single'`, `$HOME`, "EOT", `<% $secrets.x %>`, `${`, "ünï ☃"}

// TestAgentHostileBytesReachTheProcess: argv and env values full of
// HCL, Nomad and consul-template syntax reach the process byte for byte.
func TestAgentHostileBytesReachTheProcess(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "seen.json")
	script := `import json,os,sys; json.dump({"argv":sys.argv[1:],"env":{k:v for k,v in os.environ.items() if k.startswith("H_")}}, open(sys.argv[1],"w"))`
	args := append([]string{"-c", script, out}, hostileStrings...)
	j := &jobs.Job{Name: "hostile-" + fmt.Sprint(time.Now().UnixNano()), Source: jobs.Source{Format: jobs.FormatTFJob},
		Completion: jobs.Completion{Kind: jobs.CompletionTF},
		Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 1,
			Command:   jobs.Command{Kind: jobs.CommandArgv, Command: []string{"python3"}, Args: args},
			Resources: jobs.Resources{CPUMilli: 500, MemoryMiB: 128}}}}
	wantEnv := map[string]string{}
	for i, h := range hostileStrings {
		name := fmt.Sprintf("H_%d", i)
		j.Roles[0].Env = append(j.Roles[0].Env, jobs.EnvVar{Name: name, Value: h})
		wantEnv[name] = h
	}
	res := runJob(t, plan(j, rawExecSite()))
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("job %s: %+v", j.Name, res)
	}
	var seen struct {
		Argv []string
		Env  map[string]string
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &seen); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append([]string{out}, hostileStrings...), seen.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEnv, seen.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}

// runJob submits p with the fixture contract and watches it to the end.
func runJob(t *testing.T, p *translate.Plan) *drivers.Result {
	t.Helper()
	d, _ := New(drivers.Config{Site: p.Site}, false)
	d.WithContract(fixtureContract{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := d.Client(); err == nil {
			_, _, _ = c.Jobs().Deregister(h.ID, true, nil)
		}
	})
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range events {
		if testing.Verbose() {
			ref := ""
			if e.Task != nil {
				ref = fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)
			}
			t.Logf("event a%d %s %s %d %s", e.Attempt, ref, e.State, e.ExitCode, e.Message)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil {
		t.Fatalf("job %s: no result (timeout?)", h.ID)
	}
	return final
}
