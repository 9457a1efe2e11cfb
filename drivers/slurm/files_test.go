package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// filesRole has the files of a ConfigMap and of a Secret volume, with
// content a shell quote must carry byte for byte.
func filesRole() roleInfo {
	return roleInfo{Role: &jobs.Role{Name: "worker", Instances: 1, Files: []jobs.File{
		{Path: "/etc/train/config.yaml", Content: "epochs: 3\nnote: \"it's $HOME `x`\"\n\n", Mode: 0o640},
		{Path: "/var/run/secrets/store/key", Content: "s3cr'et\n$PATH", Mode: 0o400, Secret: true},
	}}, k: 0}
}

// TestFilesWritten runs js_files (sh/run.sh) from filesData under dash and
// bash: each file is written byte-exact with its mode into a 0700
// directory, the Secret's content read from the secrets file (the data
// holds only its number), and one "bind ro" line per file is printed for
// the task view; js_drop_secrets (sh/batch.sh) removes the copies when the
// attempt ends; a missing secrets file ends the task (97) with no bind.
func TestFilesWritten(t *testing.T) {
	ri := filesRole()
	sec := &secretTable{index: map[string]int{}}
	data := filesData(ri, sec)
	if strings.Contains(data, "s3cr") {
		t.Fatalf("the job data holds the secret:\n%s", data)
	}
	for _, sh := range shells {
		dir := t.TempDir()
		adir := filepath.Join(dir, "attempt-1")
		mustOK(t, os.Mkdir(adir, 0o700))
		mustOK(t, os.WriteFile(filepath.Join(dir, "secrets"), sec.file(), 0o600))
		fdir := filepath.Join(adir, "ns-0-0", "files")
		mustOK(t, os.MkdirAll(fdir, 0o755)) // a stale one is made fresh
		script := data + "_jsh_sd='" + adir + "'\n" + `js_files 0 "$_jsh_sd/ns-0-0/files" "$(printf '\t')"`
		out, code := runSh(t, sh, shRun, script)
		want := "bind\tro\t" + fdir + "/0\t/etc/train/config.yaml\nbind\tro\t" + fdir + "/1\t/var/run/secrets/store/key\n"
		if code != 0 || out != want {
			t.Fatalf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
		if fi, err := os.Stat(fdir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: files directory %v %v, want 0700", sh, fi.Mode(), err)
		}
		for j, f := range ri.Files {
			p := filepath.Join(fdir, fmt.Sprint(j))
			b, err := os.ReadFile(p)
			fi, _ := os.Stat(p)
			if err != nil || string(b) != f.Content || fi.Mode().Perm() != os.FileMode(f.Mode) {
				t.Errorf("%s: file %s: %q mode %v (%v), want %q mode %v", sh, f.Path, b, fi.Mode(), err, f.Content, os.FileMode(f.Mode))
			}
		}
		out, code = runSh(t, sh, shBatch, "_jsh_adir='"+adir+"' _jsh_dir='"+dir+"' _jsh_secrets_name=x.secrets\njs_drop_secrets")
		if _, err := os.Stat(fdir); code != 0 || !os.IsNotExist(err) {
			t.Errorf("%s: js_drop_secrets: exit %d %q; the files copy: %v, want removed", sh, code, out, err)
		}
		out, code = runSh(t, sh, shRun, script)
		if code != 97 || strings.Contains(out, "/var/run/secrets/store/key") {
			t.Errorf("%s: without the secrets file: exit %d, output %q, want 97 and no bind of the Secret's file", sh, code, out)
		}
	}
}

// TestFilesInView runs js_exec_view with the task namespace wrapper, as a
// step does: the command reads the files at the job's paths, read-only.
// It needs root or unprivileged user namespaces (skipped otherwise).
func TestFilesInView(t *testing.T) {
	if os.Getuid() != 0 || exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "true").Run() != nil {
		t.Skip("needs root and mount namespaces")
	}
	ri := filesRole()
	sec := &secretTable{index: map[string]int{}}
	data := filesData(ri, sec) + "_t_ns_0=1 _t_nsname_0='worker-@I@'\n"
	for _, sh := range shells {
		dir := t.TempDir()
		adir := filepath.Join(dir, "attempt-1")
		mustOK(t, os.Mkdir(adir, 0o700))
		mustOK(t, os.WriteFile(filepath.Join(dir, "secrets"), sec.file(), 0o600))
		mustOK(t, os.WriteFile(filepath.Join(adir, "taskns.sh"), []byte(taskns.Script), 0o644))
		mustOK(t, os.WriteFile(filepath.Join(adir, "topology"), nil, 0o644))
		script := data + "_jsh_sd='" + adir + "' _jsh_r=0 SLURM_PROCID=0\n" +
			`js_exec_view sh -c 'cat /etc/train/config.yaml; echo "|"; cat /var/run/secrets/store/key; echo "|"; hostname; if (: >/etc/train/config.yaml) 2>/dev/null; then echo writable; fi; stat -c %a /var/run/secrets/store/key'`
		out, code := runSh(t, sh, shRun, script)
		want := ri.Files[0].Content + "|\n" + ri.Files[1].Content + "|\nworker-0\n400\n"
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
	}
}

