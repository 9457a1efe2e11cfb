package slurm

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// paiPorts are the ports the PAI readers give every role.
var paiPorts = []jobs.Port{{Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}}

func paiJob() *jobs.Job {
	return &jobs.Job{Name: "ps-worker", Source: jobs.Source{Format: jobs.FormatPAIv2, Path: "job.yaml"},
		Contracts: []string{jobs.ContractPAI}, Completion: jobs.Completion{Kind: jobs.CompletionPAI}, Retry: jobs.Retry{JobRetryCount: 2},
		Roles: []*jobs.Role{
			{Name: "ps", Instances: 2, MinFailed: intp(1), MinSucceeded: intp(-1),
				Resources: jobs.Resources{CPUMilli: 2000, MemoryMiB: 4096},
				Ports:     append([]jobs.Port{{Label: "grpc", Count: 2}}, paiPorts...),
				Command:   jobs.Command{Kind: jobs.CommandBashScript, Script: "python ps.py --port $PAI_CONTAINER_HOST_grpc_PORT_LIST"},
				Env:       []jobs.EnvVar{{Name: "MODE", Value: "it's \"ps\" $HOME"}}},
			{Name: "worker", Instances: 3, MinFailed: intp(1), MinSucceeded: intp(3),
				Resources: jobs.Resources{CPUMilli: 500, MemoryMiB: 8192, GPU: 2},
				Ports:     paiPorts,
				Command:   jobs.Command{Kind: jobs.CommandBashScript, Script: "python worker.py\necho done"}},
		}}
}

func tfJob() *jobs.Job {
	deadline := int64(3600)
	argv := func(a ...string) jobs.Command { return jobs.Command{Kind: jobs.CommandArgv, Command: a} }
	port := []jobs.Port{{Label: "tfjob-port", Count: 1, Implicit: true}}
	return &jobs.Job{Name: "mnist", Source: jobs.Source{Format: jobs.FormatTFJob, Path: "tf.yaml"},
		Contracts: []string{jobs.ContractTF}, Completion: jobs.Completion{Kind: jobs.CompletionTF},
		Retry: jobs.Retry{ActiveDeadlineSeconds: &deadline},
		Roles: []*jobs.Role{
			{Name: "chief", ReplicaType: "chief", Instances: 1, Image: "nvcr.io/nvidia/tensorflow:23.10-tf2-py3", Ports: port, Command: argv("python", "train.py", "--x=a b")},
			{Name: "ps", ReplicaType: "ps", Instances: 1, Image: "nvcr.io/nvidia/tensorflow:23.10-tf2-py3", Ports: port, Command: argv("python", "train.py")},
			{Name: "worker", ReplicaType: "worker", Instances: 2, Image: "nvcr.io/nvidia/tensorflow:23.10-tf2-py3", Ports: port, Command: argv("python", "train.py")},
		}}
}

func ddpJob() *jobs.Job {
	return &jobs.Job{Name: "ddp", Source: jobs.Source{Format: jobs.FormatPAIv1, Path: "ddp.json"},
		Contracts: []string{jobs.ContractPAI, jobs.ContractPAIYarn}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{{Name: "worker", Instances: 4, MinFailed: intp(1), Resources: jobs.Resources{CPUMilli: 4000, MemoryMiB: 16384, GPU: 1, GPUType: "V100"},
			Ports:   append([]jobs.Port{{Label: "SynPort", Count: 1}}, paiPorts...),
			Command: jobs.Command{Kind: jobs.CommandEval, Script: "python train.py --rank $PAI_TASK_INDEX"}}}}
}

// leinaoJob is seed 000 as the PAI reader gives it (LeinaoPAI dialect):
// ps×2 CPU-only, worker×2 with 2 GPUs, three mapped ports per task.
func leinaoJob() *jobs.Job {
	port := []jobs.Port{{Label: contract.LeinaoLabel, Count: 3, Implicit: true}}
	cmd := func(role string) jobs.Command {
		return jobs.Command{Kind: jobs.CommandEval, Script: "python mnist_replica.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST --worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=" + role + " --task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"}
	}
	return &jobs.Job{Name: "tensorflow-distributed", Source: jobs.Source{Format: jobs.FormatPAIv1, Dialect: "leinao", Path: "leinao.json"},
		Contracts: []string{jobs.ContractLeinao}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{
			{Name: "ps", Instances: 2, MinFailed: intp(1), MinSucceeded: intp(2), Resources: jobs.Resources{CPUMilli: 2000, MemoryMiB: 8192}, Ports: port, Command: cmd("ps")},
			{Name: "worker", Instances: 2, MinFailed: intp(1), MinSucceeded: intp(2), Resources: jobs.Resources{CPUMilli: 2000, MemoryMiB: 16384, GPU: 2}, Ports: port, Command: cmd("worker")},
		}}
}

