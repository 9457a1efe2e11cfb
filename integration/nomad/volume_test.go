package nomad_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// claimsOn is the claim-reading job on raw_exec with its dataset claim
// mapped to shared/data and its checkpoint claim to shared/<ckpt> (the
// job's user is alice).
func claimsOn(t *testing.T, shared, ckpt string) (*completion.Phase, string, string) {
	t.Helper()
	cfg := site()
	rules, d := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+"/"+ckpt+`" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	cfg.Volumes = rules.Volumes
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "claim.yaml"), cfg)
	res, id := run(t, p)
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil || len(allocs) == 0 {
		t.Fatalf("allocations: %v", err)
	}
	return &res.Phase, catLogs(t, allocs[0].ID, nomad.MainTask), catStderr(t, allocs[0].ID, nomad.MainTask)
}

// sharedTree is a temporary shared directory with data/hello.txt.
func sharedTree(t *testing.T, dirs ...string) string {
	shared := t.TempDir()
	for _, d := range append([]string{"data"}, dirs...) {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shared, "data", "hello.txt"), []byte("dataset seen at /dataset\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return shared
}

// TestMappedVolumeOnRawExec: the task reads its dataset claim at
// /dataset and writes its checkpoint at /ckpt, the claims mapped by site
// rules (the checkpoint one per user) and bound by the task view.
func TestMappedVolumeOnRawExec(t *testing.T) {
	shared := sharedTree(t, "home/alice")
	phase, out, errOut := claimsOn(t, shared, "home/${user}")
	if strings.Contains(errOut, "allows none") {
		t.Skipf("the client allows no namespace: %s", errOut)
	}
	if *phase != completion.PhaseSucceeded || out != "dataset seen at /dataset\n" {
		t.Fatalf("phase %s, output %q, stderr %q", *phase, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(shared, "home", "alice", "master.txt")); err != nil || !strings.HasPrefix(string(b), "ckpt from claimread-master-0") {
		t.Errorf("the checkpoint did not land in alice's mapped directory: %q, %v", b, err)
	}
}

// TestMappedVolumeLinkRefusedOnRawExec: hostile layouts on the client
// (alice's directory a link to bob's; a link below it out of her tree)
// are refused by the task view before the command, which runs as the
// client's user here (root): nothing is written into bob's tree.
func TestMappedVolumeLinkRefusedOnRawExec(t *testing.T) {
	for _, c := range []struct{ name, rule, link, to, want string }{
		{"user dir is a link", "home/${user}", "home/alice", "bob", "is a symbolic link"},
		{"link below the user dir", "home/${user}/ckpt", "home/alice/ckpt", "../bob", "outside the mapped tree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			shared := sharedTree(t, "home/bob")
			if err := os.MkdirAll(filepath.Dir(filepath.Join(shared, c.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(c.to, filepath.Join(shared, c.link)); err != nil {
				t.Fatal(err)
			}
			phase, _, errOut := claimsOn(t, shared, c.rule)
			if *phase != completion.PhaseFailed || !strings.Contains(errOut, c.want) {
				t.Errorf("phase %s, stderr %q; want a failure saying %q", *phase, errOut, c.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(shared, "home", "bob")); len(entries) > 0 {
				t.Errorf("the task wrote into bob's tree: %v", entries)
			}
		})
	}
}

// TestUserPathsOnNomad: two users' jobs with the checkpoint claim mapped
// per user (${user}), on raw_exec (the task view's bind) and docker (a
// driver volume): alice's job sees her own file, bob's nothing of hers,
// and each note lands in its user's directory.
func TestUserPathsOnNomad(t *testing.T) {
	for _, driver := range []string{"raw_exec", "docker"} {
		t.Run(driver, func(t *testing.T) {
			cfg := site()
			if driver == "docker" {
				cfg = dockerSite(t)
				needDockerVolumes(t)
			}
			shared := t.TempDir()
			for _, u := range []string{"alice", "bob"} {
				if err := os.MkdirAll(filepath.Join(shared, "ckpt", u), 0o777); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(shared, "ckpt", "alice", "alice-only.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			rules, d := siteconfig.ParseConfig([]byte(`volume "checkpoints" { path = "`+shared+`/ckpt/${user}" }`), "site.hcl")
			if d.HasErrors() {
				t.Fatal(d.Error())
			}
			cfg.Volumes = rules.Volumes
			path := filepath.Join(agent.Repo(), "integration", "testdata", "view", "user-ckpt.yaml")
			job, diags := load.Load(path, jobs.ReadOptions{Path: path})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, c := range []struct{ user, sees string }{{"alice", "sees: alice-only.txt \n"}, {"bob", "sees: \n"}} {
				p, diags := translate.Build(job, cfg, nil, c.user)
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				res, id := run(t, p)
				allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
				if err != nil || len(allocs) == 0 {
					t.Fatalf("allocations: %v", err)
				}
				out, errOut := catLogs(t, allocs[0].ID, nomad.MainTask), catStderr(t, allocs[0].ID, nomad.MainTask)
				if strings.Contains(errOut, "allows none") {
					t.Skipf("the client allows no namespace: %s", errOut)
				}
				if res.Phase != completion.PhaseSucceeded || out != c.sees {
					t.Errorf("%s: phase %s, printed %q, want %q (stderr %q)", c.user, res.Phase, out, c.sees, errOut)
				}
				if b, err := os.ReadFile(filepath.Join(shared, "ckpt", c.user, "note.txt")); err != nil || string(b) != "written\n" {
					t.Errorf("%s's note in the user's directory: %q, %v", c.user, b, err)
				}
			}
		})
	}
}
