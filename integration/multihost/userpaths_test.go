package multihost_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// The storage, Secret and init-container cases of issue 43, which test
// runs each on which target (here, integration/nomad, integration/slurm,
// drivers/local, examples): docs/operators.md, "Storage, Secrets and init
// containers: what the tests run".

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

// checkUserDirs: each user's directory holds the notes of its job's three
// tasks, each naming what that task listed there, and, for alice, her
// file: every task of alice's job saw her file, none of bob's did, and
// nothing of one user's job went elsewhere. (The notes, not the tasks'
// logs: Nomad's docker logger may lose the output of a container stopped
// as the job ends.)
func checkUserDirs(t *testing.T, shared string) {
	t.Helper()
	for _, u := range userPathUsers {
		dir := filepath.Join(shared, "ckpt", u.user)
		ents, err := os.ReadDir(dir)
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
		for rank := range 3 {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("note-%d.txt", rank)))
			if want := fmt.Sprintf("rank %d sees: %s\n", rank, u.sees); err != nil || string(b) != want {
				t.Errorf("%s's rank %d: note %q, %v; want %q", u.user, rank, b, err, want)
			}
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
		runNomadPlaced(t, c, cl, userPathsPlan(t, site, u.user)) // succeeded, spread over the clients
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
	}
	checkUserDirs(t, shared)
}
