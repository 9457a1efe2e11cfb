package intask

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// TestWriteView: nomad-env writes the wrapper's script, the spec with the
// task's index, address and task directory in place of the placeholders,
// and the role's platform files with their modes; the address is the
// port's variable, else the snapshot's; a restart writes them again over
// a read-only file.
func TestWriteView(t *testing.T) {
	dir := t.TempDir()
	sent := &Env{Role: "worker", Job: &jobs.Job{Roles: []*jobs.Role{{Name: "ps"}, {Name: "worker"}}},
		View: &View{AddrVar: "NOMAD_IP_SynPort", Files: []ViewFile{{Content: "w-0\nw-1\n", Mode: 0o440}},
			Spec: "mode\tauto\nscratch\t/@T@/jobshift-taskns.d\nhostname\tw-@I@\nhost\t@A@\tw-@I@\n" +
				"bind\tro\t/@T@/jobshift-files/0\t/etc/volcano/worker.host\nnetns\tu~tf/@N@\t198.18.0.0/15\naddr\t@A@\n"}}
	// as the task gets it: through the payload
	enc, err := sent.Encode()
	if err != nil {
		t.Fatal(err)
	}
	te, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	topo := contract.Topology{Roles: []contract.RoleTopology{{Name: "ps", Tasks: []contract.TaskTopology{{Addr: "10.0.0.9"}}},
		{Name: "worker", Tasks: []contract.TaskTopology{{Addr: "10.0.0.1"}, {Addr: "10.0.0.2"}}}}}
	read := func(name string) (string, os.FileMode) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(dir, name))
		return string(b), fi.Mode().Perm()
	}
	t.Setenv("NOMAD_META_jobshift_attempt", "")
	if err := te.writeView(topo, 1, dir, ""); err == nil {
		t.Error("a task network and no attempt in meta: want an error")
	}
	t.Setenv("NOMAD_META_jobshift_attempt", "3")
	for _, tc := range []struct{ addrVar, addr string }{{"192.168.1.7", "192.168.1.7"}, {"", "10.0.0.2"}} {
		t.Setenv("NOMAD_IP_SynPort", tc.addrVar)
		if err := te.writeView(topo, 1, dir, ""); err != nil {
			t.Fatal(err)
		}
		want := "mode\tauto\nscratch\t" + dir + "/jobshift-taskns.d\nhostname\tw-1\nhost\t" + tc.addr + "\tw-1\n" +
			"bind\tro\t" + dir + "/jobshift-files/0\t/etc/volcano/worker.host\nnetns\tu~tf/3\t198.18.0.0/15\naddr\t" + tc.addr + "\n"
		if got, _ := read("jobshift-taskns.spec"); got != want {
			t.Errorf("spec:\n%s\nwant:\n%s", got, want)
		}
		if got, _ := read("jobshift-taskns.sh"); got != taskns.Script {
			t.Error("the script is not taskns.Script")
		}
		if got, mode := read("jobshift-files/0"); got != "w-0\nw-1\n" || mode != 0o440 {
			t.Errorf("platform file %q mode %o", got, mode)
		}
	}
	te.Role = "launcher"
	if err := te.writeView(contract.Topology{}, 0, dir, ""); err == nil {
		t.Error("no address anywhere: want an error")
	}
}

// TestExecViewOnlyTheWrapper: nomad-env makes the namespaces or the view
// only for the wrapper and the spec of the view it wrote: another command
// would run in namespaces no wrapper fills, told by the wrapper's
// variables that it is inside, and another spec is not nomad-env's to
// read.
func TestExecViewOnlyTheWrapper(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, ViewScriptFile)
	// a spec the task view would take at once (no namespace), not nomad-env's
	other := filepath.Join(t.TempDir(), ViewSpecFile)
	if err := os.WriteFile(other, []byte("mode\tnone\nscratch\t"+t.TempDir()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"sh", filepath.Join(t.TempDir(), ViewScriptFile), "spec", "--", "true"},
		{"sh", script, other, "--", "false"},
		{"bash", script, "spec", "--", "true"},
		{"sh", script, "spec", "true"},
		{"sh", script},
		{"true"},
	} {
		if err := execView(dir, "/bin/sh", argv, []string{"PATH=/usr/bin:/bin"}); !errors.Is(err, taskns.ErrNotEntered) {
			t.Errorf("%q: %v, want ErrNotEntered", argv, err)
		}
	}
}
