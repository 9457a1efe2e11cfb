package contract_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// dumpVar makes the test binary print its environment and exit: the shell
// script execs it as the "user command".
const dumpVar = "JS_CONTRACT_TEST_DUMP"

func TestMain(m *testing.M) {
	if os.Getenv(dumpVar) == "1" {
		for _, kv := range os.Environ() {
			os.Stdout.WriteString(kv + "\x00")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// ShellInput is the Shell input environment for topo and task self.
func shellInput(job *jobs.Job, topo contract.Topology, opts contract.Options, role, index int, proc string) []string {
	env := []string{"JS_NROLES=" + strconv.Itoa(len(topo.Roles)),
		"JS_SELF_ROLE=" + strconv.Itoa(role), "JS_SELF_INDEX=" + strconv.Itoa(index), "JS_SELF_PROCESS=" + proc}
	for k, rt := range topo.Roles {
		env = append(env, fmt.Sprintf("JS_R%d_N=%d", k, len(rt.Tasks)))
		for i, t := range rt.Tasks {
			env = append(env, fmt.Sprintf("JS_R%d_ADDR_%d=%s", k, i, t.Addr))
			if contract.UsesNode(job) {
				env = append(env, fmt.Sprintf("JS_R%d_NODE_%d=%s", k, i, t.Node), fmt.Sprintf("JS_R%d_HOSTIP_%d=%s", k, i, t.NodeAddr))
			}
			for l, p := range contract.PortLabels(job, k, opts) {
				var ps []string
				for _, n := range t.Ports[p.Label] {
					ps = append(ps, strconv.Itoa(n))
				}
				env = append(env, fmt.Sprintf("JS_R%d_PORT_%d_%d=%s", k, l, i, strings.Join(ps, ",")))
			}
		}
	}
	if topo.MPIDir != "" {
		env = append(env, "JS_MPI_DIR="+topo.MPIDir)
	}
	return env
}

// runShell runs script under sh with env and returns the environment the
// user command saw, without what the shell itself adds.
func runShell(t *testing.T, sh, script string, env []string) (map[string]string, string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "contract.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, path, self)
	cmd.Dir = dir
	cmd.Env = append([]string{dumpVar + "=1", "PATH=" + os.Getenv("PATH")}, env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), err
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case dumpVar, "PATH", "PWD", "OLDPWD", "SHLVL", "_":
			continue
		}
		got[k] = v
	}
	if wd, ok := got[contract.WorkDirVar]; ok {
		if real, _ := filepath.EvalSymlinks(dir); wd != dir && wd != real {
			t.Errorf("PAI_WORK_DIR=%q, want the task's directory %q", wd, dir)
		}
		delete(got, contract.WorkDirVar)
	}
	return got, stderr.String(), nil
}

func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"dash", "bash"} {
		if p, err := exec.LookPath(sh); err == nil {
			out = append(out, p)
		} else if os.Getenv("CI") == "true" {
			t.Fatalf("%s is needed for the shell differential test", sh)
		}
	}
	if len(out) == 0 {
		t.Skip("neither dash nor bash on PATH")
	}
	return out
}

// TestShellMatchesOracle runs the shell rendering of hundreds of random jobs
// under dash and bash and compares the environment the user command sees
// with the oracle's.
func TestShellMatchesOracle(t *testing.T) {
	shs := shells(t)
	cases := 300
	if testing.Short() {
		cases = 40
	}
	for n := range cases {
		c := contracttest.Random(1, n)
		script, err := contract.Shell(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %s: Shell: %v", c.Name, err)
		}
		// The first and last task of a random role (both processes for UAI).
		k := n % len(c.Job.Roles)
		for c.Job.Roles[k].Instances == 0 {
			k = (k + 1) % len(c.Job.Roles)
		}
		for _, i := range []int{0, c.Job.Roles[k].Instances - 1} {
			opts := c.Opts
			want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: c.Job.Roles[k].Name, Index: i}, opts)
			if err != nil {
				t.Fatalf("case %s: Eval: %v", c.Name, err)
			}
			input := shellInput(c.Job, c.Topo, c.Opts, k, i, opts.Process)
			for _, sh := range shs {
				got, stderr, err := runShell(t, sh, script, input)
				if err != nil {
					t.Fatalf("case %s task %d-%d under %s: %v\n%s", c.Name, k, i, sh, err, stderr)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %s task %d-%d under %s (-oracle +shell):\n%s", c.Name, k, i, sh, diff)
				}
			}
			if i == 0 && c.Job.Roles[k].Instances == 1 {
				break
			}
		}
	}
}

