package nomad

import (
	"fmt"
	"os"
	"regexp"
	"strings"
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
	want := []string{"jobshift/results/alice~job", "jobshift/results/alice~job/ended/*"}
	if len(paths) != 2 || paths[0] != want[0] || paths[1] != want[1] {
		t.Errorf("finisher paths %v, want %v", paths, want)
	}
}

// The controller runs in a namespace of its own that no user's policy
// names, the shipped jobspec puts it there under the ID its policy is
// attached to, and the shipped policy grants what the generated one does.
func TestControllerOwnNamespace(t *testing.T) {
	for _, u := range []string{"alice", "bob", "default"} {
		if nss, _ := namespacesOf(t, UserPolicy(u)); len(nss) != 1 || nss[0] == ControllerNamespace {
			t.Errorf("%s's policy grants %v", u, nss)
		}
	}
	src, err := os.ReadFile("../../docs/nomad/jobshift-controller.nomad.hcl")
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(src, "jobshift-controller.nomad.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var id, ns string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "job" {
			id = b.Labels[0]
			if a := b.Body.Attributes["namespace"]; a != nil {
				v, _ := a.Expr.Value(nil)
				ns = v.AsString()
			}
		}
	}
	if id != ControllerJobID || ns != ControllerNamespace {
		t.Errorf("the shipped controller jobspec runs job %q in namespace %q, want %q in %q", id, ns, ControllerJobID, ControllerNamespace)
	}
	if ControllerPlacement(ns, id) != "" || ControllerPlacement("default", id) == "" {
		t.Error("ControllerPlacement accepts the wrong namespace or refuses the right one")
	}
	shipped, err := os.ReadFile("../../docs/nomad/jobshift-controller.policy.hcl")
	if err != nil {
		t.Fatal(err)
	}
	wantNS, wantPaths := namespacesOf(t, ControllerPolicy())
	gotNS, gotPaths := namespacesOf(t, string(shipped))
	if fmt.Sprint(wantNS, wantPaths) != fmt.Sprint(gotNS, gotPaths) {
		t.Errorf("shipped controller policy grants %v %v, generated %v %v", gotNS, gotPaths, wantNS, wantPaths)
	}
}

// capabilitiesOf returns the namespace capabilities a policy grants.
func capabilitiesOf(t *testing.T, text string) []string {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(text), "policy.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags, text)
	}
	var caps []string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if a := b.Body.Attributes["capabilities"]; a != nil {
			v, d := a.Expr.Value(nil)
			if d.HasErrors() {
				t.Fatal(d)
			}
			for _, c := range v.AsValueSlice() {
				caps = append(caps, c.AsString())
			}
		}
	}
	return caps
}

// The finisher reads its job and allocations and stops its job: it may
// neither register (replace) a job of its namespace nor stop or signal
// an allocation, which submit-job and alloc-lifecycle would let it; and
// no namespace or job ID with a glob gets a policy.
func TestFinisherPolicyNarrow(t *testing.T) {
	caps := capabilitiesOf(t, FinisherPolicy("alice", "alice~job"))
	want := []string{"read-job", "deregister-job"}
	if fmt.Sprint(caps) != fmt.Sprint(want) {
		t.Errorf("finisher capabilities %v, want %v", caps, want)
	}
	for _, c := range [][2]string{{"*", "alice~job"}, {"al*", "alice~job"}, {"alice", "*"}, {"alice", "alice~*"}, {"alice", ""}, {"alice", "a b"}} {
		if FinisherScope(c[0], c[1]) == "" {
			t.Errorf("namespace %q job %q: accepted", c[0], c[1])
		}
	}
	if why := FinisherScope("alice", "alice~job"); why != "" {
		t.Errorf("alice~job refused: %s", why)
	}
}

// Policy names are global in Nomad: the finisher policies of one job ID
// in two namespaces, or of IDs alike once made name-safe, are distinct
// names (one apply would otherwise move the other's attachment), and every
// name is one Nomad accepts.
func TestFinisherPolicyNames(t *testing.T) {
	long := strings.Repeat("x", 120)
	names := []string{
		FinisherPolicyName("alice", "acl-wi"), FinisherPolicyName("bob", "acl-wi"),
		FinisherPolicyName("alice", "a~b"), FinisherPolicyName("alice", "a-b"),
		FinisherPolicyName("alice", "a~b", "g", "finish"), FinisherPolicyName("alice", "a~b", "g", "judge"),
		FinisherPolicyName("alice", long), FinisherPolicyName("alice", long+"y"),
	}
	seen := map[string]bool{}
	for _, n := range names {
		if !regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`).MatchString(n) {
			t.Errorf("%q is no Nomad policy name", n)
		}
		if seen[n] {
			t.Errorf("%q named twice", n)
		}
		seen[n] = true
	}
}
