package local

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// needView skips a test when this host gives tasks no namespace.
func needView(t *testing.T) {
	t.Helper()
	if mode, why := taskns.Probe(); mode == taskns.ModeNone {
		t.Skipf("no private namespace on this host: %v", why)
	}
}

func taskStdout(t *testing.T, runDir, task string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, task, "attempt-1", "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTaskHostName: each task of a PyTorchJob sees its pod's name
// (<job>-<replica type>-<i>, kubeflow/common GenGeneralName) from
// hostname(1), $HOSTNAME and gethostname(), and the name resolves.
func TestTaskHostName(t *testing.T) {
	needView(t)
	plan := loadPlan(t, filepath.Join("..", "..", "integration", "testdata", "view", "hostname.yaml"))
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	for _, tc := range []struct{ task, name string }{
		{"master-0", "names-master-0"}, {"worker-0", "names-worker-0"}, {"worker-1", "names-worker-1"},
	} {
		want := "hostname=" + tc.name + " HOSTNAME=" + tc.name + "\ngethostname=" + tc.name + " resolves=127.0.0.1\n"
		if got := taskStdout(t, runDir, tc.task); got != want {
			t.Errorf("%s printed %q, want %q", tc.task, got, want)
		}
	}
	host, _ := os.Hostname()
	if host == "names-worker-0" {
		t.Errorf("the host's own name changed to %q", host)
	}
}

// TestTaskHostNameWarning: with no namespace available the tasks keep the
// host's name, and the run warns, naming what breaks and the site setting.
func TestTaskHostNameWarning(t *testing.T) {
	plan := loadPlan(t, filepath.Join("..", "..", "integration", "testdata", "view", "hostname.yaml"))
	var warn bytes.Buffer
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir(), Warnings: &warn, taskns: taskns.ModeNone})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	host, _ := os.Hostname()
	if got := taskStdout(t, runDir, "worker-1"); !strings.HasPrefix(got, "hostname="+host+" ") {
		t.Errorf("worker-1 printed %q, want the host's name %q", got, host)
	}
	for _, want := range []string{"keep this host's name", "OpenMPI's shared-memory transport", "kernel.unprivileged_userns_clone", "containers"} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warning lacks %q:\n%s", want, warn.String())
		}
	}
}

