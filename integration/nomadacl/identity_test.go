package nomadacl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/nomad/intask"
)

// attackEnv makes the test binary, run as a job's task, the attacker of
// TestJobIdentityConfined instead of the tests.
const attackEnv = "JOBSHIFT_ACL_ATTACK"

func TestMain(m *testing.M) {
	if os.Getenv(attackEnv) != "" {
		os.Exit(attack())
	}
	os.Exit(m.Run())
}

// The attacks of a job's own identity on another job, each of which Nomad
// must refuse: B is another job of the same user in the same namespace, C
// another user's job (in their namespace, under the attacker's own ID),
// <self>/x a job whose ID begins with the attacker's.
var refusedToIdentity = []string{
	"forge the verdict of job <self>/x", "read B's secrets", "write B's snapshot", "read B's verdict", "forge B's verdict", "forge B's end marker",
	"replace B", "stop B's allocation",
	"read C's job", "read C's secrets", "write C's snapshot", "read C's verdict", "forge C's verdict",
	"forge C's end marker", "replace C", "stop C's allocation", "stop C",
}

// limitOfIdentity is what Nomad lets the identity do to B all the same:
// it grants read-job and deregister-job per namespace only, never per job
// (docs/operators.md, "The finisher's token").
var limitOfIdentity = []string{"read B's job", "stop B"}

// TestJobIdentityConfined: a job of alice's whose task holds its own
// workload identity as jobshift's in-task finisher does (identity { file =
// true }, read by intask.Token, the per-job finisher policy of `jobshift
// nomad-acl -job` attached job-wide, as it prints it without -group) tries
// everything on alice's other job and on bob's: only its own verdict and
// Variable are within reach, and of alice's other job what Nomad grants per
// namespace, reading and stopping it. With the policy attached to the
// finisher tasks only (-group), the main task holds none of it.
func TestJobIdentityConfined(t *testing.T) {
	cl := up(t)
	tokens := cl.users(t, "alice", "bob")
	nsA, nsB := nomad.NamespaceFor("alice"), nomad.NamespaceFor("bob")
	alice, bob := cl.client(t, tokens["alice"], nsA), cl.client(t, tokens["bob"], nsB)
	// C has the attacker's own ID: only the namespace tells them apart
	self, jobB, jobC := "acl-wi", "acl-wi-2", "acl-wi"
	allocB, allocC := cl.sleeper(t, alice, nsA, jobB), cl.sleeper(t, bob, nsB, jobC)
	secret := func(c *api.Client, path, item string) {
		t.Helper()
		if _, _, err := c.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"v": item}}, nil); err != nil {
			t.Fatalf("writing %s: %v", path, err)
		}
	}
	secret(alice, nomad.VariablePath(self), "own")
	secret(alice, nomad.VariablePath(jobB), "B's secret")
	secret(alice, nomad.ResultPath(jobB), "B's verdict")
	secret(bob, nomad.VariablePath(jobC), "C's secret")
	secret(bob, nomad.ResultPath(jobC), "C's verdict")

	cl.attachFinisherPolicy(t, nsA, self)
	env := map[string]string{"JOBSHIFT_ACL_ADDR": cl.addr, "JOBSHIFT_ACL_SAME": jobB, "JOBSHIFT_ACL_SAME_ALLOC": allocB,
		"JOBSHIFT_ACL_OTHER_NS": nsB, "JOBSHIFT_ACL_OTHER": jobC, "JOBSHIFT_ACL_OTHER_ALLOC": allocC}
	got := cl.runAttacker(t, alice, nsA, self, env)
	if got["own verdict"] != "allowed" || got["own secrets"] != "allowed" {
		t.Fatalf("the job's identity cannot write its own verdict or read its own Variable (%q, %q): it holds no finisher policy and the refusals below prove nothing", got["own verdict"], got["own secrets"])
	}
	for _, what := range refusedToIdentity {
		if got[what] != "denied" {
			t.Errorf("the job's own identity could %s: %s (want denied)", what, got[what])
		}
	}
	for _, what := range limitOfIdentity {
		if got[what] != "allowed" {
			t.Errorf("the job's own identity could not %s (%s): Nomad now limits it per job; say so in docs/operators.md and move it to the refusals", what, got[what])
		}
	}
	for _, key := range []string{"list in own namespace", "list in C's namespace"} {
		for p := range strings.SplitSeq(got[key], ",") {
			if p != "" && (key != "list in own namespace" || p != nomad.VariablePath(self) && p != nomad.ResultPath(self)) {
				t.Errorf("%s: the job's identity lists %s", key, p)
			}
		}
	}
	if v, _, err := cl.c.Variables().Read(nomad.ResultPath(jobC), &api.QueryOptions{Namespace: nsB}); err != nil || v.Items["v"] != "C's verdict" {
		t.Errorf("bob's verdict after the attack: %v %v", v, err)
	}
	if job, _, err := cl.c.Jobs().Info(jobB, &api.QueryOptions{Namespace: nsA}); err != nil || !*job.Stop {
		t.Errorf("the documented limit: alice's other job is stopped by the identity (%v)", err)
	}

	// attached to the finisher tasks only: the main task's identity keeps
	// Nomad's implicit read of its own Variable and nothing of the policy
	grp := "acl-wi-grp"
	secret(alice, nomad.VariablePath(grp), "own")
	cl.attachFinisherPolicy(t, nsA, grp, "-group", "g")
	got = cl.runAttacker(t, alice, nsA, grp, env)
	if got["own secrets"] != "allowed" || got["own verdict"] != "denied" {
		t.Errorf("finisher policy on the finisher tasks only: the main task's identity reads its Variable %q (want allowed), writes its verdict %q (want denied)", got["own secrets"], got["own verdict"])
	}
}