// TestShellStagesMatchOracle runs the two stages as Slurm does (the shared
// stage once, sourced in a subshell that sees unexported variables, into a
// fragment; the task stage per task with only JS_SELF_* and JS_SHARED in
// its environment, run, sourced with -f and with -r; and each role's part
// of it, Roles, as a program of its own, as Slurm's in-shell stage runs it)
// on random jobs, hostile MPI directories included, and compares every
// task's environment with the oracle's.
func TestShellStagesMatchOracle(t *testing.T) {
	shs := shells(t)
	cases := 120
	if testing.Short() {
		cases = 20
	}
	for n := range cases {
		c := contracttest.Random(3, n)
		if n%7 == 6 { // an MPIJob: the directory named at run time
			c.Opts.MPIDirRunTime = true
			c.Topo.MPIDir = "/" + contracttest.Hostile[n%len(contracttest.Hostile)]
		}
		cj, err := contract.Compile(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %s: Compile: %v", c.Name, err)
		}
		st, err := cj.ShellStages()
		if err != nil {
			t.Fatalf("case %s: ShellStages: %v", c.Name, err)
		}
		if len(st.Roles) != len(c.Job.Roles) {
			t.Fatalf("case %s: %d role stages for %d roles", c.Name, len(st.Roles), len(c.Job.Roles))
		}
		for _, sh := range shs {
			frag := runShared(t, sh, st.Shared, shellInput(c.Job, c.Topo, c.Opts, 0, 0, ""))
			for k, r := range c.Job.Roles {
				if r.Instances == 0 {
					continue
				}
				for _, i := range []int{0, r.Instances - 1} {
					want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: r.Name, Index: i}, c.Opts)
					if err != nil {
						t.Fatalf("case %s: Eval: %v", c.Name, err)
					}
					input := []string{"JS_SELF_ROLE=" + strconv.Itoa(k), "JS_SELF_INDEX=" + strconv.Itoa(i),
						"JS_SELF_PROCESS=" + c.Opts.Process, "JS_SHARED=" + frag}
					got, stderr, err := runShell(t, sh, st.Task, input)
					if err != nil {
						t.Fatalf("case %s task %d-%d under %s: %v\n%s", c.Name, k, i, sh, err, stderr)
					}
					if diff := cmp.Diff(want.Map(), got); diff != "" {
						t.Fatalf("case %s task %d-%d under %s (-oracle +stages):\n%s", c.Name, k, i, sh, diff)
					}
					got, stderr, err = runShell(t, sh, sourceWithFunction+st.Task, input)
					if err != nil {
						t.Fatalf("case %s task %d-%d under %s, sourced with -f: %v\n%s", c.Name, k, i, sh, err, stderr)
					}
					if diff := cmp.Diff(want.Map(), got); diff != "" {
						t.Fatalf("case %s task %d-%d under %s, sourced with -f (-oracle +stages):\n%s", c.Name, k, i, sh, diff)
					}
					got, stderr, err = runShell(t, sh, sourceReturning(st.Task), input)
					if err != nil {
						t.Fatalf("case %s task %d-%d under %s, sourced with -r: %v\n%s", c.Name, k, i, sh, err, stderr)
					}
					if diff := cmp.Diff(want.Map(), got); diff != "" {
						t.Fatalf("case %s task %d-%d under %s, sourced with -r (-oracle +stages):\n%s", c.Name, k, i, sh, diff)
					}
					if c.Opts.Process != contract.ProcessMain {
						continue // Roles holds the main process's arms only
					}
					got, stderr, err = runShell(t, sh, roleProgram(st, k, i, frag), nil)
					if err != nil {
						t.Fatalf("case %s task %d-%d under %s, role stage: %v\n%s", c.Name, k, i, sh, err, stderr)
					}
					if diff := cmp.Diff(want.Map(), got); diff != "" {
						t.Fatalf("case %s task %d-%d under %s, role stage (-oracle +stages):\n%s", c.Name, k, i, sh, diff)
					}
				}
			}
		}
	}
}

// roleProgram is role k's stage as a program for task i: its inputs as
// plain shell variables, the fragment at frag, then the utility ($1).
func roleProgram(st contract.ShellStages, k, i int, frag string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "_t_util=$1\nJS_SELF_INDEX=%d\n", i)
	b.WriteString("_js_die() { printf 'jobshift contract: %s\\n' \"$1\" >&2; exit 2; }\n")
	fmt.Fprintf(&b, ". '%s'\n", strings.ReplaceAll(frag, "'", `'\''`))
	b.WriteString(st.Roles[k].Body)
	b.WriteString(st.WorkDir)
	b.WriteString("exec env --")
	for _, o := range st.Roles[k].Odd {
		fmt.Fprintf(&b, " \"$%s\"", o)
	}
	b.WriteString(" \"$_t_util\"\n")
	return b.String()
}

