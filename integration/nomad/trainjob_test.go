package nomad_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/internal/envdump"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// envDumped wraps p's commands (envdump.Wrap: raw_exec tasks share this
// machine's file system) and returns the check of the environments they
// started with against the oracle's for where they ran, to call once the
// job ended and before it is purged.
func envDumped(t *testing.T, p *translate.Plan) func(id string) {
	t.Helper()
	dumps := t.TempDir()
	wrapped := envdump.Wrap(t, p, dumps)
	return func(id string) {
		t.Helper()
		envdump.Check(t, p.Job, topology(t, agent.Client(t), p, id), nomad.ContractOptions(p), dumps, wrapped, agent.Repo())
		// an MPI node runs the ssh emulation's sshd, no command of its
		// own: the environment it was given
		checkRenderedEnv(t, agent.Client(t), p, id, nomad.ContractOptions(p), wrapped)
	}
}

var trainJobChecksumRe = regexp.MustCompile(`rank (\d) of 3 checksum (\S+)`)

// TestTrainJobTorchOnRawExec runs examples/trainjob-torch.yaml (a
// Kubeflow Trainer v2 TrainJob on the built-in torch-distributed runtime,
// three nodes, gloo on CPU) on raw_exec: every node trains from the
// PET_* variables and ends with the same parameters; every task started
// with the oracle's environment.
func TestTrainJobTorchOnRawExec(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/torch"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-torch is not installed")
		}
		t.Skip("python3-torch is not installed")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}, Roles: torchPath}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-torch.yaml"), cfg)
	res, sums := runTraining(t, p, trainJobChecksumRe, envDumped(t, p))
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Errorf("checksums %v, want three equal", sums)
	}
}

// TestTrainJobXGBoostOnRawExec runs examples/trainjob-xgboost.yaml (the
// built-in xgboost-distributed runtime, three CPU nodes) on raw_exec.
func TestTrainJobXGBoostOnRawExec(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/xgboost"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-xgboost is not installed")
		}
		t.Skip("python3-xgboost is not installed")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}, Roles: torchPath}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-xgboost.yaml"), cfg)
	check := envDumped(t, p)
	res, id := run(t, p)
	defer agent.Client(t).Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	check(id)
	sums := map[string]string{}
	for _, m := range trainJobChecksumRe.FindAllStringSubmatch(mainLogs(t, id), -1) {
		sums[m[1]] = m[2]
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Errorf("checksums %v, want three equal", sums)
	}
}

// mainLogs is the stdout of every main task of job id.
func mainLogs(t *testing.T, id string) string {
	t.Helper()
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, a := range allocs {
		b.WriteString(catLogs(t, a.ID, nomad.MainTask))
	}
	return b.String()
}

var datasetRows = regexp.MustCompile(`(?m)^rank (\d+) of 2 read 32 of 64 rows, sum (\d+)$`)

// TestTrainJobInitializerOnRawExec runs examples/trainjob-initializer.yaml
// on raw_exec: the dataset initializer step writes the data set into the
// runtime's hostPath volume at /workspace (bound by the task view), the
// two trainer nodes start once it completed and each reads its half.
func TestTrainJobInitializerOnRawExec(t *testing.T) {
	host := exampleWorkspace(t)
	// the helper keeps the step order (the trainer's dependsOn Complete)
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m", Helper: helper(t)}, Roles: torchPath}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-initializer.yaml"), cfg)
	check := envDumped(t, p)
	res, id := run(t, p)
	defer agent.Client(t).Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	check(id)
	checkDatasetRows(t, mainLogs(t, id), host)
}

// exampleWorkspace makes the initializer example's hostPath for the test
// (jobshift makes no hostPath directory, as Kubernetes' default type
// does not), removed afterwards; a test skips when it exists.
func exampleWorkspace(t *testing.T) string {
	t.Helper()
	const host = "/tmp/jobshift-example-workspace" // the job's hostPath
	if _, err := os.Stat(host); err == nil {
		t.Skipf("%s exists: not this test's to use", host)
	}
	if err := os.Mkdir(host, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(host) })
	return host
}

// checkDatasetRows: each trainer node read its half of the rows the
// initializer wrote into host (rows i with i*i: the even ones sum 41664,
// the odd 43680).
func checkDatasetRows(t *testing.T, out, host string) {
	t.Helper()
	sums := map[string]string{}
	for _, m := range datasetRows.FindAllStringSubmatch(out, -1) {
		sums[m[1]] = m[2]
	}
	if sums["0"] != "41664" || sums["1"] != "43680" {
		t.Errorf("sums by rank %v, want 0:41664 1:43680; output:\n%s", sums, out)
	}
	if _, err := os.Stat(filepath.Join(host, "dataset", "rows.txt")); err != nil {
		t.Errorf("the initializer's output is not in the volume: %v", err)
	}
}

