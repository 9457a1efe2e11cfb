package nomad_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// gpuJobs are jobs shaped like the founding documents, with GPUs as they
// ask for them: a TFJob chief/ps/2 workers with 2 GPUs each, and a PAI v2
// job whose roles hold 2 and 1 GPUs (4 fake GPUs on the agent in all).
func gpuJobs(t *testing.T, image string) map[string]string {
	t.Helper()
	prog, err := os.ReadFile(filepath.Join(agent.Repo(), "integration", "nomad", "testdata", "envprobe.py"))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(string(prog)) // a JSON string is a YAML double-quoted scalar
	replica := func(typ string, n, gpus int) string {
		res := ""
		if gpus > 0 {
			res = fmt.Sprintf("\n            resources: {limits: {nvidia.com/gpu: %d}}", gpus)
		}
		return fmt.Sprintf(`    %s:
      replicas: %d
      template:
        spec:
          containers:
          - name: tensorflow
            image: %s
            command: [python3, -c, %s]%s
`, typ, n, image, q, res)
	}
	tfjob := "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: gpu-tf}\nspec:\n  tfReplicaSpecs:\n" +
		replica("Chief", 1, 0) + replica("PS", 1, 0) + replica("Worker", 2, 2)
	cmd := fmt.Sprintf(`python3 -c "$(echo %s | base64 -d)"`, base64.StdEncoding.EncodeToString(prog))
	pai := fmt.Sprintf(`protocolVersion: 2
name: gpu-pai
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: %s}
taskRoles:
  master:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 2, ports: {probe: 1}}
    commands: [%q]
  worker:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 1, ports: {probe: 1}}
    commands: [%q]
`, image, cmd, cmd)
	dir := t.TempDir()
	out := map[string]string{}
	for name, text := range map[string]string{"tfjob-gpu.yaml": tfjob, "pai-v2-gpu.yaml": pai} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	return out
}

// TestGPUJobsEnvOnRawExec and TestGPUJobsEnvOnDocker: every task's process
// environment equals the oracle's for the topology it actually ran in, and
// GPU visibility is the devices Nomad assigned it (raw_exec:
// CUDA_VISIBLE_DEVICES; Docker: NVIDIA_VISIBLE_DEVICES for the runtime).
// The Docker agent runs with Nomad's default allow_caps.
// The PAI job also runs with every contract a PAI job may add (TF_CONFIG as
// UAI Train gave it, PyTorch's variables).
var paiContracts = map[string][]string{"pai": nil, "pai+tf": {"pai", "tf"}, "pai+torch": {"pai", "torch"}}

func TestGPUJobsEnvOnRawExec(t *testing.T) {
	gpuJobsOn(t, site(), "unused", false)
}

// TestGPUJobsEnvInTask: the same jobs with the site's helper and
// jobshift-env installed, as a Nomad operator with the in-job finisher
// runs them: every raw_exec task evaluates its environment itself
// (drivers/nomad taskenv.go, no env template; jobshift-env runs nomad-env,
// integration/nomadacl runs the jobshift binary's), and the process
// environment must still be the oracle's, with the devices Nomad
// assigned, no payload and no token left in it.
func TestGPUJobsEnvInTask(t *testing.T) {
	cfg := site()
	cfg.Nomad.Helper = helper(t)
	cfg.Nomad.EnvHelper = drivertest.JobshiftEnv(t)
	gpuJobsOn(t, cfg, "unused", false)
}

// TestGPUJobsEnvInTaskOnExec: the same jobs on the exec driver, with
// jobshift-env installed under /usr, which Nomad's default chroot_env puts
// in every exec task's root: each task evaluates its environment itself
// inside its chroot, as exec's default user nobody, over its Task API
// socket (drivers/nomad taskenv.go, inDefaultChroot), and the process
// environment must still be the oracle's.
func TestGPUJobsEnvInTaskOnExec(t *testing.T) {
	cfg := site()
	cfg.Nomad.Driver = "exec"
	cfg.Nomad.Helper = helper(t)
	cfg.Nomad.EnvHelper = drivertest.UnderUsr(t, drivertest.JobshiftEnv(t))
	// the PAI job alone, with its own contract: each exec task's chroot is
	// a hard-linked copy of /usr and the rest (179,128 entries where the
	// suite's python3-torch is installed), which the client builds and,
	// once the job is gone, removes beside the other tests
	gpuRun(t, gpuJobs(t, "unused")["pai-v2-gpu.yaml"], cfg, nil, false)
}

func TestGPUJobsEnvOnDocker(t *testing.T) {
	needDocker(t)
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"}}
	gpuJobsOn(t, cfg, torchImage, true)
}

func gpuJobsOn(t *testing.T, cfg *siteconfig.Config, image string, container bool) {
	for name, f := range gpuJobs(t, image) {
		if !strings.HasPrefix(name, "pai") {
			t.Run(name, func(t *testing.T) { gpuRun(t, f, cfg, nil, container) })
			continue
		}
		for cname, cs := range paiContracts {
			t.Run(name+"/"+cname, func(t *testing.T) { gpuRun(t, f, cfg, cs, container) })
		}
	}
}

