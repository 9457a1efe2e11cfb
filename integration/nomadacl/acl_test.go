// Package nomadacl checks the ACL policies of docs/nomad/ on a Nomad agent
// with ACLs enabled (scripts/nomad-acl-agent.sh starts it beside the
// shared test agent and stops it after): `jobshift run` with a token of
// the run policy, `jobshift controller` with a token of the controller
// policy, and the in-job finisher with the finisher policy attached to its
// job. Each is also shown to fail without its policy, so the policies are
// what makes them work.
package nomadacl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
)

func repo() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(f), "..", "..")
}

type cluster struct {
	addr, mgmt, bin, dir, nomad string
	c                           *api.Client
}

// up starts the ACL agent (skips without a Nomad binary, except under CI).
func up(t *testing.T) *cluster {
	t.Helper()
	nomadBin := filepath.Join(os.Getenv("JOBSHIFT_CACHE"), "nomad", "bin", "nomad")
	if _, err := os.Stat(nomadBin); err != nil || os.Getenv("JOBSHIFT_CACHE") == "" {
		if p, err := exec.LookPath("nomad"); err == nil {
			nomadBin = p
		} else if os.Getenv("CI") == "true" {
			t.Fatal("no nomad binary and CI=true: run scripts/install-nomad.sh")
		} else {
			t.Skip("no nomad binary (scripts/install-nomad.sh)")
		}
	}
	script := filepath.Join(repo(), "scripts", "nomad-acl-agent.sh")
	cmd := exec.Command(script, "start")
	cmd.Env = append(os.Environ(), "NOMAD_BIN="+nomadBin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nomad-acl-agent.sh start: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(script, "stop").CombinedOutput(); err != nil {
			t.Errorf("nomad-acl-agent.sh stop: %v\n%s", err, out)
		}
	})
	cl := &cluster{dir: t.TempDir(), nomad: nomadBin}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "NOMAD_ADDR="); ok {
			cl.addr = v
		}
		if v, ok := strings.CutPrefix(l, "NOMAD_TOKEN="); ok {
			cl.mgmt = v
		}
	}
	cfg := api.DefaultConfig()
	cfg.Address, cfg.SecretID = cl.addr, cl.mgmt
	if cl.c, err = api.NewClient(cfg); err != nil {
		t.Fatal(err)
	}
	cl.bin = filepath.Join(cl.dir, "jobshift")
	b := exec.Command("go", "build", "-o", cl.bin, "./cmd/jobshift")
	b.Dir = repo()
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return cl
}

// policy applies docs/nomad/<name>.policy.hcl (attached to job when set).
func (cl *cluster) policy(t *testing.T, name, job string) {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join(repo(), "docs", "nomad", name+".policy.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	p := &api.ACLPolicy{Name: name, Rules: string(rules)}
	if job != "" {
		// a policy name is [a-zA-Z0-9-]: a PAI job ID's "~" is not
		p.Name = name + "-" + strings.ReplaceAll(job, "~", "-")
		p.JobACL = &api.JobACL{Namespace: "default", JobID: job}
	}
	if _, err := cl.c.ACLPolicies().Upsert(p, nil); err != nil {
		t.Fatalf("policy %s: %v", name, err)
	}
}

func (cl *cluster) token(t *testing.T, policies ...string) string {
	t.Helper()
	tok, _, err := cl.c.ACLTokens().Create(&api.ACLToken{Name: strings.Join(policies, "+"), Type: "client", Policies: policies}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok.SecretID
}

// jobshift runs the binary with a token ("" = anonymous).
func (cl *cluster) jobshift(t *testing.T, token string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(cl.bin, args...)
	cmd.Dir = repo()
	cmd.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+token)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func (cl *cluster) site(t *testing.T, helper bool) string {
	t.Helper()
	s := fmt.Sprintf("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n  work_dir = %q\n", repo())
	if helper {
		s += fmt.Sprintf("  helper = %q\n", cl.bin)
	}
	p := filepath.Join(cl.dir, fmt.Sprintf("site-%v.hcl", helper))
	if err := os.WriteFile(p, []byte(s+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// register submits a converted job with the management token, as an
// operator's `nomad job run` would, and returns its ID.
func (cl *cluster) register(t *testing.T, site, name string) string {
	t.Helper()
	out, code := cl.jobshift(t, cl.mgmt, "convert", "-to", "nomad-json", "-config", site, "examples/pai-v1-ps-worker.json")
	if code != 0 {
		t.Fatalf("convert: %s", out)
	}
	var wrapped struct{ Job *api.Job }
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &wrapped); err != nil || wrapped.Job == nil {
		var job api.Job
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &job); err != nil {
			t.Fatalf("convert output: %v", err)
		}
		wrapped.Job = &job
	}
	wrapped.Job.ID, wrapped.Job.Name = &name, &name
	if _, _, err := cl.c.Jobs().Register(wrapped.Job, nil); err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	return name
}

func (cl *cluster) verdict(id string, within time.Duration) map[string]string {
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if v, _, err := cl.c.Variables().Read(nomad.ResultPath(id), nil); err == nil && v != nil {
			return v.Items
		}
	}
	return nil
}

// explain logs what became of a job that got no verdict or the wrong one:
// its allocations' task states and events, and the stderr of the finisher,
// the judge and every failed task.
func (cl *cluster) explain(t *testing.T, id string) {
	t.Helper()
	allocs, _, err := cl.c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Logf("%s: allocations: %v", id, err)
		return
	}
	for _, stub := range allocs {
		t.Logf("alloc %s %s v%d: client %s, desired %s (%s)", stub.ID[:8], stub.Name, stub.JobVersion, stub.ClientStatus, stub.DesiredStatus, stub.ClientDescription)
		for task, ts := range stub.TaskStates {
			var evs []string
			for _, e := range ts.Events {
				evs = append(evs, e.Type+":"+e.DisplayMessage)
			}
			t.Logf("  task %s: %s failed=%v events=%q", task, ts.State, ts.Failed, evs)
		}
		for task, ts := range stub.TaskStates {
			if task != nomad.FinisherTask && task != nomad.JudgeTask && !ts.Failed {
				continue
			}
			cmd := exec.Command(cl.nomad, "alloc", "logs", "-stderr", stub.ID, task)
			cmd.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+cl.mgmt)
			out, _ := cmd.CombinedOutput()
			t.Logf("  %s stderr:\n%s", task, out)
		}
	}
}

