package multihost_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// userPathUsers are the two users of the ${user} tests and what each of
// their tasks must list in its checkpoint claim: alice's file for alice,
// nothing for bob.
var userPathUsers = []struct{ user, sees string }{{"alice", "alice-only.txt "}, {"bob", ""}}

// userPaths lays out two users' checkpoint directories in a temporary
// directory every host sees (alice's holding alice-only.txt) and returns
// it with c's site config mapping claim "checkpoints" per user.
func userPaths(t *testing.T, c *cluster) (string, *siteconfig.Config) {
	t.Helper()
	shared := t.TempDir()
	for _, u := range userPathUsers {
		if err := os.MkdirAll(filepath.Join(shared, "ckpt", u.user), 0o777); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(filepath.Join(shared, "ckpt", u.user), 0o777) // a Slurm task's user writes there
	}
	if err := os.WriteFile(filepath.Join(shared, "ckpt", "alice", "alice-only.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, d := siteconfig.ParseConfig([]byte(`volume "checkpoints" { path = "`+shared+`/ckpt/${user}" }`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	site := *c.Site
	site.Volumes = rules.Volumes
	return shared, &site
}

// userPathsPlan is integration/testdata/view/user-ckpt-spread.yaml (a
// master and two workers) planned for user on site.
func userPathsPlan(t *testing.T, site *siteconfig.Config, user string) *translate.Plan {
	t.Helper()
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "user-ckpt-spread.yaml")
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, site, nil, user)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{}
	return plan
}

// rankOf is the PyTorchJob rank of a task: the master 0, worker i i+1.
func rankOf(role string, i int) int {
	if role == "master" {
		return 0
	}
	return i + 1
}

// checkUserDirs: each user's directory holds its own notes (one per
// rank) and, for alice, her file: nothing of one user's job went
// elsewhere.
func checkUserDirs(t *testing.T, shared string) {
	t.Helper()
	for _, u := range userPathUsers {
		ents, err := os.ReadDir(filepath.Join(shared, "ckpt", u.user))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		want := "note-0.txt note-1.txt note-2.txt"
		if u.user == "alice" {
			want = "alice-only.txt " + want
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s's directory holds %q, want %q", u.user, got, want)
		}
	}
}

// TestUserPathsNomad: alice's and bob's runs of one job with the claim
// mapped per user, on raw_exec across the clients (each task's view binds
// its user's directory on its own client): every task of alice's job sees
// her file, none of bob's does, and each note lands in its user's
// directory.
func TestUserPathsNomad(t *testing.T) {
	c := need(t, "nomad")
	userPathsNomad(t, c, c)
}

// TestUserPathsNomadDocker: the same on the clients' Docker daemons (a
// driver volume of the user's directory).
func TestUserPathsNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	userPathsNomad(t, c, dockerCluster(t, c))
}

func userPathsNomad(t *testing.T, c, on *cluster) {
	t.Helper()
	cl := nomadClient(t, c)
	shared, site := userPaths(t, on)
	for _, u := range userPathUsers {
		tasks, _ := runNomadPlaced(t, c, cl, userPathsPlan(t, site, u.user))
		for _, nt := range tasks {
			want := fmt.Sprintf("rank %d sees: %s\n", rankOf(nt.role, nt.index), u.sees)
			var out string
			// a Docker task's output reaches its file through Nomad's
			// docker logger, which may still be writing it at the job's end
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				out = catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
				if out != "" || time.Now().After(deadline) {
					break
				}
			}
			if out != want {
				t.Errorf("%s's %s: printed %q, want %q", u.user, nt.alloc.Name, out, want)
			}
		}
	}
	checkUserDirs(t, shared)
}

// TestUserPathsSlurm: the same on the Slurm cluster (three hosts).
func TestUserPathsSlurm(t *testing.T) {
	c := need(t, "slurm")
	shared, site := userPaths(t, c)
	for _, u := range userPathUsers {
		plan := userPathsPlan(t, site, u.user)
		r := runSlurm(t, plan, 3*time.Minute)
		if r.final.Phase != completion.PhaseSucceeded {
			t.Fatalf("%s: final %+v", u.user, r.final)
		}
		checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
		for role, n := range map[string]int{"master": 1, "worker": 2} {
			for i := range n {
				want := fmt.Sprintf("rank %d sees: %s\n", rankOf(role, i), u.sees)
				if out := r.taskLog(t, role, i); out != want {
					t.Errorf("%s's %s-%d: printed %q, want %q", u.user, role, i, out, want)
				}
			}
		}
	}
	checkUserDirs(t, shared)
}
