package slurm

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// TestInShellArgvByteExact: a role without a supervisor gets its command
// from _jsh_argv_R, evaluated the way js_launch_insh does, and srun execs
// those words: the user's bytes must come out unchanged, hostile ones too.
func TestInShellArgvByteExact(t *testing.T) {
	hexAll := `for a in "$@"; do printf '%s' "$a" | od -An -v -tx1 | tr -d ' \n'; echo .; done`
	cases := map[string]struct {
		cmd     jobs.Command
		inShell bool
	}{
		"pai v1 eval": {cmd: jobs.Command{Kind: jobs.CommandEval,
			Script: `set -- "$1"; ` + hexAll + ` # a 'b' "c" $d ` + "`e`" + ` \f ~ ; | & < > ! * ? '\'' "\"" é` + "\t\x01"}, inShell: true},
		"pai v2 script": {cmd: jobs.Command{Kind: jobs.CommandBashScript,
			Script: "set -- \"$BASH_EXECUTION_STRING\"\n" + hexAll + "\n: 'it''s' \"$(true)\" `true` \\\n# end\n"}, inShell: true},
		// not bash: the supervisor runs it
		"kubeflow argv": {cmd: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"/bin/sh", "-c", hexAll, "sh"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := &jobs.Job{Name: "x", Completion: jobs.Completion{Kind: jobs.CompletionPAI}, Retry: jobs.Retry{GangAllocation: true},
				Roles: []*jobs.Role{{Name: "r", Instances: 1, Command: tc.cmd}}}
			launch := (&translate.Plan{Job: job}).Compiled().Roles[0].Launch
			ri := roleInfo{Role: job.Roles[0], k: 0, res: res{CPUs: 1}, launch: launch}
			data := inShellData(ri, inShell(job, ri, settings{Container: "none"}))
			if got := strings.HasPrefix(data, "_jsh_insh_0=1\n"); got != tc.inShell {
				t.Fatalf("in shell %v, want %v:\n%s", got, tc.inShell, data)
			}
			if !tc.inShell {
				return
			}
			// the command prints the user's script as bash got it (the
			// eval's $1, or BASH_EXECUTION_STRING: OpenPAI's prelude
			// and the script), as TestCommandsByteExact
			want := []string{hex.EncodeToString([]byte(tc.cmd.Script)) + "."}
			if tc.cmd.Kind == jobs.CommandBashScript {
				want = []string{hex.EncodeToString([]byte(translate.PAIPrelude+tc.cmd.Script)) + "."}
			}
			script := data + `eval "_l_argv=\$_jsh_argv_0"
eval "set -- $_l_argv"
exec "$@"
`
			for _, sh := range shells {
				path, err := exec.LookPath(sh)
				if err != nil {
					t.Skipf("%s missing", sh)
				}
				out, err := exec.Command(path, "-c", script).Output()
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

// TestEndsFromSrun: js_ends turns srun -v's task exit notifications into
// rc.R.I files (the exit status, or 128 + the signal) and passes every
// other line on but those -v adds. The lines are srun 22.05's (the
// notification and task lines of src/plugins/launch/slurm).
func TestEndsFromSrun(t *testing.T) {
	n := func(k int, st string) string {
		return "srun: launch/slurm: _task_finish: Received task exit notification for " + map[bool]string{true: "1 task", false: "2 tasks"}[k == 1] + " of StepId=7.1 (status=" + st + ").\n"
	}
	cases := map[string]struct {
		in   string
		want map[string]string // rc file -> content
		log  []string
	}{
		"exit codes and signals": {
			in: "srun: defined options\nsrun: -------------------- --------------------\nsrun: (null)              : n1\nsrun: ntasks              : 6\nsrun: end of defined options\n" +
				"srun: jobid 7: nodes(1):`n1', cpu counts: 6(x1)\nsrun: launch/slurm: launch_p_step_launch: CpuBindType=(null type)\nsrun: launching StepId=7.1 on host n1, 6 tasks: [0-5]\nsrun: route/default: init: route default plugin loaded\nsrun: launch/slurm: _task_start: Node n1, 6 tasks started\n" +
				n(2, "0x0000") + "srun: launch/slurm: _task_finish: n1: tasks 0,4: Completed\n" +
				n(1, "0x000f") + "srun: error: n1: task 2: Terminated\n" +
				n(1, "0x0300") + "srun: error: n1: task 1: Exited with exit code 3\n" +
				n(1, "0x008b") + "srun: error: n1: task 3: Segmentation fault (core dumped)\n" +
				n(1, "0xff00") + "srun: error: n1: task 5: Exited with exit code 255\nsrun: Force Terminated StepId=7.1\n",
			want: map[string]string{"rc.1.0": "0", "rc.1.4": "0", "rc.1.2": "143", "rc.1.1": "3", "rc.1.3": "139", "rc.1.5": "255", "stepid.1": "7.1", "started.1": "0-5"},
			log: []string{"srun: error: n1: task 2: Terminated", "srun: error: n1: task 1: Exited with exit code 3",
				"srun: error: n1: task 3: Segmentation fault (core dumped)", "srun: error: n1: task 5: Exited with exit code 255", "srun: Force Terminated StepId=7.1"},
		},
		"ranges over hosts, a line between": {
			in:   n(5, "0x0100") + "srun: error: something else\n" + "srun: error: n[1-2]: tasks 0-2,7,10-11: Exited with exit code 1\n",
			want: map[string]string{"rc.1.0": "1", "rc.1.1": "1", "rc.1.2": "1", "rc.1.7": "1", "rc.1.10": "1", "rc.1.11": "1"},
			log:  []string{"srun: error: something else", "srun: error: n[1-2]: tasks 0-2,7,10-11: Exited with exit code 1"},
		},
		// each node's tasks are started once it says so; a node that never
		// does (its launch failed) has none started
		"started on two of three nodes": {
			in: "srun: launching StepId=9.0 on host n1, 3 tasks: [0,2,4]\nsrun: launching StepId=9.0 on host n2, 3 tasks: [1,3,5]\nsrun: launching StepId=9.0 on host n3, 1 tasks: [6]\n" +
				"srun: launch/slurm: _task_start: Node n2, 3 tasks started\nsrun: launch/slurm: _task_start: Node n1, 3 tasks started\n" +
				"srun: error: Task launch for StepId=9.0 failed on node n3: Invalid node name specified\n",
			want: map[string]string{"stepid.1": "9.0", "started.1": "1,3,5\n0,2,4"},
			log:  []string{"srun: error: Task launch for StepId=9.0 failed on node n3: Invalid node name specified"},
		},
		// one task on a node: its list is not bracketed (srun 22.05)
		"one task": {
			in:   "srun: launching StepId=9.3 on host n2, 1 tasks: 0\nsrun: launch/slurm: _task_start: Node n2, 1 tasks started\n",
			want: map[string]string{"stepid.1": "9.3", "started.1": "0"},
		},
		// the same messages with the function logged before them
		"prefixed messages": {
			in: "srun: launch/slurm: launch_p_step_launch: launching StepId=9.2 on host n4, 1 tasks: 3\nsrun: launch/slurm: launch_p_step_launch: launching StepId=9.2 on host n5, 2 tasks: [4-5]\n" +
				"srun: launch/slurm: _task_start: Node n4, 1 task started\nsrun: launch/slurm: _task_start: Node n5, 2 tasks started\n",
			want: map[string]string{"stepid.1": "9.2", "started.1": "3\n4-5"},
		},
		// a task line with no notification before it records nothing
		"no notification": {
			in:  "srun: error: n1: task 0: Exited with exit code 2\n",
			log: []string{"srun: error: n1: task 0: Exited with exit code 2"},
		},
	}
	fn := shBatch[strings.Index(shBatch, "js_ends() {"):]
	fn = fn[:strings.Index(fn, "\n}\n")+3]
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, sh := range shells {
				path, err := exec.LookPath(sh)
				if err != nil {
					t.Skipf("%s missing", sh)
				}
				dir := t.TempDir()
				cmd := exec.Command(path, "-c", fn+`_jsh_adir=$1; js_ends 1`, sh, dir)
				cmd.Stdin = strings.NewReader(tc.in)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", sh, err, out)
				}
				if d := cmp.Diff(tc.log, lines(string(out))); d != "" {
					t.Errorf("%s: log (-want +got):\n%s", sh, d)
				}
				got := map[string]string{}
				files, _ := filepath.Glob(filepath.Join(dir, "*.*"))
				for _, f := range files {
					b, _ := os.ReadFile(f)
					got[filepath.Base(f)] = strings.TrimSuffix(string(b), "\n")
				}
				want := tc.want
				if want == nil {
					want = map[string]string{}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: rc files (-want +got):\n%s", sh, d)
				}
			}
		})
	}
}