func TestPolicies(t *testing.T) {
	cl := up(t)
	site := cl.site(t, false)
	cl.policy(t, "jobshift-run", "")
	cl.policy(t, "jobshift-controller", "")

	// run: anonymous is refused, the run policy's token runs the job to its end
	if out, code := cl.jobshift(t, "", "run", "-to", "nomad", "-plain", "-config", site, "examples/pai-v1-ps-worker.json"); code == 0 {
		t.Errorf("run without a token succeeded:\n%s", out)
	} else if !refusal(out) {
		t.Errorf("run without a token: exit %d, but no permission error:\n%s", code, out)
	}
	run := cl.token(t, "jobshift-run")
	if out, code := cl.jobshift(t, run, "run", "-to", "nomad", "-plain", "-config", site, "examples/pai-v1-ps-worker.json"); code != 0 || !strings.Contains(out, "succeeded (exit code 0)") {
		if m := regexp.MustCompile(`submitted nomad job nomad:(\S+)`).FindStringSubmatch(out); m != nil {
			cl.explain(t, m[1])
		}
		t.Fatalf("run with the run policy: exit %d\n%s", code, out)
	}
	cl.runSecrets(t, run, site)

	// controller: with its policy's token it ends a job registered by
	// plain `nomad job run` and records the verdict
	id := cl.register(t, site, "acl-controller")
	ctl := exec.Command(cl.bin, "controller", "-every", "2s", "-log-json")
	ctl.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+cl.token(t, "jobshift-controller"))
	var log bytes.Buffer
	ctl.Stdout, ctl.Stderr = &log, &log
	if err := ctl.Start(); err != nil {
		t.Fatal(err)
	}
	v := cl.verdict(id, 120*time.Second)
	_ = ctl.Process.Kill()
	_ = ctl.Wait()
	if v["phase"] != "succeeded" {
		t.Errorf("controller: verdict %v; its log:\n%s", v, log.String())
	}
	sc := bufio.NewScanner(&log)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "Permission denied") {
			t.Errorf("controller log: %s", sc.Text())
		}
	}

	// the controller jobspec of docs/nomad: a service job in its own
	// namespace (the files and commands of jobshift nomad-acl
	// -controller) reaching the API through the Task API socket with its
	// workload identity, the controller policy attached to it
	cl.controllerJob(t, site)

	// finisher: the job ends by itself (no jobshift process) only with the
	// finisher policy attached to its job ID
	helperSite := cl.site(t, true)
	id = "acl-finisher"
	cl.policy(t, "jobshift-finisher", id)
	cl.register(t, helperSite, id)
	if v := cl.verdict(id, 120*time.Second); v["phase"] != "succeeded" {
		t.Errorf("finisher with its policy: verdict %v", v)
		cl.explain(t, id)
	}
	id = "acl-finisher-nopolicy"
	cl.register(t, helperSite, id)
	if v := cl.verdict(id, 30*time.Second); v != nil {
		t.Errorf("finisher without a policy recorded a verdict %v: the policy test proves nothing", v)
	}

	// run on a site with the helper: each raw_exec task reads its group's
	// topology snapshot through the Task API with its own workload identity
	// (drivers/nomad taskenv.go), which its implicit policy allows: the run
	// policy's token is all `run` needs
	if out, code := cl.jobshift(t, run, "run", "-to", "nomad", "-plain", "-config", helperSite, "examples/pai-v1-ps-worker.json"); code != 0 || !strings.Contains(out, "succeeded (exit code 0)") {
		t.Errorf("run with the helper (environment evaluated in the task): exit %d\n%s", code, out)
	}
	cl.inTaskFinisher(t, run, helperSite)
}

