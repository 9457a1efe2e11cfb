package nomad

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// namespacesOf parses a policy and returns the labels of its namespace
// blocks and the Variables paths granted in them.
func namespacesOf(t *testing.T, text string) (nss, paths []string) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(text), "policy.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags, text)
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "namespace" {
			t.Fatalf("block %s outside a namespace", b.Type)
		}
		nss = append(nss, b.Labels[0])
		for _, v := range b.Body.Blocks {
			for _, p := range v.Body.Blocks {
				paths = append(paths, p.Labels[0])
			}
		}
	}
	return nss, paths
}

// A user's policy grants one namespace, the user's own, which no other
// user gets; the finisher's grants only its job's result paths.
func TestACLPolicies(t *testing.T) {
	users := []string{"alice", "bob", "Bob.Smith", "a/b"}
	owner := map[string]string{}
	for _, u := range users {
		nss, _ := namespacesOf(t, UserPolicy(u))
		if len(nss) != 1 || nss[0] != NamespaceFor(u) || nss[0] == "*" || nss[0] == "default" {
			t.Errorf("%s: namespaces %v, want only %q", u, nss, NamespaceFor(u))
		}
		if o, dup := owner[nss[0]]; dup {
			t.Errorf("%s and %s share namespace %s", o, u, nss[0])
		}
		owner[nss[0]] = u
	}
	nss, paths := namespacesOf(t, FinisherPolicy("alice", "alice~job"))
	if len(nss) != 1 || nss[0] != "alice" {
		t.Errorf("finisher namespaces %v", nss)
	}
	want := []string{"jobshift/results/alice~job", "jobshift/results/alice~job/*"}
	if len(paths) != 2 || paths[0] != want[0] || paths[1] != want[1] {
		t.Errorf("finisher paths %v, want %v", paths, want)
	}
}
