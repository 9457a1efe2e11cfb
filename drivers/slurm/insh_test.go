package slurm

import (
	"encoding/hex"
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

// TestStageLocals: every variable sh/stage.sh assigns is either one of
// the in-shell stage's locals (stageLocals) or one it sets for the task on
// purpose; a new scratch variable not in the list would be left in the
// user's bash.
func TestStageLocals(t *testing.T) {
	forTask := map[string]bool{"CUDA_VISIBLE_DEVICES": true, "JS_SELF_ROLE": true, "JS_SELF_INDEX": true, "JS_SHARED": true}
	// NAME= and printf -v NAME
	assign := regexp.MustCompile(`(?m)(?:(?:^|[\s;({"])([A-Za-z_][A-Za-z0-9_]*)=|printf -v ([A-Za-z_][A-Za-z0-9_]*))`)
	var stray []string
	var code strings.Builder
	for line := range strings.Lines(stripComments(shStage)) {
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
		t.Fatalf("sh/stage.sh assigns %v, neither in stageLocals nor set for the task", stray)
	}
	// and the list names no variable the stage does not assign
	for _, name := range stageLocals {
		if !assigned[name] {
			t.Errorf("stageLocals names %s, which sh/stage.sh never assigns", name)
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
// traps (sh/stage.sh js_stop_traps), ends by SIGTERM when a stop was
// asked for (the role's stopped file exists) even if only its command got
// the signal and the script ran to its end (the race that left a stopped
// step FAILED in sacct), and with its command's own status otherwise; the
// attempt directory's path may hold any character.
func TestStopTraps(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
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
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.stopped {
				os.WriteFile(filepath.Join(dir, "stopped.1"), []byte("stopped\n"), 0o644)
			}
			// the command kills itself with SIGTERM: bash gets no signal
			script := stripComments(shStage) + `_k_dir=$1 _k_r=1
js_stop_traps
sh -c 'kill -TERM $$'
`
			err := exec.Command(bash, "-c", script, "bash", dir).Run()
			got := "exit status 0"
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("bash ended with %q, want %q", got, tc.want)
			}
		})
	}
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