// TestStageLocals: every variable sh/insh.sh.tmpl assigns is either one
// of the in-shell stage's locals (stageLocals) or one it sets for the task
// on purpose; a new scratch variable not in the list would be left in the
// user's bash.
func TestStageLocals(t *testing.T) {
	forTask := map[string]bool{"CUDA_VISIBLE_DEVICES": true}
	// NAME= and printf -v NAME
	assign := regexp.MustCompile(`(?m)(?:(?:^|[\s;({"])([A-Za-z_][A-Za-z0-9_]*)=|printf -v ([A-Za-z_][A-Za-z0-9_]*))`)
	var stray []string
	var code strings.Builder
	for line := range strings.Lines(stripComments(inShellTemplate)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "# shellcheck ") {
			code.WriteString(line)
		}
	}
	assigned := map[string]bool{}
	for _, m := range assign.FindAllStringSubmatch(code.String(), -1) {
		name := m[1] + m[2]
		assigned[name] = true
		if !forTask[name] && !slices.Contains(stageLocals, name) {
			stray = append(stray, name)
		}
	}
	if len(stray) > 0 {
		t.Fatalf("sh/insh.sh.tmpl assigns %v, neither in stageLocals nor set for the task", stray)
	}
	// and the list names no variable the stage does not assign
	for _, name := range stageLocals {
		if !assigned[name] {
			t.Errorf("stageLocals names %s, which sh/insh.sh.tmpl never assigns", name)
		}
	}
}