// TestFilesRefused: what the Slurm target cannot place is refused at the
// file, never quoting a Secret's content.
func TestFilesRefused(t *testing.T) {
	ri := filesRole()
	r := ri.Role
	r.Files[0].Pos = jobs.Pos{File: "j.yaml", Line: 7, Col: 3}
	r.Files = append(r.Files, jobs.File{Path: "/etc/../x", Content: "a", Pos: jobs.Pos{File: "j.yaml", Line: 9, Col: 3}},
		jobs.File{Path: "/etc/nul", Content: "s3cr\x00t", Secret: true, Pos: jobs.Pos{File: "j.yaml", Line: 11, Col: 3}})
	got := checkFiles(r, settings{Container: "none"})
	if len(got) != 2 || !strings.Contains(got[0].Detail, `"/etc/../x"`) || got[0].Subject.Start.Line != 9 ||
		!strings.Contains(got[1].Detail, "NUL") || got[1].Subject.Start.Line != 11 || strings.Contains(got.Error(), "s3cr") {
		t.Errorf("container none: %v", got)
	}
	r.Image = "python:3.11"
	got = checkFiles(r, settings{Container: "apptainer"})
	if len(got) != 4 || !strings.Contains(got[0].Detail, "/etc/train/config.yaml") || got[0].Subject.Start.Line != 7 {
		t.Errorf("apptainer: %v", got)
	}
}