// sourceWithFunction, put before the task stage, runs it as a sourcing
// shell does (Slurm's supervisor): -f and a function of that shell, which
// execs the utility itself, through env when the stage passes it names
// only env can place. The utility (runShell's $1) is kept in a plain
// variable first, as the sourcing shell's own state would be.
const sourceWithFunction = `_t_util=$1
_t_then() {
	if [ "$#" -gt 0 ]; then exec env -- "$@" "$_t_util"; fi
	exec "$_t_util"
}
set -- -f _t_then
`

// sourceReturning runs the task stage as a bash does from BASH_ENV (Slurm,
// a role that never restarts in place): in a function of the sourcing
// shell, with -r and a function that returns; the shell then goes on with
// its own positional parameters untouched and runs the utility itself.
// Exit 8 or 9 says the stage did not return, or took the parameters.
func sourceReturning(stage string) string {
	return `_t_util=$1
_t_ran=
_t_then() {
	if [ "$#" -gt 0 ]; then exec env -- "$@" "$_t_util"; fi
	_t_ran=1
}
_t_stage() {
` + stage + `
}
_t_stage -r _t_then
[ "$_t_ran" = 1 ] || exit 9
[ "$#" = 1 ] && [ "$1" = "$_t_util" ] || exit 8
unset _t_ran _t_util
exec "$1"
`
}

// runShared sources the shared stage in a subshell, its input as plain
// (unexported) shell variables, and returns the fragment's path.
func runShared(t *testing.T, sh, script string, input []string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var set strings.Builder
	for _, kv := range input {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "JS_SELF_") {
			continue
		}
		fmt.Fprintf(&set, "%s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	set.WriteString(`( . "$1" ) >"$2"` + "\n")
	frag := filepath.Join(dir, "fragment.sh")
	cmd := exec.Command(sh, "-c", set.String(), "sh", path, frag)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shared stage under %s: %v\n%s", sh, err, out)
	}
	return frag
}

// TestShellMPIDirRunTime: an MPIJob whose directory the target names only
// at run time (Slurm: Options.MPIDirRunTime, JS_MPI_DIR) gets the same
// environment from the shell as from the oracle, hostile directory names
// included; the rendered script does not depend on the directory; a
// missing or relative JS_MPI_DIR stops the task.
func TestShellMPIDirRunTime(t *testing.T) {
	shs := shells(t)
	// Random's case 6 (mod 7) is an MPIJob.
	for n, found := 6, 0; found < 6; n += 7 {
		c := contracttest.Random(11, n)
		found++
		c.Opts.MPIDirRunTime = true
		c.Opts.MPIDir = "/ignored"
		c.Topo.MPIDir = "/" + contracttest.Hostile[n%len(contracttest.Hostile)]
		script, err := contract.Shell(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %d: Shell: %v", n, err)
		}
		if strings.Contains(script, "/ignored") || strings.Contains(script, c.Topo.MPIDir) {
			t.Fatalf("case %d: the script names a directory; it must come from JS_MPI_DIR", n)
		}
		for k, r := range c.Job.Roles {
			want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: r.Name, Index: 0}, c.Opts)
			if err != nil {
				t.Fatalf("case %d: Eval: %v", n, err)
			}
			if v, ok := want.Lookup(contract.MPIDirVar); c.Opts.SSH && (!ok || v != c.Topo.MPIDir) {
				t.Fatalf("case %d: oracle %s=%q, want %q", n, contract.MPIDirVar, v, c.Topo.MPIDir)
			}
			for _, sh := range shs {
				got, stderr, err := runShell(t, sh, script, shellInput(c.Job, c.Topo, c.Opts, k, 0, ""))
				if err != nil {
					t.Fatalf("case %d role %d under %s: %v\n%s", n, k, sh, err, stderr)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %d role %d under %s (-oracle +shell):\n%s", n, k, sh, diff)
				}
			}
		}
	}
	c := contracttest.Random(11, 6)
	c.Opts.MPIDirRunTime = true
	c.Topo.MPIDir = "/run/x"
	script, err := contract.Shell(c.Job, c.Opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"relative": "run/x", "empty": ""} {
		c.Topo.MPIDir = dir
		env := shellInput(c.Job, c.Topo, c.Opts, 0, 0, "")
		for _, sh := range shs {
			_, stderr, err := runShell(t, sh, script, env)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr, "JS_MPI_DIR") {
				t.Errorf("%s JS_MPI_DIR under %s: err %v, stderr %q; want exit 2 naming JS_MPI_DIR", name, sh, err, stderr)
			}
		}
	}
	if _, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: c.Job.Roles[0].Name}, c.Opts); !errors.Is(err, contract.ErrTopology) {
		t.Errorf("Eval with an empty run-time MPI directory: err %v, want ErrTopology", err)
	}
	if _, err := contract.NomadTemplate(c.Job, c.Job.Roles[0].Name, "j", c.Opts); !errors.Is(err, contract.ErrTarget) {
		t.Errorf("NomadTemplate with a run-time MPI directory: err %v, want ErrTarget", err)
	}
}

