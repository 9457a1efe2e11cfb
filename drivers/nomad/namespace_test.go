package nomad

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// nsCluster is a stand-in for the Nomad HTTP API of a cluster with one
// namespace per user: each job exists only in its own namespace (Nomad
// answers 404 for a job asked for in another), has no allocations yet and
// no Variables. Every request naming a job in another namespace than the
// job's is kept as wrong; allocation queries are counted per job.
type nsCluster struct {
	t     *testing.T
	mu    sync.Mutex
	jobs  map[string]*api.Job
	polls map[string]int
	wrong []string
	index uint64
}

func (f *nsCluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path == "/v1/jobs" && r.Method == http.MethodGet {
		f.list(w, r.URL.Query().Get("namespace"))
		return
	}
	var job *api.Job
	for id, j := range f.jobs {
		if strings.Contains(r.URL.Path, id) {
			job = j
		}
	}
	if job == nil {
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "unexpected", http.StatusInternalServerError)
		return
	}
	if ns := r.URL.Query().Get("namespace"); ns != *job.Namespace {
		f.wrong = append(f.wrong, fmt.Sprintf("%s %s in namespace %q", r.Method, r.URL.Path, ns))
		http.Error(w, "job not found", http.StatusNotFound)
		return
	}
	// every answer is news: a blocking query returns at once
	f.index++
	w.Header().Set("X-Nomad-Index", strconv.FormatUint(f.index, 10))
	switch p := r.URL.Path; {
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/allocations"):
		f.polls[*job.ID]++
		_, _ = w.Write([]byte("[]"))
	case r.Method == http.MethodGet && p == "/v1/job/"+*job.ID:
		_ = json.NewEncoder(w).Encode(job)
	default: // no Variables
		http.Error(w, "not found", http.StatusNotFound)
	}
}

// list answers a job list as Nomad does: the jobs of the namespace asked
// for ("" is "default"), or of every namespace for "*".
func (f *nsCluster) list(w http.ResponseWriter, ns string) {
	if ns == "" {
		ns = "default"
	}
	stubs := []*api.JobListStub{}
	for _, j := range f.jobs {
		if ns == api.AllNamespacesNamespace || ns == *j.Namespace {
			stubs = append(stubs, &api.JobListStub{ID: *j.ID, Namespace: *j.Namespace, Meta: j.Meta, Status: *j.Status, ModifyIndex: *j.JobModifyIndex})
		}
	}
	f.index++
	w.Header().Set("X-Nomad-Index", strconv.FormatUint(f.index, 10))
	_ = json.NewEncoder(w).Encode(stubs)
}

func (f *nsCluster) followed(min int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range f.jobs {
		if f.polls[id] < min {
			return false
		}
	}
	return true
}

// TestWatchTwoNamespaces: one driver watching two users' jobs at once,
// each in its user's namespace (namespace_per_user, as the controller
// does), asks for each job only in that job's namespace. A driver whose
// one client took the namespace of the handle watched last sent the first
// job's allocation queries to the second namespace, where Nomad knows no
// such job.
func TestWatchTwoNamespaces(t *testing.T) {
	d, f, handles := twoUsers(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for _, h := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev, err := d.Watch(ctx, h)
			if err != nil {
				t.Errorf("watch %s: %v", h, err)
				return
			}
			for range ev {
			}
		}()
	}
	for end := time.Now().Add(10 * time.Second); !f.followed(20) && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	cancel()
	wg.Wait()
	f.check(t)
}

// TestControllerEveryNamespace: the controller lists the jobs of every
// namespace (a controller limited to its client's namespace watched
// neither user's job) and follows each in its own namespace.
func TestControllerEveryNamespace(t *testing.T) {
	d, f, _ := twoUsers(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Controller{D: d, Every: time.Second}).Run(ctx) }()
	for end := time.Now().Add(10 * time.Second); !f.followed(20) && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	cancel()
	<-done
	f.check(t)
}

// twoUsers is a driver of a namespace_per_user site connected to an
// nsCluster holding one job of alice's and one of bob's, and their handles.
func twoUsers(t *testing.T) (*Driver, *nsCluster, []drivers.Handle) {
	site := rawExecSite()
	site.Nomad.NamespacePerUser = true
	f := &nsCluster{t: t, jobs: map[string]*api.Job{}, polls: map[string]int{}}
	var handles []drivers.Handle
	for _, user := range []string{"alice", "bob"} {
		p := plan(psWorker("train", "sleep 60"), site)
		p.User = user
		job, _, diags := buildJob(p, fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if job.Namespace == nil || *job.Namespace != NamespaceFor(user) {
			t.Fatalf("%s's job is not in namespace %s: %v", user, NamespaceFor(user), job.Namespace)
		}
		job.Version, job.JobModifyIndex, job.Stop = new(uint64(0)), new(uint64(1)), new(false)
		job.SubmitTime, job.Status = new(time.Now().UnixNano()), new("pending")
		f.jobs[*job.ID] = job
		handles = append(handles, drivers.Handle{Driver: TargetHCL, ID: *job.ID, Meta: map[string]string{drivers.MetaNamespace: *job.Namespace}})
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	d, _ := New(drivers.Config{Site: site}, false)
	if _, err := d.connect(&api.Config{Address: srv.URL}); err != nil {
		t.Fatal(err)
	}
	return d, f, handles
}

// check: no request in the wrong namespace, and each job's allocations
// followed.
func (f *nsCluster) check(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.wrong[:min(len(f.wrong), 5)] {
		t.Errorf("asked in the wrong namespace: %s", w)
	}
	if len(f.wrong) > 5 {
		t.Errorf("... and %d more", len(f.wrong)-5)
	}
	for id := range f.jobs {
		if f.polls[id] < 20 {
			t.Errorf("job %s: %d allocation queries in its namespace, want 20 or more", id, f.polls[id])
		}
	}
}
