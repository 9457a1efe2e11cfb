package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// ErrNoEntrypoint: a Kubeflow container without `command` relies on its
// image's ENTRYPOINT, which is unknown when the image is not run.
var ErrNoEntrypoint = errors.New("no command and no image entrypoint")

// ErrCommandKind: the job's command kind is not one the local driver knows.
var ErrCommandKind = errors.New("unknown command kind")

// envVar is one variable jobshift gives a task on top of its environment.
type envVar struct {
	Name, Value string
	// kv is "Name=Value" when it was built once for every task that
	// shares the variable ("" = build it): the OpenPAI contract gives
	// every task every task's addresses and ports, N variables per
	// task, which a job of N tasks would otherwise concatenate N² times.
	kv string
	// secret: the value comes from a Kubernetes Secret; Render shows
	// the name only.
	secret bool
}

// taskSpec is everything needed to start one task, computed without side
// effects so that Render can show exactly what Submit runs.
type taskSpec struct {
	Ref jobs.TaskRef
	// Process is contract.ProcessMain for the task's own process, or
	// contract.ProcessPS for a UAI node's parameter-server process.
	Process string
	// PS is the parameter-server process that runs beside this task for
	// the whole attempt (uai contract, contract.Processes), else nil.
	PS *taskSpec
	// Argv is the program and its arguments; Argv[0] is resolved against
	// the task's PATH (not jobshift's: a test or user may differ).
	Argv []string
	// Added is what jobshift sets: the role's env, the contract, and the
	// PAI working-dir variable, in the order applied (later wins).
	Added []envVar
	// Env is the full environment: the base environment with Added on top.
	Env []string
	// Dir is the working directory: without -docker the task's private
	// directory (privateDir), a view of Shared (workdir.go).
	Dir string
	// Shared is the directory whose files the private one shows: the
	// invocation directory, or a Kubeflow workingDir that exists here.
	// Empty with -docker (the container has its own file system).
	Shared string
	// Work is how the private directory is made (set when an attempt
	// starts; Render leaves it empty).
	Work workMode
	// TaskDir keeps the task's output files and is its scratch space.
	TaskDir string
	// Container is the docker container name (-docker only).
	Container string
	// Mounts are the docker arguments that mount the role's volumes
	// (-docker only; dockerMounts); Dirs, their emptyDir directories,
	// made writable by every user before each start (makeEmptyDirs).
	Mounts []string
	Dirs   []string
	// Grace is the stop grace period, which the task's supervisor also
	// uses when jobshift is gone.
	Grace time.Duration
	// Program, when not nil, is the task's program as a file (a long
	// command, or a script with secrets filled in), written at each start.
	Program *programFile
	// View is the task's platform view (view.go); nil with -docker.
	View *taskView
	// Init, when not nil, are the role's init containers, run before
	// Argv by the runner (initsteps.go).
	Init *initPlan
}

// addedEnv is what the task's environment adds to the driver's: the
// role's env, the contract's variables, then jobshift's own.
func (d *Driver) addedEnv(r *jobs.Role, c *translate.Compiled, s *taskSpec, contractVars []envVar) []envVar {
	var out []envVar
	for _, e := range jobs.StaticEnv(r.Env) {
		out = append(out, envVar{Name: e.Name, Value: e.Value, secret: e.Secret})
	}
	out = append(out, contractVars...)
	if d.opts.Docker {
		return out
	}
	if c.WorkDir {
		// OpenPAI exports PAI_WORK_DIR=$(pwd) before the user command:
		// the task's private directory.
		out = append(out, envVar{Name: contract.WorkDirVar, Value: s.Dir})
	}
	// The task's own directory under the run directory, for programs
	// that want scratch space no other task shares (the working
	// directory is shared, like a code checkout). A container has no use
	// for a host path.
	return append(out, envVar{Name: "JOBSHIFT_TASK_DIR", Value: s.TaskDir})
}

