package slurm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestMappedVolume: a PyTorchJob reads its dataset claim at /dataset and
// writes its checkpoint claim at /ckpt; the site maps the claims to
// directories of this machine (the test cluster's shared file system),
// the checkpoint one per user, and the task sees them at the job's paths
// (drivers/taskns through js_exec_view, _t_nsbind_R).
func TestMappedVolume(t *testing.T) {
	needCluster(t)
	shared := t.TempDir()
	for _, d := range []string{"data", "home/ci"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(shared, "home", "ci"), 0o777) // the tasks' user writes there
	if err := os.WriteFile(filepath.Join(shared, "data", "hello.txt"), []byte("dataset seen at /dataset\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	site, d := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+`/home/${user}" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "claim.yaml")
	plan := loadSitePlan(t, path, site)
	r := submit(t, plan, 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	if strings.Contains(string(errOut), "keeps the node's host name") {
		t.Skipf("the nodes allow no namespace: %s", errOut)
	}
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v; stderr %s", r.final, errOut)
	}
	if string(out) != "dataset seen at /dataset\n" {
		t.Errorf("master printed %q, want the dataset file (stderr %q)", out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(shared, "home", "ci", "master.txt")); err != nil || !strings.HasPrefix(string(b), "ckpt from ") {
		t.Errorf("the checkpoint did not land in the user's mapped directory: %q, %v", b, err)
	}
}

// TestMappedVolumeLinkRefused: hostile layouts of the same job's claims
// on the nodes: the user's own directory of a ${user} rule is a link to
// another user's, or a directory below it is a link out of the user's
// tree. The task never starts (the wrapper refuses before the command,
// naming the link) and nothing is written into the other tree.
func TestMappedVolumeLinkRefused(t *testing.T) {
	needCluster(t)
	for _, c := range []struct{ name, rule, link, to, want string }{
		{"user dir is a link", "home/${user}", "home/ci", "../other", "is a symbolic link"},
		{"link below the user dir", "home/${user}/ckpt", "home/ci/ckpt", "../../other", "outside the mapped tree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			shared := t.TempDir()
			for _, d := range []string{"data", "home", "other"} {
				if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
					t.Fatal(err)
				}
			}
			_ = os.Chmod(filepath.Join(shared, "other"), 0o777)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(shared, c.link)), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(c.to, filepath.Join(shared, c.link)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(shared, "data", "hello.txt"), []byte("dataset\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			site, d := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+"/"+c.rule+`" }
`), "site.hcl")
			if d.HasErrors() {
				t.Fatal(d.Error())
			}
			path := filepath.Join(repoRoot(), "integration", "testdata", "view", "claim.yaml")
			plan := loadSitePlan(t, path, site)
			r := submit(t, plan, 3*time.Minute)
			errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
			if strings.Contains(string(errOut), "keeps the node's host name") {
				t.Skipf("the nodes allow no namespace: %s", errOut)
			}
			if r.final.Phase != completion.PhaseFailed || !strings.Contains(string(errOut), c.want) {
				t.Errorf("final %+v, stderr %q; want a failure saying %q", r.final, errOut, c.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(shared, "other")); len(entries) > 0 {
				t.Errorf("the task wrote into the other tree: %v", entries)
			}
		})
	}
}

// TestSharedClaimTFJob: the TFJob's two workers read the dataset claim
// (100 lines) and write their checkpoints to the checkpoint claim, mapped
// per user; the chief reads both, and they are in the user's directory
// of the shared tree afterwards.
func TestSharedClaimTFJob(t *testing.T) {
	needCluster(t)
	shared := t.TempDir()
	for _, d := range []string{"data", "ckpt/ci"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(shared, "ckpt", "ci"), 0o777)
	if err := os.WriteFile(filepath.Join(shared, "data", "train.txt"), []byte(strings.Repeat("x\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	site, d := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+`/ckpt/${user}" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "tfjob-shared.yaml")
	plan := loadSitePlan(t, path, site)
	r := submit(t, plan, 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "chief-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "chief-0.err"))
	if strings.Contains(string(errOut), "keeps the node's host name") {
		t.Skipf("the nodes allow no namespace: %s", errOut)
	}
	want := "shared-worker-0 read 100 lines\nshared-worker-1 read 100 lines\n"
	if r.final.Phase != completion.PhaseSucceeded || string(out) != want {
		t.Fatalf("final %+v, chief printed %q (stderr %q), want %q", r.final, out, errOut, want)
	}
	for _, name := range []string{"shared-worker-0", "shared-worker-1"} {
		if b, err := os.ReadFile(filepath.Join(shared, "ckpt", "ci", name+".ckpt")); err != nil || string(b) != name+" read 100 lines\n" {
			t.Errorf("%s's checkpoint in the shared tree: %q, %v", name, b, err)
		}
	}
}

// TestInitMemoryEmptyDir: the init container writes into the pod's
// memory emptyDir and the main container reads it: both run in the
// task's one view (js_exec_view, jobshift-init), so they share its tmpfs.
func TestInitMemoryEmptyDir(t *testing.T) {
	needCluster(t)
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "init-memory.yaml")
	r := submit(t, loadSitePlan(t, path, nil), 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	if strings.Contains(string(errOut), "keeps the node's host name") {
		t.Skipf("the nodes allow no namespace: %s", errOut)
	}
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v; stderr %s", r.final, errOut)
	}
	if string(out) != "fast: 300 lines\nfs: tmpfs\n" {
		t.Errorf("master printed %q, want the init container's 300 lines on a tmpfs (stderr %q)", out, errOut)
	}
}

// TestEmptyDirNonRoot: the pod's emptyDirs are 0777 (the taskns 'empty'
// line makes them so, as the kubelet does): the main container's command,
// dropped to nobody, writes into both, next to the init container's file.
func TestEmptyDirNonRoot(t *testing.T) {
	needCluster(t)
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "emptydir-nonroot.yaml")
	r := submit(t, loadSitePlan(t, path, nil), 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	switch {
	case strings.Contains(string(errOut), "keeps the node's host name"):
		t.Skipf("the nodes allow no namespace: %s", errOut)
	case strings.Contains(string(errOut), "setpriv: setresuid failed"):
		t.Skipf("the tasks do not run as root, so they cannot become nobody: %s", errOut)
	}
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v; stderr %s", r.final, errOut)
	}
	if string(out) != "cache: 777 prepared\nnobody wrote: nobody nobody\n" {
		t.Errorf("master printed %q (stderr %q)", out, errOut)
	}
}

// TestUserPaths: two users' jobs with the checkpoint claim mapped per user
// (${user}): alice's job sees her own file, bob's sees nothing of hers,
// and each note lands in its user's directory.
func TestUserPaths(t *testing.T) {
	needCluster(t)
	shared := t.TempDir()
	for _, u := range []string{"alice", "bob"} {
		if err := os.MkdirAll(filepath.Join(shared, "ckpt", u), 0o777); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(filepath.Join(shared, "ckpt", u), 0o777)
	}
	if err := os.WriteFile(filepath.Join(shared, "ckpt", "alice", "alice-only.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	site, d := siteconfig.ParseConfig([]byte(`volume "checkpoints" { path = "`+shared+`/ckpt/${user}" }`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "user-ckpt.yaml")
	for _, c := range []struct{ user, sees string }{{"alice", "sees: alice-only.txt \n"}, {"bob", "sees: \n"}} {
		r := submit(t, loadUserPlan(t, path, site, c.user), 3*time.Minute)
		out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
		errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
		if strings.Contains(string(errOut), "needs") && strings.Contains(string(errOut), "namespace") {
			t.Skipf("the nodes allow no namespace: %s", errOut)
		}
		if r.final.Phase != completion.PhaseSucceeded || string(out) != c.sees {
			t.Errorf("%s: final %+v, printed %q, want %q (stderr %q)", c.user, r.final, out, c.sees, errOut)
		}
		if b, err := os.ReadFile(filepath.Join(shared, "ckpt", c.user, "note.txt")); err != nil || string(b) != "written\n" {
			t.Errorf("%s's note in the user's directory: %q, %v", c.user, b, err)
		}
	}
}