// TestInShellNames: a role whose own variables have the name of one of the
// in-shell stage's locals keeps its supervisor.
func TestInShellNames(t *testing.T) {
	contractVars := []string{"_js_sa", "_js_fn"}
	cases := map[string]struct {
		env  []string
		want bool
	}{
		"none":                {want: true},
		"the job's own":       {env: []string{"DATA", "PAI_X", "_k"}, want: true},
		"a stage scratch":     {env: []string{"DATA", "_k_want"}},
		"a contract variable": {env: []string{"_js_sa"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &jobs.Role{Name: "r", Instances: 1}
			for _, n := range tc.env {
				r.Env = append(r.Env, jobs.EnvVar{Name: n, Value: "x"})
			}
			if got := inShellNames(roleInfo{Role: r}, contractVars); got != tc.want {
				t.Fatalf("inShellNames = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStopTraps: the user's bash of an in-shell task, with the stage's
// traps (sh/insh.sh.tmpl), ends by SIGTERM when a stop was asked for (the
// role's stopped file exists) even if only its command got the signal and
// the script ran to its end (the race that left a stopped step FAILED in
// sacct), and with its command's own status otherwise; the attempt
// directory's path may hold any character.
func TestStopTraps(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cases := map[string]struct {
		stopped bool
		want    string
	}{
		"stopped: bash ends by the signal": {stopped: true, want: "signal: terminated"},
		"not stopped: the command's code":  {stopped: false, want: "exit status 143"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), `a dir 'with' $(quotes) "and" \ more`)
			// the command kills itself with SIGTERM: bash gets no signal
			job := inShellJob(`sh -c 'kill -TERM $$'`, nil)
			cmd := inShellTask(t, dir, job, 0)
			if tc.stopped {
				os.WriteFile(filepath.Join(dir, "stopped.0"), []byte("stopped\n"), 0o644)
			}
			out, err := cmd.CombinedOutput()
			got := "exit status 0"
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("bash ended with %q, want %q\n%s", got, tc.want, out)
			}
		})
	}
}

// TestInShellMatchesOracle runs role 0's in-shell program (insh.0.sh) as
// srun would start a task of it, in an attempt directory with the shared
// stage's fragment of a real topology: the user's script sees the oracle's
// environment, the role's own variables (hostile values) and
// CUDA_VISIBLE_DEVICES="", and nothing of jobshift's, neither a variable
// nor a function; its positional parameters are its own.
func TestInShellMatchesOracle(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	own := []jobs.EnvVar{{Name: "DATA", Value: `it's "a" $(x) \ ` + "`y`\n;|&"}, {Name: "EMPTY"}}
	job := inShellJob(`set -- "$0" "$@"; printf '%s\n' "$*"; env -0 >"$OUT/env"; { declare -F; set; } >"$OUT/set"`, own)
	dir := filepath.Join(t.TempDir(), `state 'x' $(y)`)
	out := t.TempDir()
	cmd := inShellTask(t, dir, job, 1)
	cmd.Env = append(cmd.Env, "OUT="+out)
	cmd.Args = append(cmd.Args, "user.sh", "a b", "")
	text, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the task failed: %v\n%s", err, text)
	}
	if string(text) != "user.sh a b \n" {
		t.Errorf("the script's parameters printed %q, want %q", text, "user.sh a b \n")
	}
	raw, err := os.ReadFile(filepath.Join(out, "env"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "PWD", "OLDPWD", "SHLVL", "_", "OUT", "SLURM_PROCID", "SLURMD_NODENAME":
			continue
		}
		got[k] = v
	}
	want, err := contract.Eval(job, inShellTopo(job), jobs.TaskRef{Role: "r", Index: 1}, inShellOpts(job))
	if err != nil {
		t.Fatal(err)
	}
	wantMap := want.Map()
	for _, e := range own {
		wantMap[e.Name] = e.Value
	}
	wantMap["CUDA_VISIBLE_DEVICES"] = ""
	if wd := got[contract.WorkDirVar]; wd != dir {
		t.Errorf("PAI_WORK_DIR=%q, want the task's directory %q", wd, dir)
	}
	delete(got, contract.WorkDirVar)
	if diff := cmp.Diff(wantMap, got); diff != "" {
		t.Errorf("the task's environment (-oracle +task):\n%s", diff)
	}
	set, err := os.ReadFile(filepath.Join(out, "set"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(set)) {
		if strings.HasPrefix(line, "declare -f") || strings.HasPrefix(line, "_k_") || strings.HasPrefix(line, "_js") ||
			strings.HasPrefix(line, "JS_") || strings.HasPrefix(line, "_shm=") || strings.HasPrefix(line, "BASH_ENV=") {
			t.Errorf("jobshift left %q in the user's shell", strings.TrimSpace(line))
		}
	}
}

// inShellJob is a PAI-contract job of one gang role "r" of 2 tasks whose
// command is bash -c script, with the role's own variables env.
func inShellJob(script string, env []jobs.EnvVar) *jobs.Job {
	return &jobs.Job{Name: "insh", Contracts: []string{jobs.ContractPAI}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Retry: jobs.Retry{GangAllocation: true},
		Roles: []*jobs.Role{{Name: "r", Instances: 2, Env: env, Ports: []jobs.Port{{Label: "http", Count: 2}, {Label: "ssh", Count: 1}},
			Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"bash", "-c", script}}}}}
}