// buildSpec computes one task's command line, environment and directories.
// process is the contract process (see taskSpec.Process).
func (d *Driver) buildSpec(p *translate.Plan, runDir string, attempt int, ref jobs.TaskRef, process string, contractVars []envVar, layouts *envLayouts) (*taskSpec, error) {
	job := p.Job
	r := job.Role(ref.Role)
	if r == nil {
		return nil, fmt.Errorf("task %s-%d: no such role", ref.Role, ref.Index)
	}
	s := &taskSpec{Ref: ref, Process: process, TaskDir: filepath.Join(runDir, fmt.Sprintf("%s-%d", pathPart(ref.Role), ref.Index)),
		Grace: d.opts.Grace}

	s.Dir = d.opts.Dir
	if !d.opts.Docker {
		s.Shared = d.opts.Dir
		if r.WorkingDir != "" {
			if fi, err := os.Stat(r.WorkingDir); err == nil && fi.IsDir() {
				s.Shared = r.WorkingDir
			}
		}
		// Each task had its own container file system: it works in a
		// private view of the shared directory.
		s.Dir = privateDir(s.TaskDir, attempt)
	}

	c := p.Compiled()
	s.Added = d.addedEnv(r, c, s, contractVars)
	k := slices.Index(job.Roles, r)
	rp := c.Roles[k]
	idle := !d.opts.Docker && rp.SSHIdle
	var userArgv []string
	if !idle { // an idle MPIJob worker runs only the emulation's sshd
		var err error
		if userArgv, err = commandArgv(r, rp.Launch, d.opts.Docker); err != nil {
			return nil, err
		}
	}
	firstStart := startDir(s.TaskDir, attempt, 0)
	if process != contract.ProcessMain {
		firstStart = psDir(s.TaskDir, attempt)
	}
	userArgv, s.Program = programArgv(r, rp.Launch, job.Secrets, userArgv, firstStart)
	if !d.opts.Docker && process == contract.ProcessMain {
		userArgv = sshWrap(rp, s, userArgv, runDir, attempt)
	}
	base := d.opts.Env
	if base == nil {
		base = os.Environ()
	}
	s.Env = layouts.merge(base, s.Added)
	if !d.opts.Docker && process == contract.ProcessMain {
		var err error
		if s.Init, err = initPlanOf(r, base, firstStart); err != nil {
			return nil, err
		}
	}
	defer func() {
		if s.Program != nil {
			s.Program.locate(s.Argv)
		}
	}()
	if d.opts.Docker {
		s.Container = containerName(job.Name, runDir, attempt, ref)
		if process != contract.ProcessMain {
			s.Container += "-" + process
		}
		var err error
		if s.Mounts, s.Dirs, err = dockerMounts(p, r, s.TaskDir); err != nil {
			return nil, err
		}
		s.Argv = dockerArgv(r, rp.Launch, s, userArgv)
		s.Argv[0] = lookPath(s.Argv[0], s.Env)
		return s, nil
	}
	if len(userArgv) > 0 {
		userArgv[0] = lookPath(userArgv[0], s.Env)
	}
	s.Argv = userArgv
	return s, nil
}

// commandArgv is the argv the source platform ran inside the container.
// An empty result means "the image's entrypoint" (docker only).
func commandArgv(r *jobs.Role, l translate.Launch, docker bool) ([]string, error) {
	c := r.Command
	switch c.Kind {
	case jobs.CommandEval, jobs.CommandBashScript:
		// translate.Launch: the line PAI ran; a v2 script's $0 names it
		// like OpenPAI's file, so bash reports "user.sh: line 3: ...".
		return append([]string(nil), l.Argv...), nil
	case jobs.CommandArgv:
		if l.Entrypoint {
			if docker {
				return append([]string(nil), l.Argv...), nil
			}
			return nil, refuse(ErrNoEntrypoint, c.Pos, "No command", "Role %q: the container has no `command`, so it runs the ENTRYPOINT of image %q, "+
				"which jobshift cannot know without running the image; add `command:` to the container, or run with -docker.", r.Name, r.Image)
		}
		return append([]string(nil), l.Argv...), nil
	default:
		return nil, refuse(ErrCommandKind, c.Pos, "Unknown command kind", "Role %q: unknown command kind %q.", r.Name, c.Kind)
	}
}

// name is the task, or for a second process "role-i/process", as output
// prefixes and messages show it.
func (s *taskSpec) name() string {
	if s.Process == contract.ProcessMain {
		return refString(s.Ref)
	}
	return refString(s.Ref) + "/" + s.Process
}