// goldenCases render each job with site settings that exercise one choice.
var goldenCases = map[string]struct {
	job  func() *jobs.Job
	site *siteconfig.Config
	opts map[string]string
	// policyVars: the golden keeps the contract's lines that set an ML
	// policy's variables (contractVarLines), the values this job gets
	policyVars bool
}{
	"pai-het":    {job: paiJob},
	"pai-packed": {job: paiJob, opts: map[string]string{"layout": "packed"}},
	// OpenPAI's default gang allocation: no task restarts alone, so both
	// roles run in the user's bash with no supervisor (_jsh_insh_R=1)
	"pai-gang": {job: func() *jobs.Job { j := paiJob(); j.Retry.GangAllocation = true; return j }, opts: map[string]string{"layout": "packed"}},
	// spread_nodes: auto picks packed, and the allocation gets --nodes=min(5 tasks, 3)
	"pai-spread":     {job: paiJob, site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{SpreadNodes: 3}}},
	"pai-gres":       {job: paiJob, site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{GPURequest: "gres", Partition: "gpu", Account: "proj", QOS: "high", TimeLimit: "2:00:00"}}},
	"tf-pyxis":       {job: tfJob, site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{Container: "pyxis", Address: "hostname", PortBase: 30000}}},
	"tf-apptainer":   {job: tfJob, site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{Container: "apptainer", Layout: "het"}}},
	"ddp-single-gpu": {job: ddpJob, site: &siteconfig.Config{GPUTypes: []siteconfig.GPUTypeRule{{Pattern: "V100", Model: "v100"}}}},
	"leinao-host":    {job: leinaoJob, site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{Layout: "het"}}},
	// MPIJob, one per generation: the ssh emulation and the MPI
	// directory named at run time (the script is the same every time)
	"mpi-v1alpha1": {job: mpiJob("v1alpha1")},
	"mpi-v1alpha2": {job: mpiJob("v1alpha2")},
	"mpi-v1":       {job: mpiJob("v1")},
	"mpi-v2beta1":  {job: mpiJob("v2beta1")},
	// the other training-operator kinds, read from the examples (MXJob:
	// the Scheduler decides, _jsh_decider)
	"xgboostjob":   {job: exampleJob("xgboostjob-iris.yaml")},
	"paddlejob":    {job: exampleJob("paddlejob-collective.yaml")},
	"jaxjob":       {job: exampleJob("jaxjob-coordinator.yaml")},
	"mxjob-packed": {job: exampleJob("mxjob-ps.yaml"), opts: map[string]string{"layout": "packed"}},
	// slurm { mpi = "pmix" }: the shim and the node table, packed layout
	"mpi-v1-pmix": {job: mpiJob("v1"), site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{MPI: MPIPMIx}}},
	// platform files: a ConfigMap's in the data, a Secret's by number
	// (its value in the secrets file), Volcano's /etc/volcano files
	"files-volumes": {job: loadJob(filepath.Join("testdata", "files-volumes.yaml"))},
	"volcano-mpi":   {job: loadJob(filepath.Join("..", "..", "examples", "volcano-mpi.yaml"))},
	// Kubeflow Trainer v2 TrainJobs, one per ML policy: torch and
	// xgboost on their built-in runtimes, mpi with the launcher as a node
	// (dependsOn node Ready), jax-distributed (built in), plain, and a
	// dataset initializer step before the trainer (dependsOn Complete)
	"trainjob-torch":       {job: loadJob(filepath.Join("..", "..", "examples", "trainjob-torch.yaml")), policyVars: true},
	"trainjob-mpi":         {job: loadJob(filepath.Join("..", "..", "examples", "trainjob-mpi.yaml")), policyVars: true},
	"trainjob-xgboost":     {job: loadJob(filepath.Join("..", "..", "examples", "trainjob-xgboost.yaml")), policyVars: true},
	"trainjob-initializer": {job: loadJob(filepath.Join("..", "..", "examples", "trainjob-initializer.yaml")), policyVars: true},
	"trainjob-jax":         {job: loadJob(filepath.Join("..", "..", "jobs", "trainer", "testdata", "trainjob-jax.yaml")), policyVars: true},
	"trainjob-plain":       {job: loadJob(filepath.Join("..", "..", "jobs", "trainer", "testdata", "trainjob-plain.yaml")), policyVars: true},
}

// mpiJob reads the MPIJob of generation gen from the reader's testdata.
func mpiJob(gen string) func() *jobs.Job {
	return func() *jobs.Job {
		path := filepath.Join("..", "..", "jobs", "kubeflow", "testdata", "mpi_"+gen+".yaml")
		src, err := os.ReadFile(path)
		if err != nil {
			panic(err) // a test fixture missing: the test cannot run
		}
		job, diags := kubeflow.Read(src, jobs.ReadOptions{Path: "mpi_" + gen + ".yaml"})
		if diags.HasErrors() {
			panic(diags.Error())
		}
		return job
	}
}

// loadJob reads path as the CLI does, whatever its format.
func loadJob(path string) func() *jobs.Job {
	return func() *jobs.Job {
		job, diags := load.Load(path, jobs.ReadOptions{})
		if diags.HasErrors() {
			panic(diags.Error()) // a test fixture missing or broken: the test cannot run
		}
		return job
	}
}

// exampleJob reads examples/<file> as the CLI does.
func exampleJob(file string) func() *jobs.Job {
	return func() *jobs.Job {
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", file))
		if err != nil {
			panic(err) // a test fixture missing: the test cannot run
		}
		job, diags := kubeflow.Read(src, jobs.ReadOptions{Path: "examples/" + file})
		if diags.HasErrors() {
			panic(diags.Error())
		}
		return job
	}
}

func renderCase(t *testing.T, name string) *script {
	t.Helper()
	c := goldenCases[name]
	site := c.site
	if site == nil {
		site = &siteconfig.Config{}
	}
	sc, err := render(&translate.Plan{Job: c.job(), User: "alice", Site: site, Options: c.opts})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return sc
}

// goldenPart is the rendered part of a script: everything before the
// embedded library, with the contract text (tested in translate/contract)
// left out.
func goldenPart(text string) string {
	head, _, _ := strings.Cut(text, "\n# ---- jobshift library")
	// the contract's two stages span lines and end the rendered part
	// (tested in translate/contract): drop them
	if i := strings.Index(head, "\n_jsh_contract_shared="); i >= 0 {
		head = head[:i+1] + "_jsh_contract_shared=<translate/contract.ShellStages: Shared>\n" +
			"_jsh_contract_task=<translate/contract.ShellStages: Task>\n"
	}
	return head
}

