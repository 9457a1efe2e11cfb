package nomad

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/internal/testcorpus"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
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
	case p == "/v1/nodes":
		// two clients: a job whose shape depends on their number
		// (OptOneClient) is rendered as Render does without the option
		_, _ = io.WriteString(w, `[{"ID":"a","Datacenter":"dc1","NodePool":"default","Status":"ready","SchedulingEligibility":"eligible"},`+
			`{"ID":"b","Datacenter":"dc1","NodePool":"default","Status":"ready","SchedulingEligibility":"eligible"}]`)
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
	srv := httptest.NewServer(&registry{t: t})
	defer srv.Close()
	for _, r := range shapeRows(t) {
		renderEqualsSubmit(t, srv, r.inputs(), r.plan)
	}
}

// TestRenderEqualsSubmitCorpus: the same for every example job and every
// corpus job that converts, watched and not, with the helper on raw_exec
// and on docker.
func TestRenderEqualsSubmitCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.[jy]*")
	if dir := testcorpus.Path(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*", "*.[jy]*"))
		files = append(files, more...)
	} else {
		t.Log("no corpus: the examples only")
	}
	n := 0
	for _, f := range files {
		job, diags := load.Load(f, jobs.ReadOptions{Path: filepath.Base(f), Lossy: true})
		if job == nil || diags.HasErrors() {
			continue
		}
		for _, driver := range []string{"raw_exec", "docker"} {
			site := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: driver, Helper: shapeHelper}}
			for _, watched := range []string{"false", "true"} {
				p, diags := translate.Build(job, site, nil, "alice")
				if p == nil || diags.HasErrors() {
					continue
				}
				p.Options[OptWatched] = watched
				if _, _, diags := buildJob(p, nil); diags.HasErrors() {
					continue // refused on Nomad, with located diagnostics tested elsewhere
				}
				renderEqualsSubmit(t, srv(t), filepath.Base(f)+" "+driver+" watched="+watched, p)
				n++
			}
		}
	}
	t.Logf("%d jobs × shapes compared", n)
	if n == 0 {
		t.Fatal("nothing compared")
	}
}

// srv is one registry stand-in per test.
func srv(t *testing.T) *httptest.Server {
	s := httptest.NewServer(&registry{t: t})
	t.Cleanup(s.Close)
	return s
}

// renderEqualsSubmit checks that Submit registers, on the registry
// stand-in srv, the job and the submission Render writes for p.
func renderEqualsSubmit(t *testing.T, srv *httptest.Server, name string, p *translate.Plan) {
	t.Helper()
	rendered := map[bool][]byte{}
	for _, asJSON := range []bool{false, true} {
		d, _ := New(drivers.Config{Site: p.Site}, asJSON)
		art, err := d.Render(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rendered[asJSON] = art.Files[0].Data
	}
	var doc struct{ Job *api.Job }
	if err := json.Unmarshal(rendered[true], &doc); err != nil {
		t.Fatal(err)
	}
	d, _ := New(drivers.Config{Site: p.Site}, false)
	if _, err := d.connect(&api.Config{Address: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Submit(context.Background(), p); err != nil {
		t.Fatalf("%s: submit: %v", name, err)
	}
	fake := srv.Config.Handler.(*registry)
	fake.mu.Lock()
	reg := fake.reg
	fake.reg = nil
	fake.mu.Unlock()
	if reg == nil || reg.Submission == nil {
		t.Fatalf("%s: nothing registered", name)
	}
	if diff := cmp.Diff(doc.Job, reg.Job); diff != "" {
		t.Errorf("%s: registered job (-rendered +submitted):\n%s", name, diff)
	}
	if reg.Submission.Source != string(rendered[false]) {
		t.Errorf("%s: the submission source is not the rendered HCL", name)
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
		if _, err := d.connect(&api.Config{Address: srv.URL}); err != nil {
			t.Fatal(err)
		}
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
