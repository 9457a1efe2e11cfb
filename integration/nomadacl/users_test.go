package nomadacl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/jobshift/jobshift/drivers/nomad"
)

// denied reports whether err is Nomad's ACL refusal (not a "not found").
func denied(err error) bool { return err != nil && refusal(err.Error()) }

// refusal reports whether s holds Nomad's ACL refusal: its status code as
// the API client quotes it, not any "403" (a timestamp's 06:26:55.234035,
// an ID).
func refusal(s string) bool {
	return strings.Contains(s, "response code: 403") || strings.Contains(strings.ToLower(s), "permission denied")
}

// TestUsersIsolated: two users of one cluster, each with the policy
// `jobshift nomad-acl` writes for them (drivers/nomad acl.go) and the site
// putting each user's jobs in their own namespace. Alice's job runs; with
// Bob's token nothing of hers can be read, written, forged, stopped or
// replaced, nor can Bob submit as her; her job still runs to success.
func TestUsersIsolated(t *testing.T) {
	cl := up(t)
	tokens := cl.users(t, "alice", "bob")
	site := filepath.Join(cl.dir, "site-users.hcl")
	s := fmt.Sprintf("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n  work_dir = %q\n  namespace_per_user = true\n}\n", repo())
	if err := os.WriteFile(site, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := cl.jobshift(t, tokens["alice"], "run", "-to", "nomad", "-detach", "-user", "alice", "-config", site, "examples/pai-v1-ps-worker.json")
	m := regexp.MustCompile(`submitted nomad job (nomad:\S+)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("alice's run -detach: exit %d\n%s", code, out)
	}
	handle := m[1]
	ns := nomad.NamespaceFor("alice")
	id := strings.TrimPrefix(handle, "nomad:"+ns+"/") // the handle names the namespace
	defer cl.c.Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns})

	client := func(token string) *api.Client {
		cfg := api.DefaultConfig()
		cfg.Address, cfg.SecretID, cfg.Namespace = cl.addr, token, ns
		c, err := api.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// her job's secrets Variable, as Submit writes it for a job with PAI
	// secrets or an ssh key (this example has neither)
	if _, _, err := client(tokens["alice"]).Variables().Create(&api.Variable{Path: nomad.VariablePath(id), Items: api.VariableItems{"token": "s3cr3t"}}, nil); err != nil {
		t.Fatalf("alice writes her job's Variable: %v", err)
	}
	bob := client(tokens["bob"])
	// a list is filtered by the token's policies: empty, not refused
	if list, _, err := bob.Variables().PrefixList("", nil); err == nil && len(list) > 0 {
		t.Errorf("with bob's token, her Variables are listed: %d", len(list))
	}
	if mine, _, err := cl.c.Variables().PrefixList("", &api.QueryOptions{Namespace: ns}); err != nil || len(mine) == 0 {
		t.Errorf("her job has no Variables to protect (%v): the list check proves nothing", err)
	}
	cl.attack(t, bob, id, ns)
	cl.impersonateController(t, tokens["bob"])
	if out, code := cl.jobshift(t, tokens["bob"], "stop", "-config", site, handle); code == 0 {
		t.Errorf("jobshift stop with bob's token succeeded:\n%s", out)
	}
	if out, code := cl.jobshift(t, tokens["bob"], "run", "-to", "nomad", "-detach", "-user", "alice", "-config", site, "examples/pai-v1-ps-worker.json"); code == 0 {
		t.Errorf("bob submitted as alice:\n%s", out)
	}
	if out, code := cl.jobshift(t, tokens["alice"], "watch", "-enforce", "-config", site, handle); code != 0 || !strings.Contains(out, "succeeded") {
		cl.explain(t, id)
		t.Fatalf("alice's job after bob's attempts: exit %d\n%s", code, out)
	}
	cl.usersController(t, site, tokens)
}

// users gives each user a namespace, the policy jobshift nomad-acl writes
// for them and a token of it (by user).
func (cl *cluster) users(t *testing.T, names ...string) map[string]string {
	t.Helper()
	tokens := map[string]string{}
	for _, u := range names {
		if _, err := cl.c.Namespaces().Register(&api.Namespace{Name: nomad.NamespaceFor(u)}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.c.ACLPolicies().Upsert(&api.ACLPolicy{Name: nomad.UserPolicyName(u), Rules: nomad.UserPolicy(u)}, nil); err != nil {
			t.Fatalf("policy of %s: %v", u, err)
		}
		tokens[u] = cl.token(t, nomad.UserPolicyName(u))
	}
	return tokens
}

// client is an API client of the ACL agent with token in namespace ns.
func (cl *cluster) client(t *testing.T, token, ns string) *api.Client {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Address, cfg.SecretID, cfg.Namespace = cl.addr, token, ns
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// attack: with bob's Nomad client (in alice's namespace ns), nothing of
// her job id can be read, forged, stopped or replaced.
func (cl *cluster) attack(t *testing.T, bob *api.Client, id, ns string) {
	t.Helper()
	attacks := map[string]error{}
	_, _, attacks["read her secrets and ssh key"] = bob.Variables().Read(nomad.VariablePath(id), nil)
	_, _, attacks["forge a verdict"] = bob.Variables().Create(&api.Variable{Path: nomad.ResultPath(id), Items: api.VariableItems{"phase": "failed"}}, nil)
	_, _, attacks["forge an end marker"] = bob.Variables().Create(&api.Variable{Path: nomad.ResultPath(id) + "/ended/x", Items: api.VariableItems{"code": "1"}}, nil)
	_, _, attacks["pre-write a snapshot"] = bob.Variables().Create(&api.Variable{Path: nomad.VariablePath(id) + "/x", Items: api.VariableItems{"attempt": "0"}}, nil)
	_, _, attacks["stop her job"] = bob.Jobs().Deregister(id, false, nil)
	_, _, attacks["read her job"] = bob.Jobs().Info(id, nil)
	if job, _, err := cl.c.Jobs().Info(id, &api.QueryOptions{Namespace: ns}); err == nil {
		_, _, attacks["replace her job"] = bob.Jobs().Register(job, nil)
	} else {
		t.Fatal(err)
	}
	_, _, attacks["list her allocations"] = bob.Jobs().Allocations(id, true, nil)
	// a detached job's allocations are placed after run returns: on a
	// loaded machine not yet when the attack starts
	var allocs []*api.AllocationListStub
	var err error
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		allocs, _, err = cl.c.Jobs().Allocations(id, true, &api.QueryOptions{Namespace: ns})
		if err != nil || len(allocs) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || len(allocs) == 0 {
		t.Fatalf("her job's allocations: %d, %v", len(allocs), err)
	}
	alloc := &api.Allocation{ID: allocs[0].ID, Namespace: ns}
	_, attacks["stop her allocation"] = bob.Allocations().Stop(alloc, nil)
	// the client's file API answers 200 with the refusal as the body
	attacks["read her task's output"] = catErr(bob.AllocFS().Cat(alloc, "alloc/logs/"+nomad.MainTask+".stdout.0", nil))
	attacks["read her task's workload identity"] = catErr(bob.AllocFS().Cat(alloc, nomad.MainTask+"/secrets/nomad_token", nil))
	for what, err := range attacks {
		if !denied(err) {
			t.Errorf("with bob's token, %s of %s: %v (want permission denied)", what, id, err)
		}
	}
	// the event stream refuses by closing before any event
	events, err := bob.EventStream().Stream(t.Context(), map[api.Topic][]string{api.TopicJob: {id}}, 1, nil)
	if err == nil {
		select {
		case ev := <-events:
			if ev.Err != io.EOF {
				t.Errorf("with bob's token, her job's events: %v, %d events (want the stream closed)", ev.Err, len(ev.Events))
			}
		case <-time.After(30 * time.Second): // a guard against a hang, not a measure
			t.Errorf("with bob's token, her job's event stream stayed open")
		}
	} else if !denied(err) {
		t.Errorf("with bob's token, her job's events: %v", err)
	}
}

// catErr is the refusal in what the client's file API answered, or nil.
func catErr(r io.ReadCloser, err error) error {
	if err != nil {
		return err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil || refusal(string(b)) {
		return fmt.Errorf("%v: %s", err, b)
	}
	return nil
}

// usersController: with one namespace per user, a job alice submits
// detached (no watcher, no finisher: the site has no helper) is ended by
// `jobshift controller` holding the controller policy (docs/nomad,
// namespace "*"), which watches every namespace its token may list; a
// controller run with bob's token never sees her job, and bob still
// cannot touch it while it runs.
func (cl *cluster) usersController(t *testing.T, site string, tokens map[string]string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repo(), "examples", "pai-v1-ps-worker.json"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cl.dir, "mesh-ctl.json")
	if err := os.WriteFile(file, bytes.Replace(src, []byte(`"mesh-ps-worker"`), []byte(`"mesh-ctl"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	cl.policy(t, "jobshift-controller", "")
	logs := map[string]*bytes.Buffer{}
	var ctls []*exec.Cmd
	stop := func() { // before its log is read
		for _, ctl := range ctls {
			_ = ctl.Process.Kill()
			_ = ctl.Wait()
		}
		ctls = nil
	}
	defer stop()
	for who, token := range map[string]string{"controller": cl.token(t, "jobshift-controller"), "bob": tokens["bob"]} {
		ctl := exec.Command(cl.bin, "controller", "-every", "2s", "-log-json")
		ctl.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+token)
		logs[who] = &bytes.Buffer{}
		ctl.Stdout, ctl.Stderr = logs[who], logs[who]
		if err := ctl.Start(); err != nil {
			t.Fatal(err)
		}
		ctls = append(ctls, ctl)
	}
	out, code := cl.jobshift(t, tokens["alice"], "run", "-to", "nomad", "-detach", "-user", "alice", "-config", site, file)
	m := regexp.MustCompile(`submitted nomad job (nomad:\S+)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("alice's run -detach: exit %d\n%s", code, out)
	}
	ns := nomad.NamespaceFor("alice")
	id := strings.TrimPrefix(m[1], "nomad:"+ns+"/")
	defer cl.c.Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns})
	cfg := api.DefaultConfig()
	cfg.Address, cfg.SecretID, cfg.Namespace = cl.addr, tokens["bob"], ns
	bob, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl.attack(t, bob, id, ns)
	var v *api.Variable
	for end := time.Now().Add(2 * time.Minute); v == nil && time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		v, _, _ = cl.c.Variables().Read(nomad.ResultPath(id), &api.QueryOptions{Namespace: ns})
	}
	stop()
	if v == nil || v.Items["phase"] != "succeeded" {
		cl.explain(t, id)
		t.Fatalf("alice's job under the controller in namespace %s: verdict %v; its log:\n%s", ns, v, logs["controller"])
	}
	for who, log := range logs {
		for l := range strings.Lines(log.String()) {
			if refusal(l) {
				t.Errorf("%s's controller log: %s", who, l)
			}
		}
	}
	if !strings.Contains(logs["controller"].String(), `"namespace":"`+ns+`"`) {
		t.Errorf("the controller's log names no job of namespace %s:\n%s", ns, logs["controller"])
	}
	if strings.Contains(logs["bob"].String(), id) {
		t.Errorf("a controller with bob's token saw alice's job %s:\n%s", id, logs["bob"])
	}
}

// impersonateController: a user's token cannot register a job under the
// controller's ID in the controller's namespace (jobshift nomad-acl puts it
// there), which would receive the controller's workload-identity policy.
func (cl *cluster) impersonateController(t *testing.T, token string) {
	t.Helper()
	if _, err := cl.c.Namespaces().Register(&api.Namespace{Name: nomad.ControllerNamespace}, nil); err != nil {
		t.Fatal(err)
	}
	cfg := api.DefaultConfig()
	cfg.Address, cfg.SecretID, cfg.Namespace = cl.addr, token, nomad.ControllerNamespace
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	job := api.NewServiceJob(nomad.ControllerJobID, nomad.ControllerJobID, "global", 50)
	job.Namespace = new(nomad.ControllerNamespace)
	job.AddTaskGroup(api.NewTaskGroup("controller", 1).AddTask(api.NewTask("controller", "raw_exec").SetConfig("command", "/bin/true")))
	if _, _, err := c.Jobs().Register(job, nil); !denied(err) {
		t.Errorf("a user's token registered the controller's job ID in namespace %s: %v (want permission denied)", nomad.ControllerNamespace, err)
	}
}

// TestUserNamespaceNoRawExec: the namespace `jobshift nomad-acl -user`
// writes, applied as it prints, refuses its user's raw_exec jobs (a
// raw_exec task runs as the client agent's user and reads every
// allocation's files, other users' secrets included) and takes their exec
// jobs; with -raw-exec it takes raw_exec.
func TestUserNamespaceNoRawExec(t *testing.T) {
	cl := up(t)
	for _, c := range []struct {
		user  string
		flags []string
		raw   bool
	}{{"alice", nil, false}, {"carol", []string{"-raw-exec"}, true}} {
		token := cl.users(t, c.user)[c.user]
		dir := t.TempDir()
		out, code := cl.jobshift(t, "", append([]string{"nomad-acl", "-user", c.user, "-o", dir}, c.flags...)...)
		if code != 0 {
			t.Fatalf("nomad-acl -user %s: exit %d\n%s", c.user, code, out)
		}
		applied := false
		for l := range strings.Lines(out) {
			l, _, _ = strings.Cut(l, "#")
			if args := strings.Fields(l); len(args) == 4 && args[1] == "namespace" && strings.Contains(args[3], nomad.NamespaceFor(c.user)) {
				nomadCLI := exec.Command(cl.nomad, args[1:]...)
				nomadCLI.Env = append(os.Environ(), "NOMAD_ADDR="+cl.addr, "NOMAD_TOKEN="+cl.mgmt)
				if out, err := nomadCLI.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", l, err, out)
				}
				applied = true
			}
		}
		if !applied {
			t.Fatalf("nomad-acl -user %s printed no namespace apply:\n%s", c.user, out)
		}
		ns := nomad.NamespaceFor(c.user)
		user := cl.client(t, token, ns)
		for _, driver := range []string{"raw_exec", "exec"} {
			id := "acl-driver-" + strings.ReplaceAll(driver, "_", "-")
			job := sleeperJob(ns, id)
			job.TaskGroups[0].Tasks[0].Driver = driver
			_, _, err := user.Jobs().Register(job, nil)
			if err == nil {
				_, _, _ = cl.c.Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns})
			}
			if want := driver != "raw_exec" || c.raw; (err == nil) != want {
				t.Errorf("%s %v: a %s job of %s registered: %v, want %v", c.user, c.flags, driver, c.user, err, want)
			} else if err != nil && !strings.Contains(err.Error(), "raw_exec") {
				t.Errorf("%s: the raw_exec job was refused, but not for its driver: %v", c.user, err)
			}
		}
	}
}
