package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/taskns"
)

// TestCheckHosts: a job whose tasks give their peers a port of their own
// (js_check_hosts) runs as it is on separate hosts; with every task at one
// address each gets a network of its own there (JS_NETNS in the topology)
// as root, and is refused without root, or when its tasks are on several
// hosts some of which share one, saying why (exit 97).
func TestCheckHosts(t *testing.T) {
	for _, tc := range []struct {
		name, addrs, uid string
		code             int
		netns            bool
		says             string
	}{
		{"separate hosts", "10.0.0.1 10.0.0.2 10.0.0.3", "1000", 0, false, ""},
		{"one host, root", "10.0.0.1 10.0.0.1 10.0.0.1", "0", 0, true, "each gets a network of its own there"},
		{"one host, not root", "10.0.0.1 10.0.0.1 10.0.0.1", "1000", 97, false, "which only root can give"},
		{"mixed", "10.0.0.1 10.0.0.1 10.0.0.2", "0", 97, false, "and others elsewhere"},
	} {
		for _, sh := range shells {
			adir := t.TempDir()
			topo := "JS_NROLES=1\nJS_R0_N=3\n"
			for i, a := range strings.Fields(tc.addrs) {
				topo += "JS_R0_ADDR_" + string(rune('0'+i)) + "=" + a + "\n"
			}
			mustOK(t, os.WriteFile(filepath.Join(adir, "topology"), []byte(topo), 0o644))
			script := "id() { echo " + tc.uid + "; }\n_jsh_adir='" + adir + "' _jsh_netrange=" + taskns.DefaultNetRange + "\njs_check_hosts\n"
			out, code := runSh(t, sh, shBatch, script)
			got, _ := os.ReadFile(filepath.Join(adir, "topology"))
			if code != tc.code || strings.Contains(string(got), "JS_NETNS="+taskns.DefaultNetRange+"\n") != tc.netns || !strings.Contains(out, tc.says) {
				t.Errorf("%s, %s: exit %d (want %d), topology %q, said %q (want %q)", tc.name, sh, code, tc.code, got, out, tc.says)
			}
		}
	}
}

// TestNetnsInView: with JS_NETNS in the topology, a task's view is its own
// network: eth0 at the range's address of its position among the job's
// tasks, every task's names at theirs.
func TestNetnsInView(t *testing.T) {
	if os.Getuid() != 0 || exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "true").Run() != nil {
		t.Skip("needs root and mount namespaces")
	}
	data := "_t_ns_0=1 _t_nsname_0='j-a-@I@ j-a-@I@.j' _t_nspeers_0=1\n_t_ns_1=1 _t_nsname_1='j-b-@I@ j-b-@I@.j' _t_nspeers_1=1\n"
	topo := "JS_NROLES=2\nJS_R0_N=1\nJS_R0_ADDR_0=10.244.0.1\nJS_R1_N=2\nJS_R1_ADDR_0=10.244.0.1\nJS_R1_ADDR_1=10.244.0.1\nJS_NETNS=" + taskns.DefaultNetRange + "\n"
	for _, sh := range shells {
		adir := filepath.Join(t.TempDir(), "attempt-0")
		mustOK(t, os.Mkdir(adir, 0o700))
		mustOK(t, os.WriteFile(filepath.Join(adir, "taskns.sh"), []byte(taskns.Script), 0o644))
		mustOK(t, os.WriteFile(filepath.Join(adir, "topology"), []byte(topo), 0o644))
		script := data + "_jsh_sd='" + adir + "' _jsh_r=1 SLURM_PROCID=1\n" +
			`js_exec_view sh -c 'grep "j-" /etc/hosts; ip -o -4 addr show eth0 | while read -r _ d _ a _; do echo "$d $a"; done'`
		out, code := runSh(t, sh, shRun, script)
		want := "198.18.0.1\tj-a-0 j-a-0.j\n198.18.0.2\tj-b-0 j-b-0.j\n198.18.0.3\tj-b-1 j-b-1.j\neth0 198.18.0.3/15\n"
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
	}
}