// mergeEnv puts add on top of base; a later name replaces an earlier one
// in place, so the result has each name once.
func mergeEnv(base []string, add []envVar) []string {
	idx := make(map[string]int, len(base)+len(add))
	out := make([]string, 0, len(base)+len(add))
	set := func(name, kv string) {
		if i, ok := idx[name]; ok {
			out[i] = kv
			return
		}
		idx[name] = len(out)
		out = append(out, kv)
	}
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		set(name, kv)
	}
	for _, e := range add {
		kv := e.kv
		if kv == "" {
			kv = e.Name + "=" + e.Value
		}
		set(e.Name, kv)
	}
	return out
}

// envLayouts remember where mergeEnv puts each variable for one list of
// names: every task of a role has the same names (its role's variables,
// then every task's contract variables, then jobshift's own), so a job of
// N tasks works out the layout of its N-variable environments once per
// role instead of hashing N names per task. A nil *envLayouts merges with
// mergeEnv.
type envLayouts struct{ last []*envLayout }

// maxEnvLayouts bounds the layouts kept (one per role and process is the
// usual count), so that tasks of all-different names cost a plain merge,
// not a search through every earlier task's layout.
const maxEnvLayouts = 16

type envLayout struct {
	baseNames, addNames []string
	basePos, addPos     []int // where each base and added variable goes
	n                   int
}

// merge is mergeEnv(base, add), through a layout already worked out for
// the same names when there is one.
func (ls *envLayouts) merge(base []string, add []envVar) []string {
	if ls == nil {
		return mergeEnv(base, add)
	}
	var l *envLayout
	for _, c := range ls.last {
		if c.fits(base, add) {
			l = c
			break
		}
	}
	if l == nil {
		if len(ls.last) >= maxEnvLayouts {
			return mergeEnv(base, add) // not one role's tasks: no layout to share
		}
		l = newEnvLayout(base, add)
		ls.last = append(ls.last, l)
	}
	out := make([]string, l.n)
	for i, kv := range base {
		out[l.basePos[i]] = kv
	}
	for i, e := range add {
		kv := e.kv
		if kv == "" {
			kv = e.Name + "=" + e.Value
		}
		out[l.addPos[i]] = kv
	}
	return out
}

// fits reports whether l was worked out for these names (names of one
// role share their strings, so the comparisons are mostly pointer checks).
func (l *envLayout) fits(base []string, add []envVar) bool {
	if len(base) != len(l.baseNames) || len(add) != len(l.addNames) {
		return false
	}
	for i, kv := range base {
		if name, _, _ := strings.Cut(kv, "="); name != l.baseNames[i] {
			return false
		}
	}
	for i, e := range add {
		if e.Name != l.addNames[i] {
			return false
		}
	}
	return true
}

// newEnvLayout places base and add as mergeEnv does: each name at its
// first position, the last value winning.
func newEnvLayout(base []string, add []envVar) *envLayout {
	l := &envLayout{basePos: make([]int, len(base)), addPos: make([]int, len(add))}
	idx := make(map[string]int, len(base)+len(add))
	place := func(name string) int {
		if i, ok := idx[name]; ok {
			return i
		}
		idx[name] = l.n
		l.n++
		return l.n - 1
	}
	for i, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		l.baseNames = append(l.baseNames, name)
		l.basePos[i] = place(name)
	}
	for i, e := range add {
		l.addNames = append(l.addNames, e.Name)
		l.addPos[i] = place(e.Name)
	}
	return l
}

// lookupEnv finds name in a KEY=VALUE list (last one wins).
func lookupEnv(env []string, name string) (string, bool) {
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			val, found = v, true
		}
	}
	return val, found
}

// lookPath resolves a program name against the task's PATH, as the task's
// own shell would. Names with a slash, and names not found, are left alone
// (starting the task then reports the error with the task's name).
func lookPath(prog string, env []string) string {
	if strings.Contains(prog, "/") {
		return prog
	}
	path, _ := lookupEnv(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		f := filepath.Join(dir, prog)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return f
		}
	}
	return prog
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// containerName is unique per run and task, and valid for docker.
func containerName(job, runDir string, attempt int, ref jobs.TaskRef) string {
	n := fmt.Sprintf("jobshift-%s-%s-%s-%d-a%d", job, filepath.Base(runDir), ref.Role, ref.Index, attempt)
	return strings.Trim(unsafeName.ReplaceAllString(n, "-"), "-.")
}
