package slurm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTopologyPrologue runs the batch script's topology prologue
// (js_nodes_ask, js_topology, js_addresses, js_ports, js_contract_inputs) under dash and
// bash on a packed and a het allocation, scontrol faked by a function (a
// node without NodeAddr keeps its name), and checks every task's node
// (hosts.R, the nodes.sh a task checks itself against), address and ports
// against values worked out by hand.
func TestTopologyPrologue(t *testing.T) {
	const scontrol = `scontrol() {
	printf '%s' "$4" >"$_jsh_adir/asked"
	printf 'NodeName=n01 Arch=x NodeAddr=10.0.0.1 NodeHostName=h1\nNodeName=n02 NodeAddr=10.0.0.2 NodeHostName=h2\nNodeName=m3 Arch=x\n'
}
SLURM_JOB_ID=7
`
	data := `_jsh_nroles=2 _jsh_n_0=2 _jsh_n_1=3 _jsh_np_0=2 _jsh_np_1=1 _jsh_ports_0='w:0:1 w:1:1' _jsh_ports_1='w:0:1 f:10001:2'
_jsh_address=nodeaddr _jsh_one_per_node=0 _jsh_pbase=20000 _jsh_pspan=7 _jsh_pslots=10
`
	want := map[string]string{
		"hosts.0": "n01\nn01\n",
		"hosts.1": "n02\nn02\nm3\n",
		"topology": `JS_NROLES=2
JS_R0_N=2
JS_R0_ADDR_0=10.0.0.1
JS_R0_PORT_0_0=20049
JS_R0_PORT_1_0=20050
JS_R0_ADDR_1=10.0.0.1
JS_R0_PORT_0_1=20051
JS_R0_PORT_1_1=20052
JS_R1_N=3
JS_R1_ADDR_0=10.0.0.2
JS_R1_PORT_0_0=20053
JS_R1_PORT_1_0=10001,10002
JS_R1_ADDR_1=10.0.0.2
JS_R1_PORT_0_1=20054
JS_R1_PORT_1_1=10001,10002
JS_R1_ADDR_2=m3
JS_R1_PORT_0_2=20055
JS_R1_PORT_1_2=10001,10002
`,
	}
	// the nodes js_nodes_ask asks scontrol about: the allocation's
	asked := map[string]string{"packed": "n[01-02],m3", "het": "n01,n02,m3"}
	layouts := map[string]string{
		"packed": `_jsh_layout=packed SLURM_JOB_NODELIST='n[01-02],m3' SLURM_TASKS_PER_NODE='2(x2),1'`,
		"het": `_jsh_layout=het SLURM_JOB_NODELIST_HET_GROUP_0='n01' SLURM_TASKS_PER_NODE_HET_GROUP_0=2
SLURM_JOB_NODELIST_HET_GROUP_1='n02,m3' SLURM_TASKS_PER_NODE_HET_GROUP_1='2,1'`,
	}
	for name, layout := range layouts {
		for _, sh := range shells {
			dir := t.TempDir()
			script := scontrol + data + layout + "\n_jsh_adir=" + dir + `
set -u
js_nodes_ask
js_topology
js_addresses
js_ports
js_contract_inputs >"$_jsh_adir/topology"
. "$_jsh_adir/nodes.sh"
for t in 0.0 0.1 1.0 1.1 1.2; do _k_want=; _jsh_want_${t%.*} "${t#*.}"; printf '%s ' "$_k_want"; done
`
			out, code := runSh(t, sh, shHostlist+shDecide+shBatch, script)
			if code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", name, sh, code, out)
			}
			if got := lines(out); len(got) == 0 || got[len(got)-1] != "n01 n01 n02 n02 m3 " {
				t.Errorf("%s %s: nodes.sh gives %q, want the tasks' nodes", name, sh, out)
			}
			for f, w := range want {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(w, string(b)); diff != "" {
					t.Errorf("%s %s: %s (-want +got):\n%s", name, sh, f, diff)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "asked")); string(b) != asked[name] {
				t.Errorf("%s %s: scontrol show node asked about %q, want %q", name, sh, b, asked[name])
			}
			if strings.Contains(out, "warning") {
				t.Errorf("%s %s: %s", name, sh, out)
			}
		}
	}
}
