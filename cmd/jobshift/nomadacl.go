package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/freshfile"
)

func init() {
	register("nomad-acl", "Write the Nomad namespaces and ACL policies that keep each user's jobs to that user", runNomadACL)
}

const nomadACLHelp = `
Usage: jobshift nomad-acl -user NAME [-user NAME]... [-o DIR]
       jobshift nomad-acl -job ID -namespace NS [-o DIR]

For an operator of a shared Nomad cluster. With -user: one namespace per
user (the site config sets nomad { namespace_per_user = true }) and a
policy that grants the user's token everything jobshift needs in that
namespace and nothing else, so that no user can read, write, stop or
replace another user's jobs, secrets, ssh keys, snapshots, markers or
verdicts. With -job: the in-job finisher's workload-identity policy for
that one job, limited to its own verdict and markers. The files go to DIR
(default: the current directory) with the commands that apply them. See
docs/operators.md, "Shared clusters".

Example:
  jobshift nomad-acl -user alice -user bob -o acl/
`

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runNomadACL(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("nomad-acl", nomadACLHelp, stderr)
	var users stringList
	fs.Var(&users, "user", "a user `name` (repeat for several)")
	job := fs.String("job", "", "a job `ID`: write its finisher's policy")
	ns := fs.String("namespace", "default", "the job's `namespace` (with -job)")
	out := fs.String("o", ".", "output `directory`")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if len(users) == 0 && *job == "" {
		fmt.Fprintln(stderr, "jobshift nomad-acl: name -user (one or more) or -job")
		return exitUsage
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-acl: %v\n", err)
		return 1
	}
	write := func(name, text string) bool {
		if err := freshfile.Write(filepath.Join(*out, name), []byte(text), 0o644); err != nil {
			fmt.Fprintf(stderr, "jobshift nomad-acl: %v\n", err)
			return false
		}
		return true
	}
	seen := map[string]string{}
	for _, u := range users {
		n := nomad.NamespaceFor(u)
		if other, dup := seen[n]; dup {
			fmt.Fprintf(stderr, "jobshift nomad-acl: users %q and %q get the same namespace %q: they would share everything\n", other, u, n)
			return 1
		}
		seen[n] = u
		pol := nomad.UserPolicyName(u)
		if !write(n+".namespace.hcl", nomad.UserNamespace(u)) || !write(pol+".policy.hcl", nomad.UserPolicy(u)) {
			return 1
		}
		fmt.Fprintf(stdout, "nomad namespace apply %s\n", filepath.Join(*out, n+".namespace.hcl"))
		fmt.Fprintf(stdout, "nomad acl policy apply %s %s\n", pol, filepath.Join(*out, pol+".policy.hcl"))
		fmt.Fprintf(stdout, "nomad acl token create -name %s -policy %s   # give its secret to %s only\n", pol, pol, u)
	}
	if *job != "" {
		name := "jobshift-finisher-" + strings.ReplaceAll(*job, "~", "-")
		if !write(name+".policy.hcl", nomad.FinisherPolicy(*ns, *job)) {
			return 1
		}
		fmt.Fprintf(stdout, "nomad acl policy apply -namespace %s -job %s %s %s\n", *ns, *job, name, filepath.Join(*out, name+".policy.hcl"))
	}
	return 0
}
