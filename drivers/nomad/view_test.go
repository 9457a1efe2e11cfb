package nomad

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/drivers/sshemu"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// viewTemplates are the main task's templates by destination.
func viewTemplates(t *testing.T, job *api.Job) map[string]*api.Template {
	t.Helper()
	out := map[string]*api.Template{}
	for _, tk := range job.TaskGroups[0].Tasks {
		if tk.Name == MainTask {
			for _, tm := range tk.Templates {
				out[*tm.DestPath] = tm
			}
		}
	}
	return out
}

// decoded is a template's text with its base64Decode calls decoded and
// its env calls left as $NAME.
func decoded(t *testing.T, data string) string {
	t.Helper()
	re := regexp.MustCompile(`\{\{ base64Decode "([^"]*)" \}\}|\{\{ env "([^"]*)" \}\}`)
	return re.ReplaceAllStringFunc(data, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if sub[2] != "" {
			return "$" + sub[2]
		}
		b, err := base64.StdEncoding.DecodeString(sub[1])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
}

// TestTaskViewRendered: a raw_exec task of a PAI job (worker names
// worker-<i>, PAI's own) runs under the wrapper with a spec naming its
// host name from the allocation's index, its address from its port, and a
// platform file bound read-only at the job's path from a template of its
// content and mode; a docker task gets no wrapper.
func TestTaskViewRendered(t *testing.T) {
	j := psWorker("mesh", "python3 mesh.py")
	j.Roles[1].Files = []jobs.File{{Path: "/etc/volcano/worker.host", Content: "worker-0\nworker-1\n", Mode: 0o640}}
	job, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var main *api.Task
	for _, g := range job.TaskGroups {
		if *g.Name == groupName("worker") {
			for _, tk := range g.Tasks {
				if tk.Name == MainTask {
					main = tk
				}
			}
		}
	}
	argv := append([]string{main.Config["command"].(string)}, main.Config["args"].([]string)...)
	if want := []string{"sh", "${NOMAD_TASK_DIR}/jobshift-taskns.sh", "${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--"}; strings.Join(argv[:4], " ") != strings.Join(want, " ") {
		t.Fatalf("argv %q, want the wrapper first", argv[:4])
	}
	tm := map[string]*api.Template{}
	for _, x := range main.Templates {
		tm[*x.DestPath] = x
	}
	spec, file := tm["local/jobshift-taskns.spec"], tm["local/jobshift-files/0"]
	if spec == nil || file == nil || tm["local/jobshift-taskns.sh"] == nil {
		t.Fatalf("templates %v", tm)
	}
	ports := job.TaskGroups[1].Networks[0].DynamicPorts
	label := ports[0].Label
	want := "mode\tauto\nscratch\t$NOMAD_TASK_DIR/jobshift-taskns.d\nhostname\tworker-$NOMAD_ALLOC_INDEX\n" +
		"host\t$NOMAD_IP_" + label + "\tworker-$NOMAD_ALLOC_INDEX\n" +
		"bind\tro\t$NOMAD_TASK_DIR/jobshift-files/0\t/etc/volcano/worker.host\n" +
		"addr\t$NOMAD_IP_" + label + "\n"
	if got := decoded(t, *spec.EmbeddedTmpl); got != want {
		t.Errorf("spec:\n%s\nwant:\n%s", got, want)
	}
	if got := decoded(t, *file.EmbeddedTmpl); got != "worker-0\nworker-1\n" || *file.Perms != "0640" {
		t.Errorf("file %q perms %s", got, *file.Perms)
	}

	// watched, with the env helper: nomad-env writes the same spec (its
	// placeholders filled in the task) and the file, no template does
	wp := plan(j, rawExecSite())
	wp.Options[OptWatched], wp.Options[OptEnvHelper] = "true", "/usr/local/bin/jobshift-env"
	wj, diags := BuildJob(wp, fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	wmain := wj.TaskGroups[1].Tasks[0]
	if wargv := wmain.Config["args"].([]string); !strings.Contains(strings.Join(wargv, " "), "nomad-env -- sh ${NOMAD_TASK_DIR}/jobshift-taskns.sh ${NOMAD_TASK_DIR}/jobshift-taskns.spec -- ") {
		t.Errorf("argv %q: want nomad-env, then the wrapper", wargv)
	}
	for _, x := range wmain.Templates {
		if strings.HasPrefix(*x.DestPath, "local/jobshift-") {
			t.Errorf("template %s: nomad-env writes the view", *x.DestPath)
		}
	}
	wantIn := "mode\tauto\nscratch\t/@T@/jobshift-taskns.d\nhostname\tworker-@I@\nhost\t@A@\tworker-@I@\n" +
		"bind\tro\t/@T@/jobshift-files/0\t/etc/volcano/worker.host\naddr\t@A@\n"
	if got := viewSpecText(t, wmain); got != wantIn {
		t.Errorf("nomad-env's spec:\n%s\nwant:\n%s", got, wantIn)
	}
	if te, _ := intask.Decode(wmain.Env[TaskEnvVar]); te == nil || te.View.AddrVar != "NOMAD_IP_"+label ||
		len(te.View.Files) != 1 || te.View.Files[0] != (intask.ViewFile{Content: "worker-0\nworker-1\n", Mode: 0o640}) {
		t.Errorf("nomad-env's view %+v: want the address of port %s and the file", te.View, label)
	}

	site := rawExecSite()
	site.Nomad.Driver = "docker"
	j.Roles[0].Image, j.Roles[1].Image = "python:3", "python:3"
	dj, diags := BuildJob(plan(j, site), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, ok := viewTemplates(t, dj)["local/jobshift-taskns.spec"]; ok {
		t.Error("a docker task got the wrapper")
	}
	for _, tk := range dj.TaskGroups[1].Tasks {
		if tk.Name == MainTask {
			if v, _ := tk.Config["volumes"].([]string); len(v) != 1 || v[0] != "local/jobshift-files/0:/etc/volcano/worker.host:ro" {
				t.Errorf("docker volumes %q, want the file bound read-only from the task directory", v)
			}
		}
	}
}

// TestSSHFilesRendered: Volcano's ssh plugin's files go to /root/.ssh: a
// raw_exec task's view places a private directory of its secrets
// directory there (a "dir" spec line) and the emulation is told the
// path; a docker task gets that directory as a writable volume.
func TestSSHFilesRendered(t *testing.T) {
	j, diags := load.Load("../../examples/testdata/volcano-ssh-files.yaml", jobs.ReadOptions{Path: "volcano-ssh-files.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	job, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	main := mainTask(t, job, "worker")
	spec := viewTemplates(t, &api.Job{TaskGroups: []*api.TaskGroup{groupOf(job, "worker")}})["local/jobshift-taskns.spec"]
	if spec == nil || !strings.Contains(decoded(t, *spec.EmbeddedTmpl), "dir\trw\t$NOMAD_SECRETS_DIR/jobshift-sshfiles\t/root/.ssh\n") {
		t.Errorf("spec lacks the ssh files' directory: %v", spec)
	}
	if main.Env[sshemu.FilesVar] != "/root/.ssh" {
		t.Errorf("%s = %q, want /root/.ssh", sshemu.FilesVar, main.Env[sshemu.FilesVar])
	}

	site := rawExecSite()
	site.Nomad.Driver = "docker"
	for _, r := range j.Roles {
		r.Image = "jobshift/torch:bookworm"
	}
	dj, diags := BuildJob(plan(j, site), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	dm := mainTask(t, dj, "worker")
	if v, _ := dm.Config["volumes"].([]string); !slices.Contains(v, "secrets/jobshift-sshfiles:/root/.ssh") {
		t.Errorf("docker volumes %q, want the ssh files' directory at /root/.ssh", v)
	}
	if dm.Env[sshemu.FilesVar] != "/root/.ssh" {
		t.Errorf("docker: %s = %q, want /root/.ssh", sshemu.FilesVar, dm.Env[sshemu.FilesVar])
	}
}

func groupOf(job *api.Job, role string) *api.TaskGroup {
	for _, g := range job.TaskGroups {
		if *g.Name == groupName(role) {
			return g
		}
	}
	return nil
}

func mainTask(t *testing.T, job *api.Job, role string) *api.Task {
	t.Helper()
	if g := groupOf(job, role); g != nil {
		for _, tk := range g.Tasks {
			if tk.Name == MainTask {
				return tk
			}
		}
	}
	t.Fatalf("no main task for %s", role)
	return nil
}

// TestFixedPortPeersOnePerNode: Volcano's TensorFlow shape (its tasks
// listen on 2222 at the names of /etc/volcano/*.host) gets a node per
// task (distinct_hosts); docker containers get the 3 tasks' 2 names each
// as extra_hosts from the env template (contract.PeerHostVar), podman is
// warned that the names do not resolve. The MPI example gets neither
// constraint nor warning.
func TestFixedPortPeersOnePerNode(t *testing.T) {
	for _, c := range []struct {
		file, driver     string
		distinct, byName bool
		oneClient, nets  bool
	}{
		{"volcano-tf-shape.yaml", "raw_exec", true, false, false, false},
		{"volcano-tf-shape.yaml", "docker", true, false, false, false},
		{"volcano-tf-shape.yaml", "podman", true, true, false, false},
		{"volcano-mpi.yaml", "raw_exec", false, false, false, false},
		// one client: a network per task under raw_exec's task view, not
		// distinct_hosts; exec (no CAP_SYS_ADMIN) and a container keep
		// distinct_hosts
		{"volcano-tf-shape.yaml", "raw_exec", false, false, true, true},
		{"volcano-tf-shape.yaml", "exec", true, false, true, false},
		{"volcano-tf-shape.yaml", "docker", true, false, true, false},
		{"volcano-mpi.yaml", "raw_exec", false, false, true, false},
	} {
		j, diags := load.Load("../../examples/"+c.file, jobs.ReadOptions{Path: c.file})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p := plan(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: c.driver}, TaskNetwork: &siteconfig.TaskNetworkConfig{Range: "10.254.0.0/16"}})
		if c.oneClient {
			p.Options[OptOneClient] = "true"
		}
		job, shape, diags := buildJob(p, fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		distinct := slices.ContainsFunc(job.Constraints, func(k *api.Constraint) bool { return k.Operand == api.ConstraintDistinctHosts })
		said := func(summary string) bool {
			return slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool { return d.Summary == summary })
		}
		if distinct != c.distinct || said("One task per node") != c.distinct {
			t.Errorf("%s on %s: distinct_hosts %v, want %v: %v", c.file, c.driver, distinct, c.distinct, diags)
		}
		if shape.TaskNets != c.nets {
			t.Errorf("%s on %s, one client %v: a network per task %v, want %v", c.file, c.driver, c.oneClient, shape.TaskNets, c.nets)
		}
		for _, g := range job.TaskGroups {
			// the site's range, in every main task's spec, keyed by attempt
			if spec := viewSpecText(t, mainTask(t, job, *g.Name)); hasNetLine(spec, JobIDFor(p), "10.254.0.0/16") != c.nets {
				t.Errorf("%s on %s, one client %v: group %s spec %q", c.file, c.driver, c.oneClient, *g.Name, spec)
			}
		}
		if got := said("Peers not reachable by name"); got != c.byName {
			t.Errorf("%s on %s: warned of names %v, want %v: %v", c.file, c.driver, got, c.byName, diags)
		}
		if c.driver != "docker" {
			continue
		}
		for _, g := range job.TaskGroups {
			hosts, _ := mainTask(t, job, *g.Name).Config["extra_hosts"].([]string)
			if len(hosts) != 2+6 || hosts[2] != "${JOBSHIFT_PEER_HOST_0}" || hosts[7] != "${JOBSHIFT_PEER_HOST_5}" {
				t.Errorf("group %s: extra_hosts %q, want its own 2 names and 6 peer entries", *g.Name, hosts)
			}
		}
	}
}

// TestSecretFileFromVariable: the example's Secret volume file
// (/var/run/store/key, mode 0400) reaches the task from the job's
// Variable, base64 there, through a template into secrets/ with the
// owner's bits of its mode, bound (raw_exec, exec) or mounted (docker,
// podman) read-only at the job's path; neither the value nor its base64
// form is in the HCL or JSON job of any driver.
func TestSecretFileFromVariable(t *testing.T) {
	const value, b64 = "dataset-key-7c1e", "ZGF0YXNldC1rZXktN2MxZQ=="
	j, diags := load.Load("../../examples/pytorchjob-configmap-entry.yaml", jobs.ReadOptions{Path: "pytorchjob-configmap-entry.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	k := slices.IndexFunc(j.Roles[0].Files, func(f jobs.File) bool { return f.Path == "/var/run/store/key" })
	if k < 0 || !j.Roles[0].Files[k].Secret {
		t.Fatalf("the example's files %+v have no Secret file at /var/run/store/key", j.Roles[0].Files)
	}
	src := fmt.Sprintf("secrets/jobshift-files/%d", k)
	for _, driver := range []string{"raw_exec", "exec", "docker", "podman"} {
		p, diags := translate.Build(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: driver}}, nil, "alice")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, asJSON := range []bool{false, true} {
			d, _ := New(drivers.Config{Site: p.Site}, asJSON)
			art, err := d.Render(t.Context(), p)
			if err != nil {
				t.Fatalf("%s: %v", driver, err)
			}
			for _, f := range art.Files {
				if strings.Contains(string(f.Data), value) || strings.Contains(string(f.Data), b64) {
					t.Errorf("%s json=%v: %s holds the Secret's value", driver, asJSON, f.Name)
				}
			}
		}
		job, diags := BuildJob(p, fixtureContract{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		tm := viewTemplates(t, job)
		file := tm[src]
		if file == nil || *file.Perms != "0400" || !strings.Contains(*file.EmbeddedTmpl, "nomadVar") {
			t.Fatalf("%s: templates %v, want %s (0400) from the Variable", driver, tm, src)
		}
		var main *api.Task
		for _, tk := range job.TaskGroups[0].Tasks {
			if tk.Name == MainTask {
				main = tk
			}
		}
		if driver == "docker" || driver == "podman" {
			if v, _ := main.Config["volumes"].([]string); !slices.Contains(v, src+":/var/run/store/key:ro") {
				t.Errorf("%s volumes %q, want the Secret's file mounted read-only", driver, v)
			}
			continue
		}
		spec := decoded(t, *tm["local/jobshift-taskns.spec"].EmbeddedTmpl)
		if !strings.Contains(spec, "bind\tro\t$NOMAD_SECRETS_DIR/jobshift-files/"+strconv.Itoa(k)+"\t/var/run/store/key\n") {
			t.Errorf("%s spec:\n%s\nwant the Secret's file bound read-only from secrets/", driver, spec)
		}
	}
	p, _ := translate.Build(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec"}}, nil, "alice")
	items, err := VariableItems(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := items[secretFileItem("master", k)]; got != b64 {
		t.Errorf("the Variable's item is %q, want the Secret's value in base64", got)
	}
}

// trainJobKeys is an MPI TrainJob whose runtime mounts the job's ssh keys
// at a path of its own (mpi.sshAuthMountPath).
const trainJobKeys = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: keys
spec:
  runtimeRef:
    name: mpi-keys
    kind: TrainingRuntime
  trainer:
    numNodes: 2
    command: [mpirun, hostname]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: mpi-keys
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      mpiImplementation: OpenMPI
      sshAuthMountPath: /opt/keys/.ssh
      runLauncherAsNode: true
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: x
                      command: [/usr/sbin/sshd]
                      args: [-De]
        - name: launcher
          dependsOn:
            - name: node
              status: Ready
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: x
`

// TestTrainJobSSHFilesRendered: a TrainJob's key pair at the runtime's
// sshAuthMountPath (kubeflow/trainer pkg/runtime/framework/plugins/mpi/
// mpi.go @v2.3.0) is placed as Volcano's ssh plugin's files are: the same
// private directory of the secrets directory, on the launcher and the
// nodes alike.
func TestTrainJobSSHFilesRendered(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(file, []byte(trainJobKeys), 0o644); err != nil {
		t.Fatal(err)
	}
	j, diags := load.Load(file, jobs.ReadOptions{Path: "keys.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	job, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, role := range []string{"launcher", "node"} {
		main := mainTask(t, job, role)
		spec := viewTemplates(t, &api.Job{TaskGroups: []*api.TaskGroup{groupOf(job, role)}})["local/jobshift-taskns.spec"]
		if spec == nil || !strings.Contains(decoded(t, *spec.EmbeddedTmpl), "dir\trw\t$NOMAD_SECRETS_DIR/jobshift-sshfiles\t/opt/keys/.ssh\n") {
			t.Errorf("%s: spec lacks the ssh files' directory: %v", role, spec)
		}
		if main.Env[sshemu.FilesVar] != "/opt/keys/.ssh" {
			t.Errorf("%s: %s = %q, want /opt/keys/.ssh", role, sshemu.FilesVar, main.Env[sshemu.FilesVar])
		}
	}
}
