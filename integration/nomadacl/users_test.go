package nomadacl

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/jobshift/jobshift/drivers/nomad"
)

// denied reports whether err is Nomad's ACL refusal (not a "not found").
func denied(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "403") || strings.Contains(strings.ToLower(err.Error()), "permission denied"))
}

// TestUsersIsolated: two users of one cluster, each with the policy
// `jobshift nomad-acl` writes for them (drivers/nomad acl.go) and the site
// putting each user's jobs in their own namespace. Alice's job runs; with
// Bob's token nothing of hers can be read, written, forged, stopped or
// replaced, nor can Bob submit as her; her job still runs to success.
func TestUsersIsolated(t *testing.T) {
	cl := up(t)
	tokens := map[string]string{}
	for _, u := range []string{"alice", "bob"} {
		if _, err := cl.c.Namespaces().Register(&api.Namespace{Name: nomad.NamespaceFor(u)}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.c.ACLPolicies().Upsert(&api.ACLPolicy{Name: nomad.UserPolicyName(u), Rules: nomad.UserPolicy(u)}, nil); err != nil {
			t.Fatalf("policy of %s: %v", u, err)
		}
		tokens[u] = cl.token(t, nomad.UserPolicyName(u))
	}
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
	attacks := map[string]error{}
	_, _, attacks["read her secrets and ssh key"] = bob.Variables().Read(nomad.VariablePath(id), nil)
	// a list is filtered by the token's policies: empty, not refused
	if list, _, err := bob.Variables().PrefixList("", nil); err == nil && len(list) > 0 {
		t.Errorf("with bob's token, her Variables are listed: %d", len(list))
	}
	if mine, _, err := cl.c.Variables().PrefixList("", &api.QueryOptions{Namespace: ns}); err != nil || len(mine) == 0 {
		t.Errorf("her job has no Variables to protect (%v): the list check proves nothing", err)
	}
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
	for what, err := range attacks {
		if !denied(err) {
			t.Errorf("with bob's token, %s: %v (want permission denied)", what, err)
		}
	}
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
}