// sleeper registers a job id in namespace ns with c (its user's token)
// that sleeps, and returns its allocation once it runs.
func (cl *cluster) sleeper(t *testing.T, c *api.Client, ns, id string) string {
	t.Helper()
	if _, _, err := c.Jobs().Register(sleeperJob(ns, id), nil); err != nil {
		t.Fatalf("register %s/%s: %v", ns, id, err)
	}
	t.Cleanup(func() { _, _, _ = cl.c.Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns}) })
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		allocs, _, _ := c.Jobs().Allocations(id, false, nil)
		for _, a := range allocs {
			if a.ClientStatus == "running" {
				return a.ID
			}
		}
	}
	cl.explain(t, id)
	t.Fatalf("%s/%s never ran", ns, id)
	return ""
}

// sleeperJob is a job id in namespace ns whose one task sleeps.
func sleeperJob(ns, id string) *api.Job {
	job := api.NewBatchJob(id, id, "global", 50)
	job.Namespace = &ns
	task := api.NewTask("main", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"600"})
	task.Resources = &api.Resources{CPU: new(20), MemoryMB: new(32)}
	return job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
}

// attachFinisherPolicy writes the finisher policy of job id with
// `jobshift nomad-acl -job id -namespace ns [extra]` and runs the
// attachments it prints.
func (cl *cluster) attachFinisherPolicy(t *testing.T, ns, id string, extra ...string) {
	t.Helper()
	out, code := cl.jobshift(t, "", append([]string{"nomad-acl", "-job", id, "-namespace", ns, "-o", t.TempDir()}, extra...)...)
	if code != 0 {
		t.Fatalf("nomad-acl -job %s: exit %d\n%s", id, code, out)
	}
	n := 0
	for l := range strings.Lines(out) {
		l, _, _ = strings.Cut(l, "#")
		args := strings.Fields(l)
		if len(args) < 3 || args[0] != "nomad" || args[1] != "acl" {
			continue
		}
		c := exec.Command(cl.nomad, args[1:]...)
		c.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+cl.mgmt)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("nomad-acl -job %s printed no attachment:\n%s", id, out)
	}
}

// runAttacker registers job id with c: one raw_exec task "main" running
// this test binary as the attacker with its workload identity in
// secrets/nomad_token, and returns what each attack gave.
func (cl *cluster) runAttacker(t *testing.T, c *api.Client, ns, id string, env map[string]string) map[string]string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env[attackEnv] = "1"
	job := api.NewBatchJob(id, id, "global", 50)
	job.Namespace = &ns
	task := api.NewTask("main", "raw_exec").SetConfig("command", exe)
	task.Env = env
	task.Identities = []*api.WorkloadIdentity{{Name: "default", File: true}}
	task.Resources = &api.Resources{CPU: new(50), MemoryMB: new(128)}
	tg := api.NewTaskGroup("g", 1).AddTask(task)
	tg.RestartPolicy = &api.RestartPolicy{Attempts: new(0), Mode: new("fail")}
	tg.ReschedulePolicy = &api.ReschedulePolicy{Attempts: new(0), Unlimited: new(false)}
	job.AddTaskGroup(tg)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register %s/%s: %v", ns, id, err)
	}
	t.Cleanup(func() { _, _, _ = cl.c.Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns}) })
	var done *api.AllocationListStub
	for end := time.Now().Add(2 * time.Minute); done == nil && time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		allocs, _, _ := c.Jobs().Allocations(id, false, nil)
		for _, a := range allocs {
			if a.ClientStatus == "complete" || a.ClientStatus == "failed" {
				done = a
			}
		}
	}
	if done == nil {
		cl.explain(t, id)
		t.Fatalf("the attacker %s/%s did not end", ns, id)
	}
	// the log reaches the file through logmon: read until the last line is there
	got := map[string]string{}
	for end := time.Now().Add(15 * time.Second); got["stop B"] == "" && time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		got = cl.attackLog(t, ns, done.ID)
	}
	t.Logf("attacker %s/%s: %q", ns, id, got)
	if done.ClientStatus != "complete" || len(got) == 0 {
		cl.explain(t, id)
		t.Fatalf("the attacker %s/%s: %s, %d results", ns, id, done.ClientStatus, len(got))
	}
	return got
}

