package nomad

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// registry is a stand-in for the Nomad HTTP API of an empty cluster,
// answering what Submit asks before it registers (no job of that ID, a
// plan that places everything, Variables written and deleted) and keeping
// the register request.
type registry struct {
	mu  sync.Mutex
	reg *api.JobRegisterRequest
	t   *testing.T
}

func (f *registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/job/"):
		http.Error(w, "job not found", http.StatusNotFound)
	case strings.HasPrefix(p, "/v1/job/") && strings.HasSuffix(p, "/plan"):
		_, _ = io.WriteString(w, `{}`)
	case p == "/v1/vars":
		_, _ = io.WriteString(w, `[]`)
	case strings.HasPrefix(p, "/v1/var/") && r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(p, "/v1/var/"):
		_, _ = io.WriteString(w, `{}`)
	case p == "/v1/jobs" && r.Method != http.MethodGet:
		var req api.JobRegisterRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			f.t.Errorf("register request: %v", err)
		}
		f.mu.Lock()
		f.reg = &req
		f.mu.Unlock()
		_, _ = io.WriteString(w, `{}`)
	default:
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "unexpected", http.StatusInternalServerError)
	}
}

// TestShapeRenderEqualsSubmit: for every row of the shape table, the job
// Submit registers is the job Render writes for the same plan (convert
// -to nomad-json, with -watched for a watched row), field by field, and
// the submission source Submit registers with it is Render's HCL
// artifact, header included.
func TestShapeRenderEqualsSubmit(t *testing.T) {
	fake := &registry{t: t}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, r := range shapeRows(t) {
		rendered := map[bool][]byte{}
		for _, asJSON := range []bool{false, true} {
			d, _ := New(drivers.Config{Site: r.plan.Site}, asJSON)
			art, err := d.Render(context.Background(), r.plan)
			if err != nil {
				t.Fatalf("%s: %v", r.inputs(), err)
			}
			rendered[asJSON] = art.Files[0].Data
		}
		var doc struct{ Job *api.Job }
		if err := json.Unmarshal(rendered[true], &doc); err != nil {
			t.Fatal(err)
		}
		d, _ := New(drivers.Config{Site: r.plan.Site}, false)
		c, err := api.NewClient(&api.Config{Address: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		d.client = c
		if _, err := d.Submit(context.Background(), r.plan); err != nil {
			t.Fatalf("%s: submit: %v", r.inputs(), err)
		}
		fake.mu.Lock()
		reg := fake.reg
		fake.reg = nil
		fake.mu.Unlock()
		if reg == nil || reg.Submission == nil {
			t.Fatalf("%s: nothing registered", r.inputs())
		}
		if diff := cmp.Diff(doc.Job, reg.Job); diff != "" {
			t.Errorf("%s: registered job (-rendered +submitted):\n%s", r.inputs(), diff)
		}
		if reg.Submission.Source != string(rendered[false]) {
			t.Errorf("%s: the submission source is not the rendered HCL", r.inputs())
		}
	}
}

// TestPlanDiffShowsShape: run -plan's dry run starts with the shape the
// job would be registered with (the plan's OptWatched).
func TestPlanDiffShowsShape(t *testing.T) {
	srv := httptest.NewServer(&registry{t: t})
	defer srv.Close()
	for _, watched := range []string{"false", "true"} {
		p := plan(psWorker("mesh", "true"), rawExecSite())
		p.Options[OptWatched] = watched
		d, _ := New(drivers.Config{Site: p.Site}, false)
		c, err := api.NewClient(&api.Config{Address: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		d.client = c
		out, err := d.WithContract(fixtureContract{}).PlanDiff(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"false": "shape: unwatched", "true": "shape: watched"}[watched]
		rv := map[string]string{"false": "rendezvous barrier", "true": "rendezvous snapshot"}[watched]
		if first := strings.SplitN(out, "\n", 2)[0]; !strings.Contains(first, want) || !strings.Contains(first, rv) {
			t.Errorf("watched=%s: plan starts %q, want the %s shape with %s", watched, first, want, rv)
		}
	}
}
