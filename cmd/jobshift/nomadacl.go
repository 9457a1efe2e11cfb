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
Usage: jobshift nomad-acl -user NAME [-user NAME]... [-raw-exec] [-o DIR]
       jobshift nomad-acl -controller [-o DIR]
       jobshift nomad-acl -job ID -namespace NS [-group G]... [-o DIR]

For an operator of a shared Nomad cluster. With -user: one namespace per
user (the site config sets nomad { namespace_per_user = true }) and a
policy that grants the user's token everything jobshift needs in that
namespace and nothing else, so that no user can read, write, stop or
replace another user's jobs, secrets, ssh keys, snapshots, markers or
verdicts. The users' namespaces refuse raw_exec jobs unless -raw-exec: a
raw_exec task runs as the Nomad client's user (usually root) and reads
every allocation's files on its client, other users' secrets included, so
users' jobs run under exec or a container driver and the controller
judges them (the in-job finisher is a raw_exec task).

With -user or -controller: the namespace jobshift-system, where the
controller job runs alone (no user's policy grants anything there, so
nobody can register a job under the controller's ID and receive its
policy), and the controller's workload-identity policy.

With -job: the in-job finisher's workload-identity policy for that one
job, limited to its own verdict and markers, reading jobs and stopping
them in its namespace; with -group (the job's task groups), attached to
each group's finisher tasks only (finish, and judge in UAI groups), so
that the main task's identity, which the job's command can read, holds
none of it.

The files go to DIR (default: the current directory) with the commands
that apply them. See docs/operators.md, "Shared clusters".

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
	var groups stringList
	fs.Var(&groups, "group", "with -job: attach the finisher policy to this task `group`'s finisher tasks only (repeat for each group)")
	rawExec := fs.Bool("raw-exec", false, "with -user: let the users' jobs run under raw_exec (only where users trust each other: a raw_exec task reads every allocation's files on its client)")
	controller := fs.Bool("controller", false, "write the controller's namespace and policy (also done with -user)")
	ns := fs.String("namespace", "default", "the job's `namespace` (with -job)")
	out := fs.String("o", ".", "output `directory`")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if len(users) == 0 && *job == "" && !*controller {
		fmt.Fprintln(stderr, "jobshift nomad-acl: name -user (one or more), -controller or -job")
		return exitUsage
	}
	if *job != "" {
		if why := nomad.FinisherScope(*ns, *job); why != "" {
			fmt.Fprintf(stderr, "jobshift nomad-acl: -job %s -namespace %s: %s: the policy would reach other jobs\n", *job, *ns, why)
			return exitUsage
		}
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
		if n == nomad.ControllerNamespace {
			fmt.Fprintf(stderr, "jobshift nomad-acl: user %q would get namespace %q, the controller's: its token could register a job under the controller's ID and receive its policy\n", u, n)
			return 1
		}
		if n == "default" {
			fmt.Fprintf(stderr, "jobshift nomad-acl: user %q would get namespace \"default\", which holds every job submitted without a namespace (operators', and users' without namespace_per_user): their token would reach those\n", u)
			return 1
		}
		if other, dup := seen[n]; dup {
			fmt.Fprintf(stderr, "jobshift nomad-acl: users %q and %q get the same namespace %q: they would share everything\n", other, u, n)
			return 1
		}
		seen[n] = u
		pol := nomad.UserPolicyName(u)
		if !write(n+".namespace.hcl", nomad.UserNamespace(u, *rawExec)) || !write(pol+".policy.hcl", nomad.UserPolicy(u)) {
			return 1
		}
		fmt.Fprintf(stdout, "nomad namespace apply %s\n", filepath.Join(*out, n+".namespace.hcl"))
		fmt.Fprintf(stdout, "nomad acl policy apply %s %s\n", pol, filepath.Join(*out, pol+".policy.hcl"))
		fmt.Fprintf(stdout, "nomad acl token create -name %s -policy %s   # give its secret to %s only\n", pol, pol, u)
	}
	if (len(users) > 0 || *controller) && !writeControllerACL(*out, write, stdout) {
		return 1
	}
	if *job != "" {
		name := nomad.FinisherPolicyName(*ns, *job)
		file := filepath.Join(*out, name+".policy.hcl")
		if !write(name+".policy.hcl", nomad.FinisherPolicy(*ns, *job)) {
			return 1
		}
		if len(groups) == 0 {
			// every task of the job gets it, the main tasks included
			fmt.Fprintf(stdout, "nomad acl policy apply -namespace %s -job %s %s %s   # every task's identity holds it, the main task's too (as the in-task finisher needs); -group G: the finisher tasks' only\n", *ns, *job, name, file)
		}
		// one policy name per attachment: Nomad attaches a policy to one
		// job, group and task
		for _, g := range groups {
			for _, task := range []string{nomad.FinisherTask, nomad.JudgeTask} {
				note := ""
				if task == nomad.JudgeTask {
					note = "   # UAI groups only"
				}
				fmt.Fprintf(stdout, "nomad acl policy apply -namespace %s -job %s -group %s -task %s %s %s%s\n", *ns, *job, g, task, nomad.FinisherPolicyName(*ns, *job, g, task), file, note)
			}
		}
	}
	return 0
}

// writeControllerACL writes the controller's namespace and policy and
// prints the commands that apply them and run the controller there.
func writeControllerACL(dir string, write func(name, text string) bool, stdout io.Writer) bool {
	ns, pol := nomad.ControllerNamespace+".namespace.hcl", nomad.ControllerJobID+".policy.hcl"
	if !write(ns, nomad.ControllerNamespaceSpec()) || !write(pol, nomad.ControllerPolicy()) {
		return false
	}
	fmt.Fprintf(stdout, "nomad namespace apply %s   # the controller's alone: grant no user anything in it\n", filepath.Join(dir, ns))
	fmt.Fprintf(stdout, "nomad acl policy apply -namespace %s -job %s %s %s\n", nomad.ControllerNamespace, nomad.ControllerJobID, nomad.ControllerPolicyName, filepath.Join(dir, pol))
	fmt.Fprintf(stdout, "nomad job run -var jobshift=/usr/local/bin/jobshift docs/nomad/jobshift-controller.nomad.hcl   # namespace %s\n", nomad.ControllerNamespace)
	return true
}
