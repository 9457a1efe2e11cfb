package slurm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
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
	// with _jsh_nodein 1 (a contract that names the tasks' nodes), each
	// task's node and its address follow its own address
	wantNodes := `JS_NROLES=2
JS_R0_N=2
JS_R0_ADDR_0=10.0.0.1
JS_R0_NODE_0=n01
JS_R0_HOSTIP_0=10.0.0.1
JS_R0_PORT_0_0=20049
JS_R0_PORT_1_0=20050
JS_R0_ADDR_1=10.0.0.1
JS_R0_NODE_1=n01
JS_R0_HOSTIP_1=10.0.0.1
JS_R0_PORT_0_1=20051
JS_R0_PORT_1_1=20052
JS_R1_N=3
JS_R1_ADDR_0=10.0.0.2
JS_R1_NODE_0=n02
JS_R1_HOSTIP_0=10.0.0.2
JS_R1_PORT_0_0=20053
JS_R1_PORT_1_0=10001,10002
JS_R1_ADDR_1=10.0.0.2
JS_R1_NODE_1=n02
JS_R1_HOSTIP_1=10.0.0.2
JS_R1_PORT_0_1=20054
JS_R1_PORT_1_1=10001,10002
JS_R1_ADDR_2=m3
JS_R1_NODE_2=m3
JS_R1_HOSTIP_2=m3
JS_R1_PORT_0_2=20055
JS_R1_PORT_1_2=10001,10002
`
	// the nodes js_nodes_ask asks scontrol about: the allocation's
	asked := map[string]string{"packed": "n[01-02],m3", "het": "n01,n02,m3"}
	layouts := map[string]string{
		"packed": `_jsh_layout=packed SLURM_JOB_NODELIST='n[01-02],m3' SLURM_TASKS_PER_NODE='2(x2),1'`,
		"het": `_jsh_layout=het SLURM_JOB_NODELIST_HET_GROUP_0='n01' SLURM_TASKS_PER_NODE_HET_GROUP_0=2
SLURM_JOB_NODELIST_HET_GROUP_1='n02,m3' SLURM_TASKS_PER_NODE_HET_GROUP_1='2,1'`,
	}
	for name, layout := range layouts {
		for _, sh := range shells {
			for _, nodein := range []bool{false, true} {
				key, want, name := name, want, name
				extra := ""
				if nodein {
					want, name = map[string]string{"topology": wantNodes}, name+" nodein"
					extra = "_jsh_nodein=1\n"
				}
				dir := t.TempDir()
				script := scontrol + data + extra + layout + "\n_jsh_adir=" + dir + `
set -u
js_nodes_ask
js_topology
js_addresses
js_ports
js_contract_inputs >"$_jsh_adir/topology"
. "$_jsh_adir/nodes.sh"
for t in 0.0 0.1 0.2 1.0 1.1 1.2 1.3; do _k_want=; _jsh_want_${t%.*} "${t#*.}"; printf '%s ' "$_k_want"; done
`
				out, code := runSh(t, sh, shHostlist+shDecide+shBatch, script)
				if code != 0 {
					t.Fatalf("%s %s: exit %d\n%s", name, sh, code, out)
				}
				if got := lines(out); len(got) == 0 || got[len(got)-1] != "n01 n01  n02 n02 m3  " {
					t.Errorf("%s %s: nodes.sh gives %q, want the tasks' nodes and none beyond a role", name, sh, out)
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
				if b, _ := os.ReadFile(filepath.Join(dir, "asked")); string(b) != asked[key] {
					t.Errorf("%s %s: scontrol show node asked about %q, want %q", name, sh, b, asked[key])
				}
				if strings.Contains(out, "warning") {
					t.Errorf("%s %s: %s", name, sh, out)
				}
			}
		}
	}
}