// volumesJob is volumes.yaml with its hostPath at dataset.
func volumesJob(t *testing.T, dataset string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "view", "volumes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "volumes.yaml")
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte("DATASET"), []byte(dataset)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestViewVolumes: a hostPath volume is at its mountPath (read-only as
// written), each task's emptyDir is its own, a memory one a tmpfs of its
// sizeLimit, and nothing of it appears on the host.
func TestViewVolumes(t *testing.T) {
	needView(t)
	dataset := t.TempDir()
	if err := os.WriteFile(filepath.Join(dataset, "input.txt"), []byte("the data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(t, volumesJob(t, dataset))
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	for i, name := range []string{"data-worker-0", "data-worker-1"} {
		want := "the data\nfast\nmine-" + name + "\nfast 16384k\nread-only\n"
		if got := taskStdout(t, runDir, "worker-"+string(rune('0'+i))); got != want {
			t.Errorf("worker-%d printed %q, want %q", i, got, want)
		}
	}
	for _, p := range []string{"/train", "/scratch", filepath.Join(dataset, "x")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
}

// TestViewFiles: a role's platform files are at their paths, a secret one
// unreadable to others and removed when the task ends.
func TestViewFiles(t *testing.T) {
	needView(t)
	plan := loadPlan(t, filepath.Join("..", "..", "integration", "testdata", "view", "hostname.yaml"))
	w := plan.Job.Role("worker")
	w.Files = append(w.Files,
		jobs.File{Path: "/etc/volcano/worker.host", Content: "names-worker-0\nnames-worker-1\n", Mode: 0o644},
		jobs.File{Path: "/etc/secret-volume/token", Content: "s3cr3t", Mode: 0o644, Secret: true})
	// the master's success ends the job (PyTorchJob): it waits for the
	// workers' output, which a loaded machine can delay past its own end
	done := t.TempDir()
	w.Command.Command = []string{"sh", "-c", `cat /etc/volcano/worker.host; stat -c %a /etc/secret-volume/token; cat /etc/secret-volume/token; echo; touch ` + done + `/$HOSTNAME`}
	plan.Job.Role("master").Command.Command = []string{"sh", "-c", `until [ -e ` + done + `/names-worker-0 ] && [ -e ` + done + `/names-worker-1 ]; do sleep 0.1; done`}
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if got, want := taskStdout(t, runDir, "worker-1"), "names-worker-0\nnames-worker-1\n600\ns3cr3t\n"; got != want {
		t.Errorf("worker-1 printed %q, want %q", got, want)
	}
	left, _ := filepath.Glob(filepath.Join(runDir, "*", "attempt-1", "ns", "files", "1"))
	if len(left) > 0 {
		t.Errorf("secret files left: %v", left)
	}
	if _, err := os.Lstat("/etc/volcano"); err == nil {
		t.Error("/etc/volcano exists on the host")
	}
}

// TestViewRefused: with no namespace, a job whose tasks need data at its
// own paths is refused before anything runs, located at the volume.
func TestViewRefused(t *testing.T) {
	plan := loadPlan(t, volumesJob(t, t.TempDir()))
	d, err := New(Options{taskns: taskns.ModeNone, RunDir: filepath.Join(t.TempDir(), "run")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Submit(context.Background(), plan)
	if !errors.Is(err, taskns.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"volumes.yaml:18:15:", "/train/data", "kernel.unprivileged_userns_clone"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q: %v", want, err)
		}
	}
}

// TestViewHostile: paths a mount must not take are refused, located.
func TestViewHostile(t *testing.T) {
	plan := loadPlan(t, filepath.Join("..", "..", "integration", "testdata", "view", "hostname.yaml"))
	w := plan.Job.Role("worker")
	w.Files = append(w.Files, jobs.File{Path: "/etc/../root/.ssh/authorized_keys", Content: "x", Pos: jobs.Pos{File: "f.yaml", Line: 3, Col: 4}},
		jobs.File{Path: "/etc/a\nb", Content: "x", Pos: jobs.Pos{File: "f.yaml", Line: 5, Col: 6}})
	d, err := New(Options{taskns: taskns.ModeRoot})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Render(context.Background(), plan)
	if !errors.Is(err, taskns.ErrValue) || !strings.Contains(err.Error(), "f.yaml:3:4:") {
		t.Fatalf("err = %v, want ErrValue at f.yaml:3:4", err)
	}
}

// TestViewSiteVolumes: a PAI storage mapped by a site volume rule with
// ${user} shows each user's own directory at the job's path: two users'
// runs of one job see and write only their own data.
func TestViewSiteVolumes(t *testing.T) {
	needView(t)
	root := t.TempDir()
	for _, u := range []string{"alice", "bob"} {
		if err := os.MkdirAll(filepath.Join(root, u), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, u, "whoami.txt"), []byte("this is "+u+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := `volume "home" { path = "` + root + `/${user}" }`
	cfg, diags := siteconfig.ParseConfig([]byte(site), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	file := filepath.Join("..", "..", "integration", "testdata", "view", "pai-storage.yaml")
	for _, u := range []string{"alice", "bob"} {
		job, diags := load.Load(file, jobs.ReadOptions{Path: "pai-storage.yaml"})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		plan, diags := translate.Build(job, cfg, nil, u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
		if res.Phase != completion.PhaseSucceeded {
			t.Fatalf("%s: result %+v", u, res)
		}
		if got, want := taskStdout(t, runDir, "worker-0"), "this is "+u+"\nwhoami.txt\n"; got != want {
			t.Errorf("%s's task printed %q, want %q", u, got, want)
		}
	}
	for _, u := range []string{"alice", "bob"} {
		ents, _ := os.ReadDir(filepath.Join(root, u))
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if want := "out-" + u + ".txt whoami.txt"; strings.Join(names, " ") != want {
			t.Errorf("%s's directory holds %q, want %q", u, names, want)
		}
	}
}

// TestViewSiteVolumeSymlink: a user whose ${user} directory is a link to
// another user's is refused, located, before anything runs.
func TestViewSiteVolumeSymlink(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bob"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bob"), filepath.Join(root, "mallory")); err != nil {
		t.Fatal(err)
	}
	cfg, diags := siteconfig.ParseConfig([]byte(`volume "home" { path = "`+root+`/${user}" }`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	job, diags := load.Load(filepath.Join("..", "..", "integration", "testdata", "view", "pai-storage.yaml"), jobs.ReadOptions{Path: "pai-storage.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, cfg, nil, "mallory")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	d, err := New(Options{taskns: taskns.ModeRoot})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Render(context.Background(), plan)
	if !errors.Is(err, taskns.ErrValue) || !strings.Contains(err.Error(), "pai-storage.yaml:20:7:") || !strings.Contains(err.Error(), "outside the user's tree") {
		t.Fatalf("err = %v", err)
	}
}

// TestViewSSHFilesRefused: with no namespace, a Volcano job with the ssh
// plugin is refused before anything runs, located at the plugin: its
// files go to /root/.ssh, which only a task view places.
func TestViewSSHFilesRefused(t *testing.T) {
	plan := loadPlan(t, filepath.Join("..", "..", "examples", "testdata", "volcano-ssh-files.yaml"))
	d, err := New(Options{taskns: taskns.ModeNone, RunDir: filepath.Join(t.TempDir(), "run")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Submit(context.Background(), plan)
	if !errors.Is(err, taskns.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"volcano-ssh-files.yaml:13:5:", "/root/.ssh", "kernel.unprivileged_userns_clone"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q: %v", want, err)
		}
	}
}

// TestWarnFixedPortPeers: Volcano's TensorFlow shape (peers from
// /etc/volcano/*.host with a port of the job's own) is warned as needing
// root (each task its own network) or a host per task where the tasks'
// namespaces are not root's; as root it is not (the MPI example never).
func TestWarnFixedPortPeers(t *testing.T) {
	for _, tc := range []struct {
		file string
		mode taskns.Mode
		want bool
	}{
		{"volcano-tf-shape.yaml", taskns.ModeUser, true},
		{"volcano-tf-shape.yaml", taskns.ModeNone, true},
		{"volcano-tf-shape.yaml", taskns.ModeRoot, false},
		{"volcano-mpi.yaml", taskns.ModeUser, false},
	} {
		var warn strings.Builder
		d, err := New(Options{Warnings: &warn, RunDir: filepath.Join(t.TempDir(), "run")})
		if err != nil {
			t.Fatal(err)
		}
		d.opts.taskns = tc.mode
		d.warnView(loadPlan(t, filepath.Join("..", "..", "examples", tc.file)))
		if got := strings.Contains(warn.String(), "only root gives each task a network of its own"); got != tc.want {
			t.Errorf("%s as %s: warned %v, want %v: %q", tc.file, tc.mode, got, tc.want, warn.String())
		}
	}
}

// TestInitMemoryEmptyDir: the init container writes into the pod's
// memory emptyDir and the main container reads it: both run in the
// task's one view (the init runner is the view's command), so they share
// its tmpfs.
func TestInitMemoryEmptyDir(t *testing.T) {
	needView(t)
	plan := loadPlan(t, filepath.Join("..", "..", "integration", "testdata", "view", "init-memory.yaml"))
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if got, want := taskStdout(t, runDir, "master-0"), "fast: 300 lines\nfs: tmpfs\n"; got != want {
		t.Errorf("master-0 printed %q, want %q", got, want)
	}
}

// TestEmptyDirWritableByAll: the pod's emptyDirs are 0777, as the kubelet
// makes them, so a command that becomes another user (nobody) writes
// there, next to what the init container left. Needs root (the task drops
// to nobody).
func TestEmptyDirWritableByAll(t *testing.T) {
	needView(t)
	if os.Geteuid() != 0 {
		t.Skip("the task drops to nobody: needs root")
	}
	plan := loadPlan(t, filepath.Join("..", "..", "integration", "testdata", "view", "emptydir-nonroot.yaml"))
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
	if res.Phase != completion.PhaseSucceeded {
		b, _ := os.ReadFile(filepath.Join(runDir, "master-0", "attempt-1", "stderr"))
		t.Fatalf("result %+v; stderr %s", res, b)
	}
	if got, want := taskStdout(t, runDir, "master-0"), "cache: 777 prepared\nnobody wrote: nobody nobody\n"; got != want {
		t.Errorf("master-0 printed %q, want %q", got, want)
	}
}

// TestNetKeyPerAttempt: as root, the tasks of Volcano's TensorFlow shape
// share one task network per attempt of the run, another for a retry
// (whose tasks may start while one of the last attempt's still holds its
// link): every task of attempt N names runDir/attempt-N+1.
func TestNetKeyPerAttempt(t *testing.T) {
	d, err := New(Options{Warnings: io.Discard, RunDir: filepath.Join(t.TempDir(), "run")})
	if err != nil {
		t.Fatal(err)
	}
	d.opts.taskns = taskns.ModeRoot
	p := loadPlan(t, filepath.Join("..", "..", "examples", "volcano-tf-shape.yaml"))
	for attempt, want := range []string{"/runs/r1/attempt-1", "/runs/r1/attempt-2"} {
		specs, err := d.prepare(p, "/runs/r1", attempt)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range specs {
			if s.View == nil || s.View.spec.Net == nil || s.View.spec.Net.Key != want {
				t.Errorf("attempt %d, task %s: view %+v, want the network key %s", attempt, refString(s.Ref), s.View, want)
			}
		}
	}
}