// TestTrainJobTorchOnDocker runs examples/trainjob-torch.yaml in the torch
// image (the runtime's pytorch image mapped to it by a site rule): the
// containers have no task view, so PET_MASTER_ADDR is node 0's address,
// and every node ends with the same parameters; every task's rendered
// environment is the oracle's.
func TestTrainJobTorchOnDocker(t *testing.T) {
	needDocker(t)
	if err := exec.Command("docker", "image", "inspect", torchImage).Run(); err != nil {
		t.Skip("image " + torchImage + " is missing: run integration/nomad/build-torch-image.sh")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "pytorch/pytorch:*", Replace: torchImage}}}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-torch.yaml"), cfg)
	// No volume carries the checkout into the container: send the script
	// itself (the rest of the command is unchanged).
	src, err := os.ReadFile(filepath.Join(agent.Repo(), "examples", "ddp_train.py"))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Job.Role("node").Command.Command // [sh, -c, SCRIPT]
	script := strings.Replace(c[len(c)-1], "python3 examples/ddp_train.py", `python3 -c "$(echo `+base64.StdEncoding.EncodeToString(src)+` | base64 -d)"`, 1)
	if script == c[len(c)-1] {
		t.Fatalf("the example's command %q no longer runs examples/ddp_train.py", c)
	}
	c[len(c)-1] = script
	// the containers' environment is the rendered env file's (the
	// image's own aside)
	res, sums := runTraining(t, p, trainJobChecksumRe, func(id string) { checkEnvAgainstOracle(t, agent.Client(t), p, id) })
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Errorf("checksums %v, want three equal", sums)
	}
}

// dockerTrainJob is the site of the TrainJob examples on the docker
// driver: the runtimes' images mapped to the torch image, the helper for
// the step order.
func dockerTrainJob(t *testing.T) *siteconfig.Config {
	t.Helper()
	needDocker(t)
	return &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m", Helper: helper(t)},
		Images: []siteconfig.ImageRule{{Pattern: "ghcr.io/kubeflow/trainer/*", Replace: torchImage}, {Pattern: "python:*", Replace: torchImage}}}
}

// waitMainLogs is mainLogs once re matches n times in it, or after 15 s:
// a Docker task's output reaches its log through Nomad's docker logger,
// which may still be writing it when the job has ended.
func waitMainLogs(t *testing.T, id string, re *regexp.Regexp, n int) string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out := mainLogs(t, id)
		if len(re.FindAllString(out, -1)) >= n || time.Now().After(deadline) {
			return out
		}
	}
}

// TestTrainJobXGBoostOnDocker runs examples/trainjob-xgboost.yaml in the
// torch image (which holds Debian's python3-xgboost; the runtime's image
// mapped to it by a site rule), its script sent with the command as the
// image holds no checkout: the three nodes end with the same model, and
// every task's rendered environment is the oracle's.
func TestTrainJobXGBoostOnDocker(t *testing.T) {
	cfg := dockerTrainJob(t)
	needImageModule(t, "xgboost")
	p := loadPlan(t, drivertest.StandInScriptJob(t, "trainjob-xgboost.yaml", "trainjob_xgb_train.py"), cfg)
	res, id := run(t, p)
	defer agent.Client(t).Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	checkRenderedEnv(t, agent.Client(t), p, id, nomad.ContractOptions(p), nil)
	sums := map[string]string{}
	for _, m := range trainJobChecksumRe.FindAllStringSubmatch(waitMainLogs(t, id, trainJobChecksumRe, 3), -1) {
		sums[m[1]] = m[2]
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Errorf("checksums %v, want three equal", sums)
	}
}

// TestTrainJobInitializerOnDocker runs examples/trainjob-initializer.yaml
// in containers. The dev agent's docker plugin mounts no host path
// (Nomad's default, volumes { enabled = false }: drivers/docker/config.go,
// v1.11.3), so the site maps the runtime's shared volume to a Nomad host
// volume, as a site without that option would (volume "initializer" {
// nomad_host_volume = ... }): here a dynamic host volume registered on the
// agent's node over the job's hostPath directory. The initializer writes
// the data set into it, the two nodes read their halves after it (in
// ms: their output reaches the log through the shape's log drain tail).
func TestTrainJobInitializerOnDocker(t *testing.T) {
	cfg := dockerTrainJob(t)
	host := exampleWorkspace(t)
	vol := registerHostVolume(t, fmt.Sprintf("jobshift-test-%d", time.Now().UnixNano()%1e9), host)
	rules, d := siteconfig.ParseConfig([]byte(`volume "initializer" { nomad_host_volume = "`+vol+`" }`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	cfg.Volumes = rules.Volumes
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-initializer.yaml"), cfg)
	res, id := run(t, p)
	c := agent.Client(t)
	defer c.Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	job, _, err := c.Jobs().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range job.TaskGroups {
		if v := g.Volumes["initializer"]; v == nil || v.Type != "host" || v.Source != vol {
			t.Errorf("group %s: volume %+v, want the host volume %s", *g.Name, v, vol)
		}
	}
	checkRenderedEnv(t, c, p, id, nomad.ContractOptions(p), nil)
	checkDatasetRows(t, waitMainLogs(t, id, datasetRows, 2), host)
}