// attackLog reads the attacker's results from its task's stdout.
func (cl *cluster) attackLog(t *testing.T, ns, alloc string) map[string]string {
	t.Helper()
	r, err := cl.c.AllocFS().Cat(&api.Allocation{ID: alloc, Namespace: ns}, "alloc/logs/main.stdout.0", &api.QueryOptions{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var line struct{ Attack, Result string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Attack != "" {
			got[line.Attack] = line.Result
		}
	}
	return got
}

// attack is the attacker inside the job: every attempt with the task's own
// workload identity, one JSON line each, "allowed", "denied" or the error.
func attack() int {
	token := intask.Token()
	if token == "" {
		fmt.Fprintln(os.Stderr, "no workload identity in NOMAD_SECRETS_DIR/nomad_token")
		return 2
	}
	client := func(ns string) *api.Client {
		cfg := api.DefaultConfig()
		cfg.Address, cfg.SecretID, cfg.Namespace = os.Getenv("JOBSHIFT_ACL_ADDR"), token, ns
		c, err := api.NewClient(cfg)
		if err != nil {
			panic(err)
		}
		return c
	}
	own, other := client(os.Getenv("NOMAD_NAMESPACE")), client(os.Getenv("JOBSHIFT_ACL_OTHER_NS"))
	self, b, c := os.Getenv("NOMAD_JOB_ID"), os.Getenv("JOBSHIFT_ACL_SAME"), os.Getenv("JOBSHIFT_ACL_OTHER")
	report := func(what string, err error) {
		res := "allowed"
		switch {
		case denied(err):
			res = "denied"
		case err != nil:
			res = "error: " + err.Error()
		}
		line, _ := json.Marshal(map[string]string{"attack": what, "result": res})
		fmt.Println(string(line))
	}
	write := func(cl *api.Client, path string) error {
		_, _, err := cl.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"phase": "failed"}}, nil)
		return err
	}
	read := func(cl *api.Client, path string) error {
		_, _, err := cl.Variables().Read(path, nil)
		return err
	}
	report("own verdict", write(own, nomad.ResultPath(self)))
	report("own secrets", read(own, nomad.VariablePath(self)))
	// a job whose ID extends its own by "/" (a dispatched job's, say)
	report("forge the verdict of job <self>/x", write(own, nomad.ResultPath(self+"/x")))
	for _, t := range []struct {
		name, ns, job, alloc string
		cl                   *api.Client
	}{
		{"B", os.Getenv("NOMAD_NAMESPACE"), b, os.Getenv("JOBSHIFT_ACL_SAME_ALLOC"), own},
		{"C", os.Getenv("JOBSHIFT_ACL_OTHER_NS"), c, os.Getenv("JOBSHIFT_ACL_OTHER_ALLOC"), other},
	} {
		report("read "+t.name+"'s secrets", read(t.cl, nomad.VariablePath(t.job)))
		report("write "+t.name+"'s snapshot", write(t.cl, nomad.VariablePath(t.job)+"/g"))
		report("read "+t.name+"'s verdict", read(t.cl, nomad.ResultPath(t.job)))
		report("forge "+t.name+"'s verdict", write(t.cl, nomad.ResultPath(t.job)))
		report("forge "+t.name+"'s end marker", write(t.cl, nomad.ResultPath(t.job)+"/ended/"+t.alloc+"/1"))
		job, _, err := t.cl.Jobs().Info(t.job, nil)
		report("read "+t.name+"'s job", err)
		if job == nil { // unreadable: a valid job under its ID (Nomad validates before the ACL check)
			job = sleeperJob(t.ns, t.job)
		}
		_, _, err = t.cl.Jobs().Register(job, nil)
		report("replace "+t.name, err)
		_, err = t.cl.Allocations().Stop(&api.Allocation{ID: t.alloc}, nil)
		report("stop "+t.name+"'s allocation", err)
	}
	for what, cl := range map[string]*api.Client{"list in own namespace": own, "list in C's namespace": other} {
		list, _, err := cl.Variables().PrefixList("", nil)
		var paths []string
		for _, v := range list {
			paths = append(paths, v.Path)
		}
		line, _ := json.Marshal(map[string]string{"attack": what, "result": strings.Join(paths, ",")})
		if err != nil && !denied(err) {
			line, _ = json.Marshal(map[string]string{"attack": what, "result": "error: " + err.Error()})
		}
		fmt.Println(string(line))
	}
	_, _, err := other.Jobs().Deregister(c, false, nil)
	report("stop C", err)
	_, _, err = own.Jobs().Deregister(b, false, nil) // the documented limit, last
	report("stop B", err)
	return 0
}
