package nomad_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/testcorpus"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// nowhere is a datacenter no client of any cluster has: a job registered
// there is stored (what `nomad job inspect` shows) and never placed, so no
// task of an example or a corpus job runs on the shared agent, and the
// comparison rests on registration alone.
const nowhere = "jobshift-inspect-nowhere"

// TestConvertEqualsRegistered: for every example and every corpus job
// that converts, on raw_exec and docker with the helper, watched and not,
// what convert -to nomad-json [-watched] writes (Render with the plan's
// OptWatched, as cmd/jobshift/convert.go sets it) is what run -to nomad
// [-detach] registers on a real agent (Submit with OptWatched = !detach,
// as cmd/jobshift/run.go sets it):
//
//   - the register request Submit sends equals the converted job exactly
//     (no field normalised);
//   - the job the agent stores (Jobs().Info: nomad job inspect) holds,
//     task group by task group, every field the converted job sets, with
//     the same value; the agent fills only what the converted job leaves
//     unset (its defaults, IDs, indexes, timestamps, status: listed in the
//     log), and adds no group, task, list element or map key;
//   - the submission it stores (nomad job inspect -hcl) is convert -to
//     nomad's HCL, header included.
func TestConvertEqualsRegistered(t *testing.T) {
	start := time.Now()
	c := agent.Client(t)
	reg := &registrar{agent: agent.Addr(t)}
	t.Setenv("NOMAD_ADDR", newProxy(t, reg))

	files := inspectFiles(t)
	filled := map[string]bool{}
	n, unread := 0, 0
	for _, f := range files {
		job, diags := load.Load(f.path, jobs.ReadOptions{Path: f.path, Lossy: f.corpus})
		if job == nil || diags.HasErrors() {
			if !f.corpus {
				t.Errorf("%s: %s", f.path, diags.Error())
			}
			unread++
			continue
		}
		for _, v := range inspectSites {
			if f.corpus && !v.corpus {
				continue
			}
			for _, watched := range []bool{false, true} {
				name := fmt.Sprintf("%s %s watched=%t", filepath.Base(f.path), v.name, watched)
				if inspectOne(t, c, reg, name, job, v.site(), watched, filled) {
					n++
				}
			}
		}
	}
	var paths []string
	for p := range filled {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	t.Logf("%d files (%d do not read, %d refused on Nomad), %d jobs × site × shape registered and compared in %s",
		len(files), unread, len(refused), n, time.Since(start).Round(time.Millisecond))
	t.Logf("fields the agent filled in (unset in the converted job):\n  %s", strings.Join(paths, "\n  "))
	if n == 0 {
		t.Fatal("nothing compared")
	}
}

// inspectSites are the site settings the jobs are converted and
// registered with: the examples with each of them (every task driver, the
// helper, the env helper or neither), the corpus with the first two (to
// keep the suite short: the corpus adds job variety, not shapes).
type inspectSiteRow struct {
	name, driver, helper, envHelper string
	corpus                          bool
}

var inspectSites = []inspectSiteRow{
	{"raw_exec helper", "raw_exec", "/usr/local/bin/jobshift", "", true},
	{"docker helper", "docker", "/usr/local/bin/jobshift", "", true},
	{"raw_exec", "raw_exec", "", "", false},
	{"raw_exec env-helper", "raw_exec", "", "/usr/local/bin/jobshift-env", false},
	{"exec helper", "exec", "/usr/local/bin/jobshift", "", false},
	{"exec", "exec", "", "", false},
	{"docker", "docker", "", "", false},
	{"podman helper", "podman", "/usr/local/bin/jobshift", "", false},
}

func (v inspectSiteRow) site() *siteconfig.Config {
	return &siteconfig.Config{Nomad: &siteconfig.NomadConfig{
		Driver: v.driver, Helper: v.helper, EnvHelper: v.envHelper, CPUMHzPerCore: 100, Datacenters: []string{nowhere},
	}}
}

type inspectFile struct {
	path   string
	corpus bool
}

// inspectFiles: every job file of examples/ and, when present, of the
// corpus.
func inspectFiles(t *testing.T) []inspectFile {
	var files []inspectFile
	ex, _ := filepath.Glob(filepath.Join(agent.Repo(), "examples", "*.[jy]*"))
	for _, f := range ex {
		files = append(files, inspectFile{f, false})
	}
	if dir := testcorpus.Path(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*", "*.[jy]*"))
		for _, f := range more {
			files = append(files, inspectFile{f, true})
		}
	} else {
		t.Log("no corpus: the examples only")
	}
	return files
}

var inspectSeq int

// inspectOne converts and registers one job in one shape and compares
// them; false when the job does not convert on Nomad (refused with
// located diagnostics, tested elsewhere).
func inspectOne(t *testing.T, c *api.Client, reg *registrar, name string, job *jobs.Job, site *siteconfig.Config, watched bool, filled map[string]bool) bool {
	t.Helper()
	p, diags := translate.Build(job, site, nil, "alice")
	if p == nil || diags.HasErrors() {
		refusal(t, name, diags.Error())
		return false
	}
	inspectSeq++
	id := fmt.Sprintf("inspect-%d-%d", time.Now().UnixNano()%1e6, inspectSeq)
	p.Options["id"] = id
	p.Options[nomad.OptWatched] = fmt.Sprint(watched)
	converted, hcl, ok := convert(t, name, p)
	if !ok {
		return false
	}
	checkShape(t, name, converted, watched)
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: site, Warnings: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer purge(t, c, id)
	if _, err := d.Submit(context.Background(), p); err != nil {
		t.Errorf("%s: run: %v", name, err)
		return false
	}
	if diff := cmp.Diff(converted, reg.take(id)); diff != "" {
		t.Errorf("%s: registered job (-converted +registered):\n%s", name, diff)
	}
	stored, _, err := c.Jobs().Info(id, nil)
	if err != nil {
		t.Fatalf("%s: nomad job inspect: %v", name, err)
	}
	for _, d := range compareGroups(converted, stored, filled) {
		t.Errorf("%s: %s", name, d)
	}
	sub, _, err := c.Jobs().Submission(id, 0, nil)
	if err != nil || sub.Source != hcl {
		t.Errorf("%s: the stored submission (nomad job inspect -hcl) is not convert -to nomad's HCL (%v)", name, err)
	}
	if allocs, _, err := c.Jobs().Allocations(id, true, nil); err != nil || len(allocs) > 0 {
		t.Errorf("%s: %d allocation(s) placed in datacenter %s (%v): a task may have run", name, len(allocs), nowhere, err)
	}
	return true
}

// checkShape: the converted job is of the shape asked for (else both
// sides could ignore the watch input and still agree).
func checkShape(t *testing.T, name string, job *api.Job, watched bool) {
	t.Helper()
	want := map[bool]string{true: "watched:", false: "unwatched:"}[watched]
	if !strings.HasPrefix(job.Meta[nomad.MetaShape], want) {
		t.Errorf("%s: converted shape %q, want %s", name, job.Meta[nomad.MetaShape], want)
	}
}

var refused = map[string]bool{}

// refusal logs the first refusal of each file.
func refusal(t *testing.T, name, why string) {
	file := strings.Fields(name)[0]
	if !refused[file] {
		refused[file] = true
		t.Logf("%s does not convert (on at least %s): %s", file, strings.TrimPrefix(name, file+" "), strings.SplitN(why, "\n", 2)[0])
	}
}

// convert renders p as convert -to nomad-json and -to nomad write it.
func convert(t *testing.T, name string, p *translate.Plan) (*api.Job, string, bool) {
	t.Helper()
	out := map[string][]byte{}
	for _, target := range []string{nomad.TargetJSON, nomad.TargetHCL} {
		d, err := drivers.New(target, drivers.Config{Site: p.Site, Warnings: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		art, err := d.Render(context.Background(), p)
		if err != nil {
			refusal(t, name, err.Error())
			return nil, "", false
		}
		out[target] = art.Files[0].Data
	}
	var doc struct{ Job *api.Job }
	if err := json.Unmarshal(out[nomad.TargetJSON], &doc); err != nil || doc.Job == nil {
		t.Fatalf("%s: convert -to nomad-json: %v", name, err)
	}
	return doc.Job, string(out[nomad.TargetHCL]), true
}

// purge removes the job and every Variable Submit wrote for it.
func purge(t *testing.T, c *api.Client, id string) {
	if _, _, err := c.Jobs().DeregisterOpts(id, &api.DeregisterOptions{Purge: true}, nil); err != nil && !strings.Contains(err.Error(), "404") {
		t.Errorf("purging %s: %v", id, err)
	}
	for _, prefix := range []string{nomad.VariablePath(id), nomad.ResultPath(id)} {
		vars, _, _ := c.Variables().PrefixList(prefix, nil)
		for _, v := range vars {
			if _, err := c.Variables().Delete(v.Path, nil); err != nil {
				t.Errorf("deleting Variable %s: %v", v.Path, err)
			}
		}
	}
}

// registrar stands between Submit and the agent: it keeps every register
// request's job, and answers the dry-run plan itself (every group placed),
// because the agent's plan reports a job in datacenter nowhere unplaceable
// and Submit refuses to register an unplaceable job. Every other request
// (job lookup, client list, Variables, the register itself) goes to the
// agent unchanged.
type registrar struct {
	agent string
	mu    sync.Mutex
	jobs  map[string]*api.Job
}

var planPath = regexp.MustCompile(`^/v1/job/[^/]+/plan$`)

func (r *registrar) handler(t *testing.T) http.Handler {
	u, err := url.Parse(r.agent)
	if err != nil {
		t.Fatal(err)
	}
	fwd := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case planPath.MatchString(req.URL.Path):
			_, _ = io.WriteString(w, `{}`)
		case req.URL.Path == "/v1/jobs" && req.Method != http.MethodGet:
			body, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var rr api.JobRegisterRequest
			if err := json.Unmarshal(body, &rr); err != nil || rr.Job == nil {
				t.Errorf("register request: %v", err)
			} else {
				r.mu.Lock()
				if r.jobs == nil {
					r.jobs = map[string]*api.Job{}
				}
				r.jobs[*rr.Job.ID] = rr.Job
				r.mu.Unlock()
			}
			req.Body = io.NopCloser(strings.NewReader(string(body)))
			req.ContentLength = int64(len(body))
			fwd.ServeHTTP(w, req)
		default:
			fwd.ServeHTTP(w, req)
		}
	})
}

// newProxy serves reg in front of the agent until the test ends; its URL
// is the NOMAD_ADDR jobshift is given.
func newProxy(t *testing.T, reg *registrar) string {
	s := httptest.NewServer(reg.handler(t))
	t.Cleanup(s.Close)
	return s.URL
}

// take is the job last registered under id.
func (r *registrar) take(id string) *api.Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[id]
	delete(r.jobs, id)
	return j
}