// TestShellRejectsBadInput: wrong or hostile input never reaches the user
// command.
func TestShellRejectsBadInput(t *testing.T) {
	shs := shells(t)
	c := contracttest.Random(7, 0)
	script, err := contract.Shell(c.Job, c.Opts)
	if err != nil {
		t.Fatal(err)
	}
	good := shellInput(c.Job, c.Topo, c.Opts, 0, 0, "")
	set := func(name, value string) []string {
		out := []string{name + "=" + value}
		for _, kv := range good {
			if !strings.HasPrefix(kv, name+"=") {
				out = append(out, kv)
			}
		}
		return out
	}
	drop := func(name string) []string {
		var out []string
		for _, kv := range good {
			if !strings.HasPrefix(kv, name+"=") {
				out = append(out, kv)
			}
		}
		return out
	}
	tests := map[string][]string{
		"address with $(...)":   set("JS_R0_ADDR_0", "$(touch pwned)"),
		"address with a quote":  set("JS_R0_ADDR_0", "1.2.3.4'"),
		"missing address":       drop("JS_R0_ADDR_0"),
		"port out of range":     set("JS_R0_PORT_0_0", "70000"),
		"port with leading 0":   set("JS_R0_PORT_0_0", "080"),
		"port list with space":  set("JS_R0_PORT_0_0", "1, 2"),
		"wrong role count":      set("JS_NROLES", "9"),
		"index out of range":    set("JS_SELF_INDEX", "99"),
		"index not a number":    set("JS_SELF_INDEX", "0;id"),
		"role not a number":     set("JS_SELF_ROLE", "x"),
		"unknown process":       set("JS_SELF_PROCESS", "ps;id"),
		"wrong instance number": set("JS_R0_N", "0"),
	}
	for name, env := range tests {
		for _, sh := range shs {
			_, stderr, err := runShell(t, sh, script, env)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr, "jobshift contract:") {
				t.Errorf("%s under %s: err %v, stderr %q; want exit 2 with a message", name, sh, err, stderr)
			}
		}
	}
}

// TestShellcheck: the generated script is clean POSIX sh for shellcheck
// (with the four checks the prelude disables on purpose).
func TestShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is needed")
		}
		t.Skip("no shellcheck")
	}
	ns := []int{0, 1, 2, 3, 4, 5}
	if testing.Short() {
		ns = []int{2, 3}
	}
	for _, n := range ns {
		c := contracttest.Random(5, n)
		script, err := contract.Shell(c.Job, c.Opts)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "contract.sh")
		if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(sc, "-s", "sh", path).CombinedOutput(); err != nil {
			t.Errorf("case %s: shellcheck: %v\n%s", c.Name, err, out)
		}
	}
}

// FuzzShellValues: whatever user, job name and virtual cluster a job has,
// the shell rendering (under dash) delivers them byte for byte or the
// contract rejects them up front.
func FuzzShellValues(f *testing.F) {
	dash, err := exec.LookPath("dash")
	if err != nil {
		f.Skip("no dash")
	}
	for _, h := range contracttest.Hostile {
		f.Add("alice", h, h)
		f.Add(h, "job", "")
	}
	f.Fuzz(func(t *testing.T, user, name, vc string) {
		j := &jobs.Job{Name: name, VirtualCluster: vc, Contracts: []string{jobs.ContractPAI, jobs.ContractPAIYarn},
			OutputDir: name + "/$PAI_USER_NAME",
			Roles:     []*jobs.Role{{Name: "w~1", Instances: 2, Ports: []jobs.Port{{Label: "ssh", Count: 1}, {Label: "http", Count: 1}}}}}
		opts := contract.Options{User: user}
		topo := contract.SampleTopologyFor(j, opts)
		want, err := contract.Eval(j, topo, jobs.TaskRef{Role: "w~1", Index: 1}, opts)
		if errors.Is(err, contract.ErrJob) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		script, err := contract.Shell(j, opts)
		if err != nil {
			t.Fatalf("Eval accepted what Shell rejects: %v", err)
		}
		got, stderr, err := runShell(t, dash, script, shellInput(j, topo, opts, 0, 1, ""))
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if diff := cmp.Diff(want.Map(), got); diff != "" {
			t.Fatalf("(-oracle +shell):\n%s", diff)
		}
	})
}

