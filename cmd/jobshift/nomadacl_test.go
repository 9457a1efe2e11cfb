package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
)

// nomad-acl puts the controller in a namespace of its own: it writes that
// namespace and the controller's policy, prints the policy's attachment to
// the controller's job ID there, and refuses a user whose namespace would
// be the controller's (their token could register a job under its ID) or
// the default one (which holds every job submitted without a namespace).
func TestNomadACLController(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	out, errs, code := runQuiet("nomad-acl", "-user", "alice", "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	want := "nomad acl policy apply -namespace " + nomad.ControllerNamespace + " -job " + nomad.ControllerJobID + " "
	if !strings.Contains(out, want) || !strings.Contains(out, "nomad namespace apply "+filepath.Join(dir, nomad.ControllerNamespace+".namespace.hcl")) {
		t.Errorf("the commands do not put the controller in its namespace:\n%s", out)
	}
	for _, f := range []string{nomad.ControllerNamespace + ".namespace.hcl", nomad.ControllerJobID + ".policy.hcl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	user, err := os.ReadFile(filepath.Join(dir, nomad.UserPolicyName("alice")+".policy.hcl"))
	if err != nil || strings.Contains(string(user), nomad.ControllerNamespace) {
		t.Errorf("alice's policy names the controller's namespace (%v):\n%s", err, user)
	}
	_, errs, code = runQuiet("nomad-acl", "-user", "alice", "-user", nomad.ControllerNamespace, "-o", t.TempDir())
	if code == exitOK || !strings.Contains(errs, "the controller's") {
		t.Errorf("a user named like the controller's namespace: exit %d\n%s", code, errs)
	}
	_, errs, code = runQuiet("nomad-acl", "-user", "alice", "-user", "default", "-o", t.TempDir())
	if code == exitOK || !strings.Contains(errs, `namespace "default"`) {
		t.Errorf("a user named default (the namespace of every job submitted without one): exit %d\n%s", code, errs)
	}
	if _, errs, code = runQuiet("nomad-acl", "-controller", "-o", t.TempDir()); code != exitOK {
		t.Errorf("-controller alone: exit %d\n%s", code, errs)
	}
}

// With -group, the finisher policy is attached to each group's finisher
// tasks only, never job-wide (where the main task's identity, which the
// job's command reads, would hold it too); a namespace or job ID with a
// glob gets no policy (it would reach other jobs).
func TestNomadACLFinisherPerTask(t *testing.T) {
	isolate(t)
	out, errs, code := runQuiet("nomad-acl", "-job", "alice~mnist", "-namespace", "alice", "-group", "worker", "-group", "ps", "-o", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 attachments (2 groups × finish, judge), got:\n%s", out)
	}
	for _, l := range lines {
		if !strings.Contains(l, " -job alice~mnist -group ") || !(strings.Contains(l, " -task "+nomad.FinisherTask+" ") || strings.Contains(l, " -task "+nomad.JudgeTask+" ")) {
			t.Errorf("not attached to a finisher task: %s", l)
		}
	}
	out, _, _ = runQuiet("nomad-acl", "-job", "alice~mnist", "-namespace", "alice", "-o", t.TempDir())
	if strings.Contains(out, " -task ") || !strings.Contains(out, " -job alice~mnist ") {
		t.Errorf("without -group: %s", out)
	}
	for _, args := range [][]string{{"-job", "alice~*", "-namespace", "alice"}, {"-job", "alice~mnist", "-namespace", "*"}} {
		dir := t.TempDir()
		if _, errs, code := runQuiet(append([]string{"nomad-acl", "-o", dir}, args...)...); code == exitOK || !strings.Contains(errs, "would reach other jobs") {
			t.Errorf("%q: exit %d\n%s", args, code, errs)
		}
		if files, _ := os.ReadDir(dir); len(files) > 0 {
			t.Errorf("%q: wrote %d files", args, len(files))
		}
	}
}

// A user's namespace refuses raw_exec jobs (whose tasks run as the client
// agent's user and read every allocation's files) unless -raw-exec.
func TestNomadACLNoRawExec(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want bool
	}{{nil, true}, {[]string{"-raw-exec"}, false}} {
		dir := t.TempDir()
		if _, errs, code := runQuiet(append([]string{"nomad-acl", "-user", "alice", "-o", dir}, c.args...)...); code != exitOK {
			t.Fatalf("%q: exit %d\n%s", c.args, code, errs)
		}
		ns, err := os.ReadFile(filepath.Join(dir, nomad.NamespaceFor("alice")+".namespace.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(ns), `disabled_task_drivers = ["raw_exec"]`); got != c.want {
			t.Errorf("%q: raw_exec disabled %v, want %v:\n%s", c.args, got, c.want, ns)
		}
	}
}