// contractVarLines are the lines of a script's contract stages that set
// a Kubeflow Trainer ML policy's variables (translate/contract
// trainer.go), the hosts and MPI hostfile they name, and the values the
// task stage takes from the shared one (_js_sN): a literal, a port or the
// task's index.
func contractVarLines(text string) string {
	// the shared stage prints the job-wide values for every task, and
	// the task stage's values it names (_js_sN)
	const printed, printedVal = `printf '\'' \\\n%s'\'' '\''`, `printf '\''%s\n'\'' '\''`
	i := strings.Index(text, "\n_jsh_contract_shared=")
	j := strings.Index(text, "\n# ---- jobshift library")
	if i < 0 || j < i {
		return ""
	}
	var b strings.Builder
	b.WriteString("# ---- the contract's ML policy lines (golden only)\n")
	for _, l := range strings.Split(text[i:j], "\n") {
		if l = strings.TrimPrefix(strings.TrimPrefix(l, printed), printedVal); policyVar.MatchString(l) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

var policyVar = regexp.MustCompile(`^(PET_|JAX_|DMLC_|OMPI_MCA_|JOBSHIFT_MPI_HOSTFILE=|JOBSHIFT_HOSTS=|_js_s[0-9]+=)`)

// TestRenderGolden compares the rendered part of each script with
// testdata/<case>.golden (go test -update rewrites them; the header lines
// were checked by hand against spec/slurm.md §1, §2, §6).
func TestRenderGolden(t *testing.T) {
	for name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			text := renderCase(t, name).Text
			got := goldenPart(text)
			if goldenCases[name].policyVars {
				got += contractVarLines(text)
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-golden +rendered):\n%s", path, d)
			}
		})
	}
}

// TestRenderHeaders pins the decisions the spec makes, independently of the
// golden files.
func TestRenderHeaders(t *testing.T) {
	cases := map[string]struct {
		layout string
		want   []string
	}{
		"pai-het": {LayoutHet, []string{
			"#SBATCH --requeue\n",
			"#SBATCH --ntasks=2 --cpus-per-task=2 --mem-per-cpu=2048M --gres=none --distribution=block\n#SBATCH hetjob\n#SBATCH --ntasks=3 --cpus-per-task=1 --mem-per-cpu=8192M --gpus-per-task=2 --distribution=block\n",
			"srun --kill-on-bad-exit=0 --job-name=ps --het-group=0 --ntasks=2 --cpus-per-task=2 --mem-per-cpu=2048M --gres=none --distribution=block",
			"srun --kill-on-bad-exit=0 --job-name=worker --het-group=1 --ntasks=3 --cpus-per-task=1 --mem-per-cpu=8192M --gpus-per-task=2 --distribution=block"}},
		"pai-gang": {LayoutPacked, []string{"_jsh_insh_0=1\n_jsh_argv_0=", "_jsh_insh_1=1\n_jsh_argv_1="}},
		"pai-packed": {LayoutPacked, []string{"_jsh_insh_0=0\n", "_jsh_insh_1=0\n",
			"#SBATCH --ntasks=5 --cpus-per-task=2 --mem-per-cpu=8192M --gpus-per-task=2 --distribution=block\n",
			"srun --kill-on-bad-exit=0 --job-name=ps --exact --ntasks=2 --cpus-per-task=2 --mem-per-cpu=2048M --gres=none --distribution=arbitrary",
			"srun --kill-on-bad-exit=0 --job-name=worker --exact --ntasks=3 --cpus-per-task=1 --mem-per-cpu=8192M --gpus-per-task=2 --distribution=arbitrary"}},
		"pai-gres": {LayoutHet, []string{"#SBATCH --time=2:00:00\n#SBATCH --partition=gpu\n#SBATCH --account=proj\n#SBATCH --qos=high\n",
			"--ntasks=3 --cpus-per-task=1 --mem-per-cpu=8192M --ntasks-per-node=1 --gres=gpu:2 --distribution=block"}},
		"tf-pyxis": {LayoutPacked, []string{"#SBATCH --no-requeue\n", "#SBATCH --time=63\n", "_jsh_deadline=3600\n", "_jsh_address=hostname\n",
			"_jsh_pbase=30000\n", `'\''--container-image=nvcr.io#nvidia/tensorflow:23.10-tf2-py3'\''`}},
		"tf-apptainer":   {LayoutHet, []string{"_jsh_pull_img_0=nvcr.io/nvidia/tensorflow:23.10-tf2-py3\n", "_t_ctr_0=exec\n", "_t_sif_0=nvcr.io_nvidia_tensorflow_23.10-tf2-py3.sif\n"}},
		"ddp-single-gpu": {LayoutSingle, []string{"#SBATCH --ntasks=4 --cpus-per-task=4 --mem-per-cpu=4096M --gpus-per-task=v100:1 --distribution=block\n"}},
		// LeinaoPAI in the host's network: het is overridden (components
		// may share a node), one allocation of one task per node, the
		// three ports fixed at 10001-10003 for every task
		"leinao-host": {LayoutPacked, []string{
			"#SBATCH --ntasks=4 --cpus-per-task=2 --mem-per-cpu=8192M --gpus-per-task=2 --ntasks-per-node=1 --distribution=block\n",
			"_jsh_one_per_node=1\n",
			"_jsh_ports_0=f:10001:3\n",
			"_jsh_ports_1=f:10001:3\n"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sc := renderCase(t, name)
			if sc.Layout != tc.layout {
				t.Errorf("layout %s, want %s", sc.Layout, tc.layout)
			}
			for _, w := range tc.want {
				if !strings.Contains(sc.Text, w) {
					t.Errorf("script lacks %q", w)
				}
			}
		})
	}
}