// inTaskFinisher: a job `jobshift run` submitted on a site with the helper
// judges from inside its raw_exec main tasks, through their workload
// identity: with the finisher policy attached to its ID, it ends by its
// rule after the run was killed (SIGKILL once every task ran), its two
// workers ending together (each writes its end marker and lists them).
func (cl *cluster) inTaskFinisher(t *testing.T, token, site string) {
	t.Helper()
	job := filepath.Join(t.TempDir(), "together.json")
	task := func(name, extra, cmd string) string {
		return fmt.Sprintf(`{"name": %q, "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "minFailedTaskCount": 1, %s"command": %q}`, name, extra, cmd)
	}
	// as examples/pai-v1-ps-worker.json: the job succeeds when both workers did
	src := `{"jobName": "together", "image": "busybox", "retryCount": 0, "taskRoles": [` +
		task("ps", "", "exec sleep 3600") + ", " +
		task("worker", `"minSucceededTaskCount": 2, `, "now=$(date +%s); sleep $(((now / 5 + 3) * 5 - now))") + "]}"
	if err := os.WriteFile(job, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	id := "aclintask~together"
	cl.policy(t, "jobshift-finisher", id)
	cmd := exec.Command(cl.bin, "run", "-to", "nomad", "-plain", "-user", "aclintask", "-config", site, job)
	cmd.Dir = repo()
	cmd.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+token)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cl.c.Jobs().Deregister(id, true, nil)
	running := 0
	for end := time.Now().Add(2 * time.Minute); running < 4 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		allocs, _, _ := cl.c.Jobs().Allocations(id, false, nil)
		running = 0
		for _, a := range allocs {
			if ts := a.TaskStates[nomad.MainTask]; ts != nil && ts.State == "running" {
				running++
			}
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if running < 4 {
		cl.explain(t, id)
		t.Fatalf("in-task finisher: %d of 4 tasks ran", running)
	}
	if v := cl.verdict(id, 2*time.Minute); v["phase"] != "succeeded" {
		t.Errorf("in-task finisher with its policy, run killed: verdict %v", v)
		cl.explain(t, id)
	}
}

// runSecrets: with the run policy's token, a PAI v2 job with secrets runs
// (its Variable nomad/jobs/<job ID> written before it, read by its task)
// and the Variable is gone after the verdict.
func (cl *cluster) runSecrets(t *testing.T, token, site string) {
	t.Helper()
	job := filepath.Join(t.TempDir(), "secrets.yaml")
	src := "protocolVersion: 2\nname: aclsecret\ntype: job\nsecrets:\n  token: s3cr3t\n" +
		"prerequisites:\n  - {name: i, type: dockerimage, uri: busybox}\n" +
		"taskRoles:\n  worker:\n    instances: 1\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n" +
		"    commands: ['test \"<% $secrets.token %>\" = s3cr3t']\n"
	if err := os.WriteFile(job, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := cl.jobshift(t, token, "run", "-to", "nomad", "-plain", "-config", site, job)
	if code != 0 || !strings.Contains(out, "succeeded (exit code 0)") {
		t.Fatalf("run of a job with secrets with the run policy: exit %d\n%s", code, out)
	}
	m := regexp.MustCompile(`submitted nomad job nomad:(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("run printed no handle:\n%s", out)
	}
	drivertest.NoNomadVariable(t, cl.c, nomad.VariablePath(m[1]))
	if strings.Contains(out, "could not delete") {
		t.Errorf("run warned:\n%s", out)
	}
}

// controllerJob applies what `jobshift nomad-acl -controller` writes and
// runs the shipped controller jobspec in its namespace, which then ends a
// job of the default namespace.
func (cl *cluster) controllerJob(t *testing.T, site string) {
	t.Helper()
	dir := t.TempDir()
	if out, code := cl.jobshift(t, "", "nomad-acl", "-controller", "-o", dir); code != 0 {
		t.Fatalf("nomad-acl -controller: exit %d\n%s", code, out)
	}
	nomadCLI := func(args ...string) {
		t.Helper()
		c := exec.Command(cl.nomad, args...)
		c.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+cl.mgmt)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("nomad %v: %v\n%s", args, err, out)
		}
	}
	nomadCLI("namespace", "apply", filepath.Join(dir, nomad.ControllerNamespace+".namespace.hcl"))
	nomadCLI("acl", "policy", "apply", "-namespace", nomad.ControllerNamespace, "-job", nomad.ControllerJobID,
		nomad.ControllerPolicyName, filepath.Join(dir, nomad.ControllerJobID+".policy.hcl"))
	nomadCLI("job", "run", "-detach", "-var", "jobshift="+cl.bin, filepath.Join(repo(), "docs", "nomad", "jobshift-controller.nomad.hcl"))
	defer cl.c.Jobs().Deregister(nomad.ControllerJobID, true, &api.WriteOptions{Namespace: nomad.ControllerNamespace})
	id := cl.register(t, site, "acl-controller-job")
	if v := cl.verdict(id, 120*time.Second); v["phase"] != "succeeded" {
		t.Errorf("controller jobspec: verdict %v", v)
		cl.explain(t, id)
	}
}
