package volcano

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

const head = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: j\nspec:\n"

// task is a minimal task of n replicas (extra is indented under the task).
func task(name string, n int, extra string) string {
	return "    - name: " + name + "\n      replicas: " + itoa(n) + "\n" + extra +
		"      template:\n        spec:\n          restartPolicy: Never\n          containers:\n            - name: c\n              image: busybox\n              command: [sh, -c, 'true']\n"
}

func itoa(n int) string { return strconv.Itoa(n) }

func read(t *testing.T, src string) (*jobs.Job, hcl.Diagnostics) {
	t.Helper()
	return Read([]byte(src), jobs.ReadOptions{Path: "job.yaml"})
}

// TestDefaults: the admission webhook's defaults (mutate_job.go
// @v1.16.0-alpha.1): maxRetry 3 (patchDefaultMaxRetry), minAvailable the
// sum of the tasks' minAvailable, each defaulting to replicas
// (patchDefaultMinAvailable, mutateSpec), task maxRetry 3, a nameless
// task named default<index>, svc and ssh added for mpi
// (patchDefaultPlugins).
func TestDefaults(t *testing.T) {
	src := head + "  plugins:\n    mpi: []\n  tasks:\n" + task("master", 1, "") + task("worker", 3, "      minAvailable: 2\n") +
		"    - replicas: 1\n      template:\n        spec:\n          containers:\n            - image: busybox\n"
	job, diags := read(t, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	v := job.Extras.Volcano
	if v.MaxRetry != 3 || v.MinAvailable != 1+2+1 {
		t.Errorf("maxRetry %d minAvailable %d, want 3 and 4", v.MaxRetry, v.MinAvailable)
	}
	if got := job.Roles[2].Name; got != "default2" {
		t.Errorf("nameless task named %q, want default2", got)
	}
	if v.Tasks[1].MinAvailable != 2 || v.Tasks[0].MinAvailable != 1 || v.Tasks[0].MaxRetry != 3 {
		t.Errorf("tasks %+v", v.Tasks)
	}
	var names []string
	for _, p := range v.Plugins {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "mpi,svc,ssh" || !v.Plugin("svc").Implicit || !v.Plugin("ssh").Implicit {
		t.Errorf("plugins %v, want mpi then the implicit svc and ssh", names)
	}
	// Kubernetes' default pod restartPolicy is Always
	if job.Roles[2].RestartPolicy != "Always" || job.Roles[0].RestartPolicy != "Never" {
		t.Errorf("restart policies %q %q", job.Roles[2].RestartPolicy, job.Roles[0].RestartPolicy)
	}
}

// TestSVCFiles: the svc plugin's ConfigMap keys as files under
// /etc/volcano (svc.go GenerateHosts @v1.16.0-alpha.1): <task>.host with
// '-' → '_', one domain name per line, no final newline; VC_<TASK>_HOSTS
// joined by ','; VC_<TASK>_NUM. Every task gets every file.
func TestSVCFiles(t *testing.T) {
	job, diags := read(t, head+"  plugins:\n    svc: []\n  tasks:\n"+task("ps", 1, "")+task("data-worker", 2, ""))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]string{
		"/etc/volcano/ps.host":              "j-ps-0.j",
		"/etc/volcano/VC_PS_HOSTS":          "j-ps-0.j",
		"/etc/volcano/VC_PS_NUM":            "1",
		"/etc/volcano/data_worker.host":     "j-data-worker-0.j\nj-data-worker-1.j",
		"/etc/volcano/VC_DATA_WORKER_HOSTS": "j-data-worker-0.j,j-data-worker-1.j",
		"/etc/volcano/VC_DATA_WORKER_NUM":   "2",
	}
	for _, r := range job.Roles {
		if len(r.Files) != len(want) {
			t.Fatalf("role %s has %d files, want %d", r.Name, len(r.Files), len(want))
		}
		for _, f := range r.Files {
			if want[f.Path] != f.Content || f.Mode != 0o644 {
				t.Errorf("%s: %q mode %o, want %q", f.Path, f.Content, f.Mode, want[f.Path])
			}
		}
	}
}

// TestPluginPorts: the pytorch plugin opens --port on every container
// unless one declares that number (openContainerPort, pytorch.go); the ssh
// plugin's sshd port; the tensorflow plugin's port.
func TestPluginPorts(t *testing.T) {
	job, diags := read(t, head+"  plugins:\n    pytorch: [--port=29500]\n    ssh: []\n  tasks:\n"+task("master", 1, "")+task("worker", 1, ""))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, r := range job.Roles {
		got := map[string]int{}
		for _, p := range r.Ports {
			got[p.Label] = p.Number
		}
		if got[PytorchLabel] != 29500 || got[SSHLabel] != 22 {
			t.Errorf("role %s ports %v", r.Name, got)
		}
	}
}

// TestFlags: Go's flag package as the plugins use it: -x and --x, =value
// or the next argument; an unknown flag stops the parse, values before it
// stay (ContinueOnError).
func TestFlags(t *testing.T) {
	f := jobs.ParseVolcanoFlags("pytorch", []string{"-master", "m", "--port=7", "--bogus", "--worker=w"})
	if f.Master != "m" || f.Port != 7 || f.Worker != "worker" || f.Err == "" {
		t.Errorf("%+v", f)
	}
	if f := jobs.ParseVolcanoFlags("mpi", nil); f.Master != "master" || f.Worker != "worker" || f.Port != 22 {
		t.Errorf("mpi defaults %+v", f)
	}
	if f := jobs.ParseVolcanoFlags("tensorflow", nil); f.PS != "ps" || f.Chief != "chief" || f.Port != 2222 {
		t.Errorf("tensorflow defaults %+v", f)
	}
	if f := jobs.ParseVolcanoFlags("svc", []string{"--inject-hosts-env=false"}); f.InjectHostsEnv {
		t.Errorf("svc %+v", f)
	}
	if f := jobs.ParseVolcanoFlags("ssh", []string{"--ssh-port=0", "--ssh-key-file-path=/home/u/.ssh"}); f.SSHPort != 22 || f.SSHKeyFilePath != "/home/u/.ssh" {
		t.Errorf("ssh %+v (validateSSHPort falls back to 22)", f)
	}
}

// TestRefusals: what Volcano's webhook and CRD validation reject
// (pkg/webhooks/admission/jobs/validate/admit_job.go validateJobCreate,
// util.go validatePolicies, topoSort, @v1.16.0-alpha.1), each located.
func TestRefusals(t *testing.T) {
	ok := task("a", 1, "")
	cases := map[string]struct{ src, summary, at string }{
		"no task":                    {head + "  minAvailable: 1\n", "No task", "6:3"},
		"duplicated task name":       {head + "  tasks:\n" + ok + task("a", 1, ""), "Duplicated task name", "16:13"},
		"task minAvailable":          {head + "  tasks:\n" + task("a", 1, "      minAvailable: 2\n"), "minAvailable above replicas", "9:21"},
		"job minAvailable":           {head + "  minAvailable: 3\n  tasks:\n" + ok, "minAvailable above the replicas", "6:17"},
		"event and exitCode":         {head + "  policies:\n    - event: PodFailed\n      exitCode: 3\n      action: RestartJob\n  tasks:\n" + ok, "Event and exitCode together", "7:7"},
		"neither":                    {head + "  policies:\n    - action: RestartJob\n  tasks:\n" + ok, "Policy without event or exitCode", "7:7"},
		"exit code 0":                {head + "  policies:\n    - exitCode: 0\n      action: RestartJob\n  tasks:\n" + ok, "Exit code 0 in a policy", "7:7"},
		"bad event":                  {head + "  policies:\n    - event: PodRunning\n      action: RestartJob\n  tasks:\n" + ok, "Invalid policy event", "7:7"},
		"bad action":                 {head + "  policies:\n    - event: PodFailed\n      action: SyncJob\n  tasks:\n" + ok, "Invalid policy action", "7:7"},
		"duplicate event":            {head + "  policies:\n    - event: PodFailed\n      action: RestartJob\n    - events: [PodFailed]\n      action: AbortJob\n  tasks:\n" + ok, "Duplicate policy event", "9:7"},
		"duplicate exit code":        {head + "  policies:\n    - exitCode: 3\n      action: RestartJob\n    - exitCode: 3\n      action: AbortJob\n  tasks:\n" + ok, "Duplicate policy exit code", "9:7"},
		"star with others":           {head + "  policies:\n    - event: '*'\n      action: RestartJob\n    - event: PodFailed\n      action: AbortJob\n  tasks:\n" + ok, "Event * with other events", "7:5"},
		"unknown plugin":             {head + "  plugins:\n    horovod: []\n  tasks:\n" + ok, "Unknown job plugin", "7:5"},
		"mpi master missing":         {head + "  plugins:\n    mpi: [--master=launcher]\n  tasks:\n" + ok, "MPI master task not found", "7:5"},
		"dependsOn unknown":          {head + "  tasks:\n" + task("a", 1, "      dependsOn:\n        name: [b]\n"), "Unknown task in dependsOn", "10:16"},
		"dependsOn cycle":            {head + "  tasks:\n" + task("a", 1, "      dependsOn:\n        name: [b]\n") + task("b", 1, "      dependsOn:\n        name: [a]\n"), "Cycle in dependsOn", "7:13"},
		"negative maxRetry":          {head + "  maxRetry: -1\n  tasks:\n" + ok, "Negative value", "6:13"},
		"pod name too long":          {head + "  tasks:\n" + task(strings.Repeat("x", 62), 1, ""), "Pod name too long", "7:13"},
		"bad timeout":                {head + "  policies:\n    - event: PodFailed\n      action: RestartJob\n      timeout: soon\n  tasks:\n" + ok, "Invalid timeout", "9:16"},
		"unknown apiVersion":         {strings.Replace(head, "v1alpha1", "v1beta1", 1) + "  tasks:\n" + ok, "Unknown Volcano API version", "1:13"},
		"template hostname with svc": {head + "  plugins:\n    svc: []\n  tasks:\n" + strings.Replace(ok, "        spec:\n", "        spec:\n          hostname: h\n", 1), "Pod hostname with Volcano's plugins", "13:11"},
		"ray plugin (not carried)":   {head + "  plugins:\n    ray: []\n  tasks:\n" + ok, "Plugin not supported: ray", "7:5"},
		// validateIO (pkg/webhooks/admission/jobs/validate/util.go @v1.16.0-alpha.1)
		"volume without mountPath": {head + "  volumes:\n    - volumeClaimName: data\n  tasks:\n" + ok, "Volume without mountPath", "7:7"},
		"volume mounted twice":     {head + "  volumes:\n    - mountPath: /d\n      volumeClaimName: a\n    - mountPath: /d\n      volumeClaimName: b\n  tasks:\n" + ok, "Volume mounted twice", "9:7"},
		"volume without a claim":   {head + "  volumes:\n    - mountPath: /d\n  tasks:\n" + ok, "Volume without a claim", "7:7"},
		"volume with two claims":   {head + "  volumes:\n    - mountPath: /d\n      volumeClaimName: a\n      volumeClaim:\n        accessModes: [ReadWriteOnce]\n  tasks:\n" + ok, "Volume with two claims", "7:7"},
		"volume claim name":        {head + "  volumes:\n    - mountPath: /d\n      volumeClaimName: Data_1\n  tasks:\n" + ok, "Invalid volumeClaimName", "7:7"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := read(t, c.src)
			for _, d := range diags {
				if d.Severity == hcl.DiagError && d.Summary == c.summary {
					at := d.Subject.Start
					if got := itoaPos(at.Line, at.Column); !strings.HasPrefix(got, c.at) {
						t.Errorf("%s at %s, want %s", c.summary, got, c.at)
					}
					return
				}
			}
			t.Errorf("no error %q in %v", c.summary, diags)
		})
	}
}