func gpuRun(t *testing.T, f string, cfg *siteconfig.Config, contracts []string, container bool) {
	p := loadPlanContracts(t, f, cfg, contracts)
	res, id := run(t, p)
	c := agent.Client(t)
	defer c.Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		logTasks(t, c, id)
		t.Fatalf("result %+v", res)
	}
	checkProcessEnv(t, c, p, id, container)
}

// logTasks logs every main task's output and error streams and its
// events, so that a failed run says what each task did.
func logTasks(t *testing.T, c *api.Client, id string) {
	t.Helper()
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Logf("allocations of %s: %v", id, err)
		return
	}
	for _, a := range allocs {
		var events []string
		if ts := a.TaskStates[nomad.MainTask]; ts != nil {
			for _, e := range ts.Events {
				events = append(events, e.Type+": "+e.DisplayMessage)
			}
		}
		stderr, _ := exec.Command(agent.Binary(), "alloc", "logs", "-stderr", "-address", agent.Addr(t), a.ID, nomad.MainTask).CombinedOutput()
		t.Logf("%s (%s): events %q\nstdout:\n%s\nstderr:\n%s", a.Name, a.ClientStatus, events,
			catLogs(t, a.ID, nomad.MainTask), stderr)
	}
}

// checkProcessEnv reads each task's own environment (printed by
// envprobe.py) and compares it with the oracle and the assigned devices.
func checkProcessEnv(t *testing.T, c *api.Client, p *translate.Plan, id string, container bool) {
	t.Helper()
	topo := topology(t, c, p, id)
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	if len(allocs) == 0 {
		t.Fatal("no allocations")
	}
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		role := full.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole]
		var idx int
		fmt.Sscanf(a.Name[strings.LastIndexByte(a.Name, '['):], "[%d]", &idx)
		env := probedEnv(t, catLogs(t, a.ID, nomad.MainTask))
		if env == nil {
			t.Errorf("%s: no JOBSHIFT_ENV line in its output", a.Name)
			continue
		}
		inTask, sourced := false, false
		for _, task := range full.Job.LookupTaskGroup(a.TaskGroup).Tasks {
			_, in := task.Env[nomad.TaskEnvVar]
			inTask = inTask || (task.Name == nomad.MainTask && in)
			for _, tm := range task.Templates {
				sourced = sourced || (task.Name == nomad.MainTask && *tm.DestPath == nomad.ShellEnvFile)
			}
		}
		if inTask != (p.Site.Nomad.Helper != "" && !container) {
			t.Errorf("%s: environment evaluated in the task: %v, with helper %q", a.Name, inTask, p.Site.Nomad.Helper)
		}
		// without the helper a raw_exec or exec task of a watched job
		// (the snapshot) sources its environment from a file
		snap := full.Job.Meta[nomad.MetaRendezvous] == nomad.RendezvousSnap
		if want := p.Site.Nomad.Helper == "" && !container && snap; sourced != want {
			t.Errorf("%s: environment sourced from %s: %v, want %v", a.Name, nomad.ShellEnvFile, sourced, want)
		}
		for _, leak := range []string{nomad.TaskEnvVar, "NOMAD_TOKEN"} {
			if _, ok := env[leak]; ok {
				t.Errorf("%s: %s reached the user's process", a.Name, leak)
			}
		}
		want, err := contract.Eval(p.Job, topo, jobs.TaskRef{Role: role, Index: idx}, contract.Options{User: p.User, Contracts: p.Contracts})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range want {
			if v.Name == contract.WorkDirVar {
				continue // the task's own $(pwd)
			}
			if g, ok := env[v.Name]; !ok || g != v.Value {
				t.Errorf("%s: %s = %q (set %v), oracle %q", a.Name, v.Name, g, ok, v.Value)
			}
		}
		var ids []string
		if tr := full.AllocatedResources.Tasks[nomad.MainTask]; tr != nil {
			for _, d := range tr.Devices {
				ids = append(ids, d.DeviceIDs...)
			}
		}
		checkDevices(t, a.Name, env, ids, container)
	}
}

func checkDevices(t *testing.T, name string, env map[string]string, ids []string, container bool) {
	t.Helper()
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		l := strings.Split(s, ",")
		slices.Sort(l)
		return l
	}
	slices.Sort(ids)
	if container {
		if cv, ok := env["CUDA_VISIBLE_DEVICES"]; ok {
			t.Errorf("%s: CUDA_VISIBLE_DEVICES = %q in a container (the runtime numbers the devices)", name, cv)
		}
		if got := split(env["NVIDIA_VISIBLE_DEVICES"]); !slices.Equal(got, ids) {
			t.Errorf("%s: NVIDIA_VISIBLE_DEVICES = %v, assigned %v", name, got, ids)
		}
		return
	}
	cv, ok := env["CUDA_VISIBLE_DEVICES"]
	if got := split(cv); !ok || !slices.Equal(got, ids) {
		t.Errorf("%s: CUDA_VISIBLE_DEVICES = %q (set %v), assigned %v", name, cv, ok, ids)
	}
}

func probedEnv(t *testing.T, logs string) map[string]string {
	for _, line := range strings.Split(logs, "\n") {
		if rest, ok := strings.CutPrefix(line, "JOBSHIFT_ENV "); ok {
			var env map[string]string
			if err := json.Unmarshal([]byte(rest), &env); err != nil {
				t.Errorf("bad env line: %v", err)
				return nil
			}
			return env
		}
	}
	return nil
}