// TestShellcheck: every rendered script, the task program on its own (it is
// data inside the script, which shellcheck does not look into) and the
// embedded library pass shellcheck.
func TestShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck not installed")
	}
	dir := t.TempDir()
	var files, bashFiles []string
	for name := range goldenCases {
		sc := renderCase(t, name)
		p := filepath.Join(dir, name+".sbatch")
		os.WriteFile(p, []byte(sc.Text), 0o644)
		files = append(files, p)
		c := goldenCases[name]
		site := c.site
		if site == nil {
			site = &siteconfig.Config{}
		}
		job := c.job()
		plan := &translate.Plan{Job: job, User: "alice", Site: site, Options: c.opts}
		st, _ := resolveSettings(plan)
		var roles []roleInfo
		for k, r := range job.Roles {
			rp := plan.Compiled().Roles[k]
			roles = append(roles, roleInfo{Role: r, k: k, res: roleRes(site, r), launch: rp.Launch, ssh: rp.SSH, sshIdle: rp.SSHIdle})
		}
		task, err := taskProgram(job, roles, st)
		if err != nil {
			t.Fatal(err)
		}
		p = filepath.Join(dir, name+".task.sh")
		os.WriteFile(p, []byte("#!/bin/sh\n"+task), 0o644)
		files = append(files, p)
		insh := make([]bool, len(roles))
		for _, ri := range roles {
			insh[ri.k] = inShell(job, ri, st)
		}
		opts := plan.Compiled().ContractOn("")
		opts.MPIDirRunTime = true
		stages := shellStages(t, job, opts)
		progs, err := inShellPrograms(roles, insh, stages, contractVars(stages))
		if err != nil {
			t.Fatal(err)
		}
		for k, prog := range progs {
			if prog != "" { // bash's: its own directive names the shell
				p = filepath.Join(dir, fmt.Sprintf("%s.insh.%d.sh", name, k))
				os.WriteFile(p, []byte(prog), 0o644)
				bashFiles = append(bashFiles, p)
			}
		}
	}
	for _, f := range []string{"hostlist.sh", "decide.sh", "batch.sh", "task.sh", "mpirun.sh", "init.sh"} {
		files = append(files, filepath.Join("sh", f))
	}
	files = append(files, filepath.Join("..", "..", "translate", "completion", "restart.sh"))
	// the library files are fragments (their data comes from the script)
	args := append([]string{"-s", "sh", "-e", "SC2154,SC2034"}, files...)
	if out, err := exec.Command("shellcheck", args...).CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
	if len(bashFiles) == 0 {
		t.Fatal("no golden case runs a role in shell")
	}
	if out, err := exec.Command("shellcheck", append([]string{"-e", "SC2154,SC2034"}, bashFiles...)...).CombinedOutput(); err != nil {
		t.Errorf("shellcheck (in-shell programs): %v\n%s", err, out)
	}
}

// TestCommandsByteExact runs stage 2 of the task program (what execs the
// user command) under dash and bash and checks the user's bytes arrive
// unchanged: Kubeflow argv elements, the PAI v1 eval line, the PAI v2
// script.
func TestCommandsByteExact(t *testing.T) {
	hostile := []string{"a 'b' \"c\"", "$HOME `id` $(id) \\n \\", "line1\nline2\n", "*?[x]~;|&<>!#", "", "-e", "é\t\x01"}
	hexAll := `for a in "$@"; do printf '%s' "$a" | od -An -v -tx1 | tr -d ' \n'; echo .; done`
	cases := map[string]struct {
		cmd  jobs.Command
		want []string // hex of each printed item
	}{
		"kubeflow argv": {cmd: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"/bin/sh", "-c", hexAll, "sh"}, Args: hostile}},
		"pai v1 eval": {cmd: jobs.Command{Kind: jobs.CommandEval,
			Script: `set -- "$1"; ` + hexAll + ` # a 'b' "c" $d ` + "`e`" + ` \f ~ ; | & < > ! * ?`}},
		"pai v2 script": {cmd: jobs.Command{Kind: jobs.CommandBashScript,
			Script: "set -- \"$BASH_EXECUTION_STRING\"\n" + hexAll + "\n: 'it''s' \"$(true)\" `true` \\\n# end\n"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := &jobs.Job{Name: "x", Roles: []*jobs.Role{{Name: "r", Instances: 1, Command: tc.cmd}}}
			launch := (&translate.Plan{Job: job}).Compiled().Roles[0].Launch
			ri := roleInfo{Role: job.Roles[0], k: 0, res: res{CPUs: 1}, launch: launch}
			task, err := taskProgram(job, []roleInfo{ri}, settings{Container: "none"})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			switch tc.cmd.Kind {
			case jobs.CommandArgv:
				for _, h := range hostile {
					want = append(want, hex.EncodeToString([]byte(h))+".")
				}
			case jobs.CommandEval:
				want = []string{hex.EncodeToString([]byte(tc.cmd.Script)) + "."}
			case jobs.CommandBashScript:
				want = []string{hex.EncodeToString([]byte(translate.PAIPrelude+tc.cmd.Script)) + "."}
			}
			for _, sh := range shells {
				path, err := exec.LookPath(sh)
				if err != nil {
					t.Skipf("%s missing", sh)
				}
				out, err := exec.Command(path, "-c", task, "jobshift-run", "0", t.TempDir()).Output()
				if err != nil {
					t.Fatalf("%s: %v", sh, err)
				}
				if d := cmp.Diff(want, lines(string(out))); d != "" {
					t.Errorf("%s (-want +got):\n%s", sh, d)
				}
			}
		})
	}
}