func itoaPos(l, c int) string { return fmt.Sprintf("%d:%d", l, c) }

// TestFieldRefNamespace: a fieldRef to metadata.namespace is the Volcano
// job's namespace, where createJobPod makes its pods (Namespace:
// job.Namespace, pkg/controllers/job/job_controller_util.go
// @v1.16.0-alpha.1), and "default" when the file names none.
func TestFieldRefNamespace(t *testing.T) {
	env := "              env:\n                - {name: NS, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}\n"
	for ns, want := range map[string]string{"": "default", "  namespace: research\n": "research"} {
		src := strings.Replace(head, "  name: j\n", "  name: j\n"+ns, 1) + "  tasks:\n" + task("w", 1, "") + env
		job, diags := read(t, src)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if got := job.Roles[0].Env; len(got) != 1 || got[0].Value != want {
			t.Errorf("namespace %q: env %+v, want NS=%s", ns, got, want)
		}
	}
}

// TestPolicyTimeoutWarning: a policy's timeout is read for every action,
// and none warns: the completion rules hold a job's action for it
// (translate/completion delayed.go) and an in-place restart waits for it
// (VolcanoRestartDelay), on every target.
func TestPolicyTimeoutWarning(t *testing.T) {
	for _, action := range []string{"RestartJob", "AbortJob", "CompleteJob", "RestartPod", "RestartTask"} {
		src := head + "  tasks:\n" + task("w", 1, "      policies:\n        - event: PodFailed\n          action: "+action+"\n          timeout: 5s\n")
		job, diags := read(t, src)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if got := job.Extras.Volcano.Tasks[0].Policies[0].TimeoutSeconds; got != 5 {
			t.Errorf("%s: timeout %v s, want 5", action, got)
		}
		for _, d := range diags {
			if strings.Contains(d.Summary, "imeout") {
				t.Errorf("%s: warning %q: %s", action, d.Summary, d.Detail)
			}
		}
	}
}