// TestStepsBeforePreparation runs a rendered batch script with srun,
// scontrol and apptainer faked on PATH, and a node address that the
// contract's shared stage refuses: the steps start before the addresses
// and the shared stage (js_main), unless srun needs what the preparation
// makes (a pulled image); either way a failure there ends the attempt with
// 97 and no env.ok, so no task ever gets its environment.
func TestStepsBeforePreparation(t *testing.T) {
	cases := map[string]struct {
		job       *jobs.Job
		site      *siteconfig.SlurmConfig
		wantSteps bool
		wantLog   string
	}{
		"steps first": {job: paiJob(), site: &siteconfig.SlurmConfig{Layout: "packed"}, wantSteps: true,
			wantLog: "the contract's shared stage failed"},
		"an image to pull first": {job: tfJob(), site: &siteconfig.SlurmConfig{Layout: "packed", Container: "apptainer"},
			wantLog: "apptainer pull failed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sc, err := render(&translate.Plan{Job: tc.job, User: "alice", Site: &siteconfig.Config{Slurm: tc.site}})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			lib, _ := libraryName(sc.Library)
			files := map[string]string{
				"job.sbatch": sc.Text,
				lib:          sc.Library,
				"bin/srun":   "#!/bin/sh\necho \"$@\" >>\"$FAKE_LOG\"\n",
				// the ; is no address: the shared stage refuses it
				"bin/scontrol":  "#!/bin/sh\nprintf 'NodeName=n1 NodeAddr=10.0.0.1;x\\n'\n",
				"bin/apptainer": "#!/bin/sh\nexit 1\n",
			}
			os.MkdirAll(bin, 0o755)
			for f, text := range files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			n := 0
			for _, r := range tc.job.Roles {
				n += r.Instances
			}
			cmd := exec.Command("/bin/sh", filepath.Join(dir, "job.sbatch"))
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_LOG="+filepath.Join(dir, "srun.log"),
				"SLURM_SUBMIT_DIR="+dir, "JOBSHIFT_STATE_DIR="+filepath.Join(dir, "state"), "JOBSHIFT_SLURM_LIB=",
				"SLURM_JOB_ID=7", "SLURM_JOB_NODELIST=n1", fmt.Sprintf("SLURM_TASKS_PER_NODE=%d", n), "SLURM_RESTART_COUNT=")
			out, err := cmd.CombinedOutput()
			if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 97 || !strings.Contains(string(out), tc.wantLog) {
				t.Fatalf("the script ended with %v, want exit 97 and %q:\n%s", err, tc.wantLog, out)
			}
			_, err = os.Stat(filepath.Join(dir, "srun.log"))
			if started := err == nil; started != tc.wantSteps {
				t.Errorf("steps started: %v, want %v", started, tc.wantSteps)
			}
			if _, err := os.Stat(filepath.Join(dir, "state", "7", "attempt-1", "env.ok")); err == nil {
				t.Error("env.ok written, yet the attempt's preparation failed")
			}
		})
	}
}

// TestAssignRuns: nodes.sh tests runs of consecutive tasks on one node,
// whatever the order of the slots (a spread role alternates nodes), and
// gives nothing to an index beyond the role.
func TestAssignRuns(t *testing.T) {
	cases := map[string]struct{ slots, want string }{
		"one node":      {"a a a a", "a a a a  "},
		"alternating":   {"a b a b", "a b a b  "},
		"blocks":        {"a a b c c", "a a b c c "},
		"zero-padded":   {"n01 n01 n10", "n01 n01 n10   "},
		"a single task": {"x", "x     "},
	}
	for name, tc := range cases {
		for _, sh := range shells {
			dir := t.TempDir()
			n := len(strings.Fields(tc.slots)) // the role's size
			script := fmt.Sprintf(`_jsh_adir=%s _jsh_n_0=%d
slots=$(printf '%%s\n' %s)
js_assign 0 0 "$slots" || exit 3
. "$_jsh_adir/nodes.sh"
for i in 0 1 2 3 4; do _k_want=; _jsh_want_0 "$i"; printf '%%s ' "$_k_want"; done
`, dir, n, tc.slots)
			out, code := runSh(t, sh, shHostlist+shDecide+shBatch, script)
			if code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", name, sh, code, out)
			}
			if got := lines(out); len(got) == 0 || got[len(got)-1] != tc.want {
				t.Errorf("%s %s: nodes.sh gives %q, want %q", name, sh, out, tc.want)
			}
		}
	}
}