// TestRetryMatchesGo: js_retry decides as completion.JobRetry for every
// exit code 0..255 and, for some codes, several retry counts, in both PAI
// eras.
func TestRetryMatchesGo(t *testing.T) {
	for _, format := range []jobs.Format{jobs.FormatPAIv1, jobs.FormatPAIv2} {
		for _, max := range []int{0, 2, -1} {
			job := &jobs.Job{Source: jobs.Source{Format: format}, Completion: jobs.Completion{Kind: jobs.CompletionPAI}, Retry: jobs.Retry{JobRetryCount: max}}
			var args []string
			var want []string
			// every code once (its class), the retry count only matters for
			// "unknown" codes: a few of them with more counts
			type probe struct{ code, soFar int }
			var probes []probe
			for code := 0; code < 256; code++ {
				probes = append(probes, probe{code, 0})
			}
			for _, code := range []int{1, 2, 128, 137, 143, 255} {
				probes = append(probes, probe{code, 1}, probe{code, 2})
			}
			for _, pr := range probes {
				code, soFar := pr.code, pr.soFar
				{
					args = append(args, fmt.Sprintf("%d:%d", code, soFar))
					v := completion.Verdict{Phase: completion.PhaseFailed, ExitCode: code}
					d := completion.JobRetry(job, v, soFar)
					want = append(want, fmt.Sprintf("%d:%d %v %v", code, soFar, d.Retry, d.Retry && d.Counted))
				}
			}
			dir := t.TempDir()
			script := retryData(completion.PolicyOf(job)) + "_jsh_phase=failed\n_jsh_dir=" + dir + `
for a in "$@"; do
	code=${a%:*}
	echo "${a#*:}" >"$_jsh_dir/retries"
	if js_retry "$code"; then r=true; else r=false; fi
	c=false
	[ "$_jsh_counted" = 1 ] && c=true
	echo "$a $r $c"
done`
			for _, sh := range shells {
				out, code := runSh(t, sh, shHostlist+shDecide+shBatch, script, args...)
				if code != 0 {
					t.Fatalf("%s exited %d", sh, code)
				}
				if d := cmp.Diff(want, lines(out)); d != "" {
					t.Errorf("%s %s max %d (-go +sh):\n%s", sh, format, max, d)
				}
			}
		}
	}
}