// TestWorkDirExport: the export gives PAI_WORK_DIR what `pwd` printed on
// PAI (the shell's logical working directory) without starting a process
// where $PWD is that directory, and still the directory where a script
// assigned PWD something else. Expected values are the directories the
// test made, not the line's output.
func TestWorkDirExport(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	if err := os.Mkdir(realDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realDir, link); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ cd, pre, want string }{
		"plain":            {cd: realDir, want: realDir},
		"through a link":   {cd: link, want: link},
		"PWD reassigned":   {cd: realDir, pre: "PWD=" + dir + "\n", want: realDir},
		"PWD not absolute": {cd: realDir, pre: "PWD=real\n", want: realDir},
		"PWD unset":        {cd: realDir, pre: "unset PWD\n", want: realDir},
	}
	for _, sh := range shells(t) {
		for name, tc := range cases {
			t.Run(filepath.Base(sh)+"/"+name, func(t *testing.T) {
				// cd in the shell itself: PWD is then the logical path
				script := "cd " + tc.cd + " || exit 9\n" + tc.pre + contract.WorkDirExport + "printf '%s' \"$PAI_WORK_DIR\"\n"
				out, err := exec.Command(sh, "-c", script).Output()
				if err != nil {
					t.Fatalf("%v", err)
				}
				if string(out) != tc.want {
					t.Errorf("PAI_WORK_DIR = %q, want %q", out, tc.want)
				}
			})
		}
	}
}

// TestShellPaddleFirstOnly: PaddleJob's POD_IP_DUMMY, which only the
// rendezvous task had (pkg/controller.v1/paddlepaddle/envvar.go setPodEnv
// @v1.9.0: rank 0 of the Worker in collective mode, Master 0 in
// parameter-server mode), is exported by the shell rendering for that task
// alone, with the task's own address.
func TestShellPaddleFirstOnly(t *testing.T) {
	shs := shells(t)
	port := []jobs.Port{{Label: "master", Count: 1, Implicit: true, Number: 36543}}
	for _, ps := range []bool{false, true} {
		j := &jobs.Job{Name: "pd", Source: jobs.Source{Format: jobs.FormatPaddleJob}, Contracts: []string{jobs.ContractPaddle},
			Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 2, Ports: port}}}
		topo := contract.Topology{Roles: []contract.RoleTopology{{Name: "worker", Tasks: []contract.TaskTopology{
			{Addr: "10.0.0.1", Ports: map[string][]int{"master": {30000}}}, {Addr: "10.0.0.2", Ports: map[string][]int{"master": {30001}}}}}}}
		rendezvous := "worker"
		if ps {
			j.Roles = append(j.Roles, &jobs.Role{Name: "master", ReplicaType: "master", Instances: 2, Ports: port})
			topo.Roles = append(topo.Roles, contract.RoleTopology{Name: "master", Tasks: []contract.TaskTopology{
				{Addr: "10.0.0.3", Ports: map[string][]int{"master": {30002}}}, {Addr: "10.0.0.4", Ports: map[string][]int{"master": {30003}}}}})
			rendezvous = "master"
		}
		script, err := contract.Shell(j, contract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range j.Roles {
			for i := range r.Instances {
				want := ""
				if r.Name == rendezvous && i == 0 {
					want = topo.Roles[k].Tasks[0].Addr
				}
				for _, sh := range shs {
					got, stderr, err := runShell(t, sh, script, shellInput(j, topo, contract.Options{}, k, i, ""))
					if err != nil {
						t.Fatalf("%s-%d under %s: %v\n%s", r.Name, i, sh, err, stderr)
					}
					if v, ok := got["POD_IP_DUMMY"]; v != want || ok != (want != "") {
						t.Errorf("parameter-server %v, %s-%d under %s: POD_IP_DUMMY = %q (set %v), want %q", ps, r.Name, i, sh, v, ok, want)
					}
				}
			}
		}
	}
}