// shellStages is the contract of job in the two stages the batch script
// runs (render: contract.Compile, then ShellStages).
func shellStages(t *testing.T, job *jobs.Job, opts contract.Options) contract.ShellStages {
	t.Helper()
	cc, err := contract.Compile(job, opts)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := cc.ShellStages()
	if err != nil {
		t.Fatal(err)
	}
	return stages
}

// inShellOpts are the contract options of inShellJob's tests.
func inShellOpts(job *jobs.Job) contract.Options {
	return contract.Options{User: "alice", Contracts: job.Contracts}
}

// inShellTopo: every task of job on 127.0.0.1, consecutive ports from 20000.
func inShellTopo(job *jobs.Job) contract.Topology {
	return contracttest.Local(job, inShellOpts(job), "127.0.0.1", 20000)
}

// inShellTask prepares the attempt directory dir as js_main would for
// job's role 0 (its in-shell program, nodes.sh putting every task on n1,
// the shared stage's env.sh for inShellTopo, env.ok) and returns the
// command srun would run for task index (its argv without the script's
// own parameters), in dir.
func inShellTask(t *testing.T, dir string, job *jobs.Job, index int) *exec.Cmd {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := inShellOpts(job)
	stages := shellStages(t, job, opts)
	ri := roleInfo{Role: job.Roles[0], k: 0, res: res{CPUs: 1}}
	progs, err := inShellPrograms([]roleInfo{ri}, []bool{true}, stages, contractVars(stages))
	if err != nil {
		t.Fatal(err)
	}
	// the shared stage's inputs, as js_contract_inputs sets them
	var in strings.Builder
	topo := inShellTopo(job)
	fmt.Fprintf(&in, "JS_NROLES=%d\n", len(topo.Roles))
	for k, rt := range topo.Roles {
		fmt.Fprintf(&in, "JS_R%d_N=%d\n", k, len(rt.Tasks))
		for i, tt := range rt.Tasks {
			fmt.Fprintf(&in, "JS_R%d_ADDR_%d=%s\n", k, i, tt.Addr)
			for l, p := range contract.PortLabels(job, k, opts) {
				var ps []string
				for _, n := range tt.Ports[p.Label] {
					ps = append(ps, fmt.Sprint(n))
				}
				fmt.Fprintf(&in, "JS_R%d_PORT_%d_%d=%s\n", k, l, i, strings.Join(ps, ","))
			}
		}
	}
	in.WriteString(stages.Shared)
	env, err := exec.Command("sh", "-c", in.String()).Output()
	if err != nil {
		t.Fatalf("shared stage: %v", err)
	}
	files := map[string]string{"insh.0.sh": progs[0], "env.sh": string(env), "env.ok": "",
		"nodes.sh": "_jsh_want_0() {\n_k_want=n1\n}\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", job.Roles[0].Command.Command[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "BASH_ENV=$_jsh_adir/insh.$_jsh_ir.sh", "_jsh_adir=" + dir,
		"_jsh_ir=0", fmt.Sprintf("SLURM_PROCID=%d", index), "SLURMD_NODENAME=n1"}
	return cmd
}

// TestWaitShared runs the stage's wait for the shared environment, in
// both shells a task's stage runs in: it must not return before env.ok
// exists (the batch script starts the steps before it writes env.sh), and
// must return once it does.
func TestWaitShared(t *testing.T) {
	for _, shell := range []string{"bash", "dash"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("no %s", shell)
			continue
		}
		t.Run(shell, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), `a dir 'with' $(quotes)`)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			// the stage records whether env.ok was there when the wait ended
			script := stripComments(shStage) + `_k_dir=$1
js_wait_shared
[ -f "$_k_dir/env.ok" ] && echo after
`
			cmd := exec.Command(path, "-c", script, shell, dir)
			var out strings.Builder
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				t.Fatalf("the wait ended without env.ok (%v, %q)", err, out.String())
			case <-time.After(300 * time.Millisecond):
			}
			if err := os.WriteFile(filepath.Join(dir, "env.ok"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil || out.String() != "after\n" {
					t.Fatalf("the wait ended with %v, output %q; want success and %q", err, out.String(), "after\n")
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the wait did not end once env.ok existed")
			}
		})
	}
}
