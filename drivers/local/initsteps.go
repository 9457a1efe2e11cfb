package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jobshift/jobshift/jobs"
)

// Init containers (jobs.Role.Init) run inside the task, before its command,
// as the kubelet ran them: in order, each to success, each with its own
// command and environment, in the task's working directory (a workingDir
// of its own when it exists here). The task's process is a small runner,
// this binary again (argv[1] = initRunnerArg), which runs the steps as
// children in the task's process group (a stop reaches them), then execs
// the task's own program, which so keeps the runner's pid. A failing step
// ends the task with the step's exit code, and the completion machine
// applies the role's restart policy, as the kubelet's: with Never the pod
// fails; with OnFailure/Always the kubelet restarts the failed init
// container, not the ones that succeeded (kubernetes/website
// content/en/docs/concepts/workloads/pods/init-containers.md, "Detailed
// behavior"; kubelet pkg/kubelet/kuberuntime/kuberuntime_manager.go,
// computePodActions). So a step that succeeded in this attempt leaves a
// marker and is not run again by an in-place restart; a new attempt (a new
// pod) runs them all again.
const initRunnerArg = "jobshift-task-init-runner"

// ErrInitDocker: init containers do not run with -docker yet.
var ErrInitDocker = errors.New("init containers not available with -docker")

func init() {
	if len(os.Args) > 2 && os.Args[1] == initRunnerArg {
		os.Exit(initMain(os.Args[2:]))
	}
}

// initPlan is what the runner reads: the steps and where their markers go.
type initPlan struct {
	Steps []initProc `json:"steps"`
	// Done is the marker prefix: step k leaves Done-k.done once it succeeded.
	Done string `json:"done"`
}

// initProc is one init step as a process.
type initProc struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir,omitempty"`
}

// initPlanOf builds the plan for a task of r; base is the environment the
// task's own starts from (an init container gets only its own env on top,
// not the contract: the operators set their variables on the pod's
// containers). nil when r has no init steps.
func initPlanOf(r *jobs.Role, base []string, firstStart string) (*initPlan, error) {
	if len(r.Init) == 0 {
		return nil, nil
	}
	p := &initPlan{Done: filepath.Join(firstStart, "init")}
	for _, st := range r.Init {
		argv := append(append([]string(nil), st.Command.Command...), st.Command.Args...)
		if len(st.Command.Command) == 0 {
			return nil, refuse(ErrNoEntrypoint, st.Command.Pos, "No command", "Role %q: the init container %q has no `command`, so it runs the ENTRYPOINT of image %q, "+
				"which jobshift cannot know without running the image; add `command:` to it.", r.Name, st.Name, st.Image)
		}
		var added []envVar
		for _, e := range st.Env {
			added = append(added, envVar{Name: e.Name, Value: e.Value})
		}
		env := mergeEnv(base, added)
		argv[0] = lookPath(argv[0], env)
		dir := ""
		if st.WorkingDir != "" {
			if fi, err := os.Stat(st.WorkingDir); err == nil && fi.IsDir() {
				dir = st.WorkingDir
			}
		}
		p.Steps = append(p.Steps, initProc{Name: st.Name, Argv: argv, Env: env, Dir: dir})
	}
	return p, nil
}

// wrap writes the plan into the start directory (0600: env values may be
// secret) and returns argv run through the runner.
func (p *initPlan) wrap(argv []string, dir string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("init containers: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "init.json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("writing the init containers' plan: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing the init containers' plan: %w", err)
	}
	return append([]string{exe, initRunnerArg, path, "--"}, argv...), nil
}

// initMain is the runner: args are the plan file, "--", the task's argv.
func initMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintf(os.Stderr, "%s: internal use by jobshift's local driver only\n", initRunnerArg)
		return 2
	}
	b, err := os.ReadFile(args[0])
	var p initPlan
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	// Read once: the plan may hold a Secret's values, which live on disk
	// only until the runner has them.
	_ = os.Remove(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobshift: init containers: %v\n", err)
		return exitStartFailed
	}
	for k, st := range p.Steps {
		marker := fmt.Sprintf("%s-%d.done", p.Done, k)
		if _, err := os.Stat(marker); err == nil {
			continue // succeeded earlier in this attempt
		}
		if code := runInitStep(st); code != 0 {
			fmt.Fprintf(os.Stderr, "jobshift: init container %q exited %d; the main container does not start\n", st.Name, code)
			return code
		}
		_ = os.WriteFile(marker, nil, 0o644)
	}
	main := args[2:]
	err = syscall.Exec(main[0], main, os.Environ())
	fmt.Fprintf(os.Stderr, "jobshift: cannot start task: %v\n", err)
	return exitStartFailed
}

// runInitStep runs one step to its end, in the runner's process group.
func runInitStep(st initProc) int {
	if len(st.Argv) == 0 {
		return exitStartFailed
	}
	cmd := &exec.Cmd{Path: st.Argv[0], Args: st.Argv, Env: st.Env, Dir: st.Dir, Stdout: os.Stdout, Stderr: os.Stderr}
	if !strings.Contains(st.Argv[0], "/") {
		fmt.Fprintf(os.Stderr, "jobshift: init container %q: %s: command not found\n", st.Name, st.Argv[0])
		return exitStartFailed
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "jobshift: init container %q: %v\n", st.Name, err)
		return exitStartFailed
	}
	err := cmd.Wait()
	return exitCode(cmd.ProcessState, err)
}

// renderInit shows the init steps of a task: their command lines and the
// variables each adds (never a secret's value).
func renderInit(b *bytes.Buffer, r *jobs.Role, p *initPlan) {
	if p == nil {
		return
	}
	for k, st := range p.Steps {
		fmt.Fprintf(b, "  init container %d %s (runs before the command, to success; image not run):\n", k+1, shellQuote(st.Name))
		fmt.Fprintf(b, "    command: %s\n", shellJoin(st.Argv))
		for _, e := range r.Init[k].Env {
			fmt.Fprintf(b, "    env %s=%s\n", e.Name, shownValue(e.Value, e.Secret))
		}
	}
}

// shownValue is a variable's value as Render shows it: a Secret's is
// replaced by a note.
func shownValue(v string, secret bool) string {
	if secret {
		return "(from a Secret; value not shown)"
	}
	return shellQuote(v)
}