// TestSecretFileStaysOut: a Secret volume's value (and its base64 form)
// goes to the 0600 secrets file only, never into the batch script; the
// ConfigMap's content is in the script's data.
func TestSecretFileStaysOut(t *testing.T) {
	job, diags := load.Load(filepath.Join("testdata", "files-volumes.yaml"), jobs.ReadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	a, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: job, User: "alice", Site: &siteconfig.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	var secrets *drivers.File
	for i, f := range a.Files {
		if strings.HasSuffix(f.Name, ".secrets") {
			secrets = &a.Files[i]
			continue
		}
		for _, v := range []string{"store-key-9d2a4b", "c3RvcmUta2V5LTlkMmE0Yg=="} {
			if strings.Contains(string(f.Data), v) {
				t.Errorf("%s holds the secret %q", f.Name, v)
			}
		}
	}
	if secrets == nil || secrets.Mode != 0o600 || !strings.Contains(string(secrets.Data), "_jsh_secret_0=store-key-9d2a4b\n") {
		t.Fatalf("secrets file: %+v", secrets)
	}
	if !strings.Contains(string(a.Files[0].Data), "_t_fpath_0_0=/etc/train/config.yaml _t_fmode_0_0=0644 _t_fsec_0_0=-1\n") ||
		!strings.Contains(string(a.Files[0].Data), "_t_fpath_0_1=/var/run/secrets/store/key _t_fmode_0_1=0400 _t_fsec_0_1=0\n") {
		t.Error("the script does not carry the files' data")
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A Volcano Job whose task ends can reach RestartTask or RestartJob: the
// task restarts in place (restart.sh, kind volcano) and the batch script
// requeues on RestartJob within maxRetry (js_retry, kind volcano).
const restartingVolcano = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: restarts
spec:
  minAvailable: 2
  policies:
    - event: PodEvicted
      action: RestartJob
    - exitCode: 3
      action: RestartJob
  tasks:
    - replicas: 2
      name: worker
      policies:
        - event: TaskCompleted
          action: CompleteJob
        - event: PodFailed
          action: RestartTask
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: w
              image: busybox
              command: ["sh", "-c", "exit 3"]
`

func TestVolcanoRestartsRendered(t *testing.T) {
	job, diags := load.Read([]byte(restartingVolcano), jobs.ReadOptions{Path: "restarts.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	sc, err := render(&translate.Plan{Job: job, User: "alice", Site: &siteconfig.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	text := sc.Text + sc.Library
	for _, want := range []string{"_jsh_retry_kind=volcano\n_jsh_retry_max=3\n", "_t_kind=volcano\n", "_t_vmax=3\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the script lacks %q", want)
		}
	}
}

// TestPeerHostsInView: under Volcano's svc plugin (_t_nspeers_R), the
// task's /etc/hosts names every peer on another host with its address
// from the topology; a peer on the task's own host is left out.
func TestPeerHostsInView(t *testing.T) {
	if os.Getuid() != 0 || exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "true").Run() != nil {
		t.Skip("needs root and mount namespaces")
	}
	data := "_t_ns_0=1 _t_nsname_0='j-a-@I@ j-a-@I@.j' _t_nspeers_0=1\n_t_ns_1=1 _t_nsname_1='j-b-@I@ j-b-@I@.j'\n"
	topo := "JS_NROLES=2\nJS_R0_N=2\nJS_R0_ADDR_0=10.244.0.1\nJS_R0_ADDR_1=10.244.0.2\nJS_R1_N=2\nJS_R1_ADDR_0=10.244.0.1\nJS_R1_ADDR_1=10.244.0.3\n"
	for _, sh := range shells {
		adir := filepath.Join(t.TempDir(), "attempt-0")
		mustOK(t, os.Mkdir(adir, 0o700))
		mustOK(t, os.WriteFile(filepath.Join(adir, "taskns.sh"), []byte(taskns.Script), 0o644))
		mustOK(t, os.WriteFile(filepath.Join(adir, "topology"), []byte(topo), 0o644))
		script := data + "_jsh_sd='" + adir + "' _jsh_r=0 SLURM_PROCID=0\n" +
			`js_exec_view sh -c 'grep "j-" /etc/hosts'`
		out, code := runSh(t, sh, shRun, script)
		want := "10.244.0.1\tj-a-0 j-a-0.j\n10.244.0.2\tj-a-1 j-a-1.j\n10.244.0.3\tj-b-1 j-b-1.j\n"
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
	}
}

// TestSSHFilesRendered: the platform's ssh files go to one path per role
// for both formats that have them (_t_sshfiles_R, which js_exec_view
// places as a private directory): a TrainJob's sshAuthMountPath (default
// /root/.ssh, kubeflow/trainer pkg/runtime/framework/plugins/mpi/mpi.go
// @v2.3.0) on the launcher and the nodes, Volcano's --ssh-key-file-path
// on every task.
func TestSSHFilesRendered(t *testing.T) {
	for file, roles := range map[string][]string{
		"../../examples/trainjob-mpi.yaml":               {"node", "launcher"},
		"../../examples/testdata/volcano-ssh-files.yaml": {"master", "worker"},
	} {
		job := loadJob(file)()
		sc, err := render(&translate.Plan{Job: job, User: "alice", Site: &siteconfig.Config{}})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, name := range roles {
			k := slices.IndexFunc(job.Roles, func(r *jobs.Role) bool { return r.Name == name })
			if want := fmt.Sprintf("_t_sshfiles_%d=/root/.ssh\n", k); k < 0 || !strings.Contains(sc.Text, want) {
				t.Errorf("%s: role %s (%d): the script lacks %q", file, name, k, want)
			}
		}
	}
}

// TestVolcanoSharedRetryCount: on Slurm the job's one RetryCount
// (state/running.go increments it for RestartPod, RestartTask and
// RestartJob, nothing resets it, restarting.go fails the job once it
// reaches maxRetry, @v1.16.0-alpha.1) lives in the state directory's
// retries; each attempt's restarts.job starts from it (js_volcano_seed) and
// goes back to it (js_volcano_fold) before js_retry. The exits of
// examples/testdata/volcano-policy-shared-retry.yaml, maxRetry 3: 3 is
// restarted in place (1), 4 requeues the job (2), 3 in the next attempt
// is refused (3 = maxRetry).
func TestVolcanoSharedRetryCount(t *testing.T) {
	job := loadJob("../../examples/testdata/volcano-policy-shared-retry.yaml")()
	data := restartData(job, completion.KubeletBackoff) + retryData(completion.PolicyOf(job))
	script := data + `_jsh_dir=$D _jsh_adir=$D/attempt-1
mkdir "$_jsh_adir"
js_volcano_seed
js_restart 0 3 "$_jsh_adir" 0 && echo "restart 3"
js_volcano_fold
_jsh_vaction=R
js_retry 4 && echo "requeue 4 counted $_jsh_counted"
echo $(($(cat "$_jsh_dir/retries") + _jsh_counted)) >"$_jsh_dir/retries"
_jsh_adir=$D/attempt-2
mkdir "$_jsh_adir"
js_volcano_seed
js_restart 0 3 "$_jsh_adir" 0 || echo "no restart 3: RetryCount $(cat "$_jsh_adir/restarts.job")"
`
	want := []string{"restart 3", "requeue 4 counted 1", "no restart 3: RetryCount 2"}
	for _, sh := range shells {
		out, code := runSh(t, sh, shRestart+shHostlist+shDecide+shBatch, "D="+shQuote(t.TempDir())+"\n"+script)
		if code != 0 {
			t.Fatalf("%s exited %d: %s", sh, code, out)
		}
		if d := cmp.Diff(want, lines(out)); d != "" {
			t.Errorf("%s (-want +got):\n%s", sh, d)
		}
	}
}