func TestRenderErrors(t *testing.T) {
	nul := paiJob()
	nul.Roles[0].Env = []jobs.EnvVar{{Name: "A", Value: "x\x00y"}}
	noCmd := tfJob()
	noCmd.Roles[0].Command = jobs.Command{Kind: jobs.CommandArgv}
	badName := tfJob()
	badName.Roles[0].Env = []jobs.EnvVar{{Name: "X;touch /tmp/p", Value: "1"}}
	dotted := tfJob()
	dotted.Roles[0].Env = []jobs.EnvVar{{Name: "my.var", Value: "1"}}
	// the task program's data namespace: the value would be replaced
	reserved := tfJob()
	reserved.Roles[0].Env = []jobs.EnvVar{{Name: "_t_n_0", Value: "1"}}
	// the ssh emulation runs on the host: not with an image run by Apptainer
	ssh := []jobs.Port{{Label: "ssh", Count: 1}}
	mpi := &jobs.Job{Name: "m", Source: jobs.Source{Format: jobs.FormatMPIJob, Version: "kubeflow.org/v2beta1"}, Contracts: []string{jobs.ContractMPI},
		Completion: jobs.Completion{Kind: jobs.CompletionMPI}, Roles: []*jobs.Role{
			{Name: "launcher", ReplicaType: "launcher", Instances: 1, Image: "mpi:1", Ports: ssh, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"mpirun", "hostname"}}},
			{Name: "worker", ReplicaType: "worker", Instances: 2, Image: "mpi:1", Ports: ssh, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"/usr/sbin/sshd", "-De"}}}}}
	cases := map[string]struct {
		job  *jobs.Job
		opts map[string]string
		want error
	}{
		"bad layout":    {paiJob(), map[string]string{"layout": "spread"}, ErrSetting},
		"bad container": {paiJob(), map[string]string{"container": "docker"}, ErrSetting},
		"blank dir":     {paiJob(), map[string]string{"state_dir": "/a b"}, ErrSetting},
		"nul byte":      {nul, nil, ErrJob},
		"entrypoint":    {noCmd, nil, ErrJob},
		"env name code": {badName, nil, ErrJob},
		"env name dot":  {dotted, nil, ErrJob},
		"env reserved":  {reserved, nil, ErrJob},
		"no roles":      {&jobs.Job{Name: "x"}, nil, ErrJob},
		"mpi container": {mpi, map[string]string{"container": "apptainer"}, ErrJob},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: tc.job, Site: &siteconfig.Config{}, Options: tc.opts})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPyxisImage(t *testing.T) {
	cases := map[string]string{
		"ubuntu:22.04":                     "ubuntu:22.04",
		"nvcr.io/nvidia/pytorch:23.10-py3": "nvcr.io#nvidia/pytorch:23.10-py3",
		"pytorch/pytorch:2.1.0":            "pytorch/pytorch:2.1.0",
		"localhost/img":                    "localhost#img",
		"10.11.3.8:5000/a/b:1":             "10.11.3.8:5000#a/b:1",
	}
	for in, want := range cases {
		if got := pyxisImage(in); got != want {
			t.Errorf("pyxisImage(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSecretsStayOut: secret values go to the 0600 companion file only.
func TestSecretsStayOut(t *testing.T) {
	job := paiJob()
	job.Secrets = map[string]any{"token": "s3cr3t'v", "db": map[string]any{"pw": 42}}
	job.Roles[1].Command.Script = "login --token '<% $secrets.token %>' --pw <% $secrets.db.pw %> <% $secrets.none %>"
	a, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: job, User: "alice", Site: &siteconfig.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	libName, _ := libraryName(library())
	if len(a.Files) != 3 || a.Files[1].Name != libName || a.Files[2].Mode != 0o600 || a.Files[2].Name != "ps-worker.sbatch.secrets" {
		t.Fatalf("files: %v %v %v", len(a.Files), a.Files[1].Name, a.Files[len(a.Files)-1].Name)
	}
	script := string(a.Files[0].Data)
	for _, v := range []string{"s3cr3t", "42"} {
		if strings.Contains(script, v) && v != "42" || strings.Contains(script, "--pw 42") {
			t.Errorf("script contains secret value %q", v)
		}
	}
	if !strings.Contains(script, "<% $secrets.none %>") {
		t.Error("an unresolved reference must stay as written")
	}
	want := "# jobshift secrets (0600): read by the job's tasks, never put in the batch script\n_jsh_secret_0='s3cr3t'\\''v'\n_jsh_secret_1=42\n"
	if d := cmp.Diff(want, string(a.Files[2].Data)); d != "" {
		t.Errorf("secrets file (-want +got):\n%s", d)
	}
}

// TestRestartMatchesGo: js_restart (in-place task restarts) decides as
// completion.TaskRestartDecision for PAI (gang on/off, taskRetryCount),
// Kubeflow (each restartPolicy, with and without backoffLimit) and Volcano
// (restartPolicy, RestartPod/RestartTask policies, maxRetry).
func TestRestartMatchesGo(t *testing.T) {
	type jc struct {
		job  *jobs.Job
		name string
	}
	var cases []jc
	for _, gang := range []bool{true, false} {
		for _, tr := range []int{0, 2, -1} {
			for _, f := range []jobs.Format{jobs.FormatPAIv1, jobs.FormatPAIv2} {
				cases = append(cases, jc{&jobs.Job{Source: jobs.Source{Format: f}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
					Retry: jobs.Retry{GangAllocation: gang}, Roles: []*jobs.Role{{Name: "w", Instances: 1, TaskRetryCount: tr}}},
					fmt.Sprintf("pai %s gang=%v taskRetryCount=%d", f, gang, tr)})
			}
		}
	}
	formats := map[jobs.CompletionKind]jobs.Format{jobs.CompletionTF: jobs.FormatTFJob, jobs.CompletionPyTorch: jobs.FormatPyTorchJob}
	for _, kind := range []jobs.CompletionKind{jobs.CompletionTF, jobs.CompletionPyTorch} {
		for _, pol := range []string{"", "Never", "OnFailure", "Always", "ExitCode"} {
			for _, bl := range []*int{nil, intp(0), intp(2)} {
				// the generations differ in ExitCode's codes and the
				// v1alpha1 chief (role type master)
				for _, v := range []string{"", "kubeflow.org/v1beta2", "kubeflow.org/v1alpha1"} {
					for _, rt := range []string{"worker", "master"} {
						if v != "" && bl != nil || v != "kubeflow.org/v1alpha1" && rt == "master" {
							continue // keep the run short: only what a generation changes
						}
						cases = append(cases, jc{&jobs.Job{Source: jobs.Source{Format: formats[kind], Version: v}, Completion: jobs.Completion{Kind: kind}, Retry: jobs.Retry{BackoffLimit: bl},
							Roles: []*jobs.Role{{Name: "w", ReplicaType: rt, Instances: 1, RestartPolicy: pol}}},
							fmt.Sprintf("%s %s %s policy=%q backoffLimit=%v", kind, v, rt, pol, bl)})
					}
				}
			}
		}
	}
	// Volcano: the pod's restartPolicy within the task's maxRetry, and
	// PodFailed policies (task before job, an exit code or an event)
	// whose RestartPod or RestartTask restarts in place within maxRetry
	three, one := 3, 1
	vpolicies := map[string][]jobs.VolcanoPolicy{
		"none":                              nil,
		"exitCode 3 RestartPod":             {{ExitCode: &three, Action: completion.ActionRestartPod}},
		"PodFailed RestartTask":             {{Events: []string{completion.EventPodFailed}, Action: completion.ActionRestartTask}},
		"exitCode 1 AbortJob, * RestartPod": {{ExitCode: &one, Action: completion.ActionAbortJob}, {Events: []string{"*"}, Action: completion.ActionRestartPod}},
	}
	// kept small (every case runs the shell under dash and bash): every
	// restartPolicy with every policy set, then the limits (a task's own
	// maxRetry, none, a job maxRetry of 1) and a task-level policy
	vcase := func(pol, pname string, max [2]int, onTask bool) {
		v := &jobs.Volcano{MaxRetry: max[0], Tasks: []jobs.VolcanoTask{{Name: "w", MaxRetry: max[1]}}}
		if onTask {
			v.Tasks[0].Policies = vpolicies[pname]
		} else {
			v.Policies = vpolicies[pname]
		}
		cases = append(cases, jc{&jobs.Job{Source: jobs.Source{Format: jobs.FormatVolcano}, Completion: jobs.Completion{Kind: jobs.CompletionVolcano},
			Extras: jobs.Extras{Volcano: v}, Roles: []*jobs.Role{{Name: "w", Instances: 1, RestartPolicy: pol}}},
			fmt.Sprintf("volcano policy=%s %s maxRetry=%v task=%v", pol, pname, max, onTask)})
	}
	for _, pol := range []string{"Never", "OnFailure", "Always"} {
		for pname := range vpolicies {
			vcase(pol, pname, [2]int{3, 3}, false)
		}
	}
	vcase("OnFailure", "none", [2]int{3, 1}, false)
	vcase("Always", "none", [2]int{3, -1}, false)
	vcase("Never", "exitCode 3 RestartPod", [2]int{1, 3}, false)
	vcase("Never", "PodFailed RestartTask", [2]int{2, 3}, true)
	codes := []int{0, 1, 2, 3, 126, 127, 128, 130, 132, 137, 138, 139, 143, 200, 255}
	for _, c := range cases {
		var args, want []string
		for _, code := range codes {
			for _, soFar := range []int{0, 1, 2} {
				args = append(args, fmt.Sprintf("%d:%d", code, soFar))
				d := completion.TaskRestartDecision(c.job, "w", code, soFar)
				want = append(want, fmt.Sprintf("%d:%d %v", code, soFar, d.Retry))
			}
		}
		dir := t.TempDir()
		script := restartData(c.job, completion.KubeletBackoff) + `
for a in "$@"; do
	code=${a%:*}
	echo "${a#*:}" >"$1.d/restarts.0.0"
	echo "${a#*:}" >"$1.d/restarts.job"
	echo "${a#*:}" >"$1.d/restarts.role.0"
	if js_restart 0 "$code" "$1.d" 0; then r=true; else r=false; fi
	echo "$a $r"
done`
		// "$1" is not an argument here: give the directory through the name
		script = strings.ReplaceAll(script, `"$1.d`, `"`+dir)
		for _, sh := range shells {
			out, status := runSh(t, sh, shRestart, script, args...)
			if status != 0 {
				t.Fatalf("%s exited %d", sh, status)
			}
			if d := cmp.Diff(want, lines(out)); d != "" {
				t.Errorf("%s: %s (-go +sh):\n%s", sh, c.name, d)
			}
		}
	}
}

// TestBackoffMatchesGo: js_backoff waits as completion.Backoff.Next, for the
// kubelet's schedule and a scaled one, across streaks and run lengths around
// the reset (2 × Max).
func TestBackoffMatchesGo(t *testing.T) {
	for _, bo := range []completion.Backoff{completion.KubeletBackoff, {Initial: 150 * time.Millisecond, Max: 4500 * time.Millisecond}} {
		var args, want []string
		for _, streak := range []int{0, 1, 2, 3, 4, 5, 6, 7, 12, 60} {
			for _, ran := range []time.Duration{0, time.Second, bo.ResetAfter(), bo.ResetAfter() + time.Millisecond, time.Hour} {
				args = append(args, fmt.Sprintf("%d:%d", streak, ran.Milliseconds()))
				d, next := bo.Next(streak, ran)
				want = append(want, fmt.Sprintf("%d:%d %d %d", streak, ran.Milliseconds(), d.Milliseconds(), next))
			}
		}
		script := restartData(&jobs.Job{}, bo) + `
for a in "$@"; do
	js_backoff "${a%:*}" "${a#*:}"
	echo "$a $_b_wait $_b_streak"
done`
		for _, sh := range shells {
			out, status := runSh(t, sh, shRestart, script, args...)
			if status != 0 {
				t.Fatalf("%s exited %d", sh, status)
			}
			if d := cmp.Diff(want, lines(out)); d != "" {
				t.Errorf("%s: backoff %+v (-go +sh):\n%s", sh, bo, d)
			}
		}
	}
}

// js_now_ms falls back to whole seconds where date prints %N literally
// (busybox builds without it), and js_sleep_ms to a whole-second sleep where
// sleep takes no fraction, rounded up so the wait is never shorter.
func TestShellClockFallbacks(t *testing.T) {
	bin := t.TempDir()
	shim := map[string]string{
		"date":  "#!/bin/sh\ncase $1 in +%s%N) echo 1700000000N ;; +%s) echo 1700000000 ;; esac\n",
		"sleep": "#!/bin/sh\ncase $1 in *.*) exit 1 ;; esac\necho \"$1\" >>\"$SLEPT\"\n",
	}
	for name, text := range shim {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	slept := filepath.Join(t.TempDir(), "slept")
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	t.Setenv("SLEPT", slept)
	for _, sh := range shells {
		os.Remove(slept)
		out, status := runSh(t, sh, shRestart, "js_now_ms; js_sleep_ms 1200")
		if status != 0 || out != "1700000000000\n" {
			t.Errorf("%s: js_now_ms = %q (status %d), want 1700000000000", sh, out, status)
		}
		if b, _ := os.ReadFile(slept); string(b) != "2\n" {
			t.Errorf("%s: js_sleep_ms 1200 slept %q, want 2 (seconds, rounded up)", sh, b)
		}
	}
}

// The restart back-off reaches the script: the kubelet's by default, the
// test-only option scales it.
func TestBackoffRendered(t *testing.T) {
	cases := map[string]struct {
		opt  string
		want string
	}{
		"default: the kubelet's": {"", "_t_bo_init=10000 _t_bo_max=300000\n"},
		"scaled for tests":       {"200ms", "_t_bo_init=200 _t_bo_max=6000\n"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv(completion.BackoffEnv, "")
			p := &translate.Plan{Job: paiJob(), Options: map[string]string{"restart_backoff": c.opt}}
			st, err := resolveSettings(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := restartData(p.Job, st.Backoff); !strings.Contains(got, c.want) {
				t.Errorf("restart data:\n%s\nwant the line %q", got, c.want)
			}
		})
	}
	if _, err := resolveSettings(&translate.Plan{Job: paiJob(), Options: map[string]string{"restart_backoff": "soon"}}); !errors.Is(err, ErrSetting) {
		t.Errorf("restart_backoff soon: %v, want ErrSetting", err)
	}
}

// TestTimeLimit: the job's activeDeadlineSeconds (+3 min backstop) wins
// over the site's time_limit, which applies to jobs without a deadline.
func TestTimeLimit(t *testing.T) {
	withDeadline := tfJob // activeDeadlineSeconds 3600
	cases := map[string]struct {
		job  func() *jobs.Job
		site string
		want string
	}{
		"deadline, no site":   {withDeadline, "", "#SBATCH --time=63\n"},
		"deadline and site":   {withDeadline, "8:00:00", "#SBATCH --time=63\n"},
		"site only":           {paiJob, "8:00:00", "#SBATCH --time=8:00:00\n"},
		"neither: no --time=": {paiJob, "", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sc, err := render(&translate.Plan{Job: tc.job(), User: "u", Site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{TimeLimit: tc.site}}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if strings.Contains(sc.Text, "#SBATCH --time=") {
					t.Error("unexpected --time")
				}
				return
			}
			if !strings.Contains(sc.Text, tc.want) {
				t.Errorf("script lacks %q", tc.want)
			}
		})
	}
}

// TestHostileImageNames: image names are data wherever the batch script
// writes them (the Apptainer pull and its log line): run js_prepare under
// dash and bash with a stand-in apptainer and check that the bytes arrive
// unchanged and nothing in them runs.
func TestHostileImageNames(t *testing.T) {
	images := []string{`img$(touch "$M")`, "img`touch \"$M\"`", `a"b'c\d`, "x;touch \"$M\"", "y\ntouch \"$M\""}
	var roles []roleInfo
	for k, img := range images {
		roles = append(roles, roleInfo{Role: &jobs.Role{Name: fmt.Sprintf("r%d", k), Instances: 1, Image: img}, k: k})
	}
	// the data lines, then sh/batch.sh's js_prepare reading them
	prep := prepareData(roles, settings{Container: "apptainer"}, false, "x.secrets", false) + shBatch
	stub := `js_log() { printf 'jobshift: %s\n' "$*"; }
js_die() { echo "die $*"; exit 1; }
apptainer() { printf 'pull:%s\n' "$4"; : >"$3"; }
`
	for _, sh := range shells {
		path, err := exec.LookPath(sh)
		if err != nil {
			t.Skipf("%s missing", sh)
		}
		dir := t.TempDir()
		marker := filepath.Join(dir, "ran")
		cmd := exec.Command(path, "-c", prep+stub+"js_prepare")
		cmd.Env = append(os.Environ(), "M="+marker, "_jsh_dir="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", sh, err, out)
		}
		var want strings.Builder
		for _, img := range images {
			fmt.Fprintf(&want, "jobshift: pulling %s\npull:docker://%s\n", img, img)
		}
		if d := cmp.Diff(want.String(), string(out)); d != "" {
			t.Errorf("%s (-want +got):\n%s", sh, d)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: a command inside an image name ran", sh)
		}
	}
}

// The het override is announced only when the site or -layout asked for
// het; auto's choice is silently replaced.
func TestLeinaoLayoutWarning(t *testing.T) {
	for name, tc := range map[string]struct {
		layout string
		warn   bool
	}{"auto": {"", false}, "het": {"het", true}, "packed": {"packed", false}} {
		t.Run(name, func(t *testing.T) {
			sc, err := render(&translate.Plan{Job: leinaoJob(), User: "alice", Site: &siteconfig.Config{}, Options: map[string]string{"layout": tc.layout}})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Layout != LayoutPacked {
				t.Errorf("layout %s, want packed", sc.Layout)
			}
			warned := strings.Contains(sc.Warnings.Error(), "layout het ignored")
			if warned != tc.warn {
				t.Errorf("warned = %v, want %v: %q", warned, tc.warn, sc.Warnings)
			}
		})
	}
}

// js_one_per_node refuses (exit 97, the reason on stdout) an allocation
// whose block layout put two tasks on one node, and accepts one node per
// task, whatever the role split.
func TestOnePerNodeCheck(t *testing.T) {
	cases := map[string]struct {
		hosts map[string]string // hosts.<role> file contents
		code  int
		want  string
	}{
		"a node each":         {map[string]string{"0": "n1\nn2\n", "1": "n3\nn4\n"}, 0, ""},
		"two roles, one node": {map[string]string{"0": "n1\nn2\n", "1": "n2\nn3\n"}, 97, "node n2 holds two tasks"},
		"one role, one node":  {map[string]string{"0": "n1\nn1\n"}, 97, "node n1 holds two tasks"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for r, c := range tc.hosts {
				if err := os.WriteFile(filepath.Join(dir, "hosts."+r), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, sh := range shells {
				out, code := runSh(t, sh, shHostlist+shDecide+shBatch, "_jsh_adir="+dir+"\njs_one_per_node\necho ok")
				if code != tc.code || !strings.Contains(out, tc.want) {
					t.Errorf("%s: exit %d, output %q; want exit %d containing %q", sh, code, out, tc.code, tc.want)
				}
			}
		})
	}
}

// TestSrunDataExact: js_srun runs srun with exactly the words srunData
// rendered (hostile image and role names included), the attempt directory
// expanded where the script names it, then the command's own arguments,
// under dash and bash.
func TestSrunDataExact(t *testing.T) {
	ri := roleInfo{Role: &jobs.Role{Name: "wo rk'er", Instances: 2, Image: "reg.io/a b/$(id)'x#y:1"}, k: 0, res: res{CPUs: 2, MemPerCPU: 512}}
	st := settings{Container: "pyxis", GPURequest: "gpus-per-task"}
	data := srunData(ri, LayoutPacked, st)
	script := data + `_jsh_adir='/state/a dir'
srun() { for a in "$@"; do printf '%s\n' "$a"; done; }
js_srun 0 /bin/sh -c 'echo "$1"' 'x y' '$z'`
	want := []string{"--kill-on-bad-exit=0", "--job-name=wo_rk_er", "--exact", "--ntasks=2", "--cpus-per-task=2", "--mem-per-cpu=512M",
		"--gres=none", "--distribution=arbitrary", "--container-image=reg.io#a b/$(id)'x#y:1", "--container-mounts=/state/a dir:/state/a dir",
		"--output=/state/a dir/wo_rk_er-%t.out", "--error=/state/a dir/wo_rk_er-%t.err", "/bin/sh", "-c", `echo "$1"`, "x y", "$z"}
	for _, sh := range shells {
		out, code := runSh(t, sh, shBatch, script)
		if code != 0 {
			t.Fatalf("%s exited %d:\n%s", sh, code, out)
		}
		if diff := cmp.Diff(want, lines(out)); diff != "" {
			t.Errorf("%s: srun's arguments (-want +got):\n%s", sh, diff)
		}
	}
}

// TestRenderMPIDeterministic: an MPIJob's whole script (contract and
// library included) is the same on every render, and names no directory
// of its own: the MPI directory comes from the allocation (JS_MPI_DIR).
func TestRenderMPIDeterministic(t *testing.T) {
	for _, gen := range []string{"v1alpha1", "v1alpha2", "v1", "v2beta1"} {
		name := "mpi-" + gen
		a, b := renderCase(t, name).Text, renderCase(t, name).Text
		if a != b {
			t.Errorf("%s: two renders differ:\n%s", name, cmp.Diff(a, b))
		}
		if strings.Contains(a, "/tmp/") || strings.Contains(a, contract.MPIDefaultDir) {
			t.Errorf("%s: the script names a literal MPI directory", name)
		}
		if !strings.Contains(a, `_js_sq "$JS_MPI_DIR"`) || !strings.Contains(a, `"${_js_mq}"`) {
			t.Errorf("%s: the contract does not take the hostfile's directory from JS_MPI_DIR", name)
		}
	}
}
