package slurm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// jobState is what scontrol (or sacct) says about a job.
type jobState struct {
	State    string // PENDING, RUNNING, COMPLETED, ...
	Reason   string
	ExitCode int // the batch script's exit code (scontrol ExitCode=rc:sig)
	Restarts int // RestartCnt: the attempt number
	Name     string
	User     string // UserId=alice(1000) → alice
	Found    bool
}

// terminalStates end a job (spec/slurm.md §6).
var terminalStates = map[string]bool{"COMPLETED": true, "FAILED": true, "CANCELLED": true, "TIMEOUT": true,
	"NODE_FAIL": true, "OUT_OF_MEMORY": true, "PREEMPTED": true, "BOOT_FAIL": true, "DEADLINE": true, "REVOKED": true}

// parseScontrolJob reads `scontrol show job -o ID` output; a het job has one
// line per component, the first is the leader.
func parseScontrolJob(out string) jobState {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if !strings.Contains(line, "JobState=") {
		return jobState{}
	}
	js := jobState{Found: true}
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "JobState":
			js.State = v
		case "Reason":
			js.Reason = v
		case "ExitCode":
			rc, _, _ := strings.Cut(v, ":")
			js.ExitCode, _ = strconv.Atoi(rc)
		case "Restarts":
			js.Restarts, _ = strconv.Atoi(v)
		case "JobName":
			js.Name = v
		case "UserId":
			js.User, _, _ = strings.Cut(v, "(")
		}
	}
	return js
}

// parseSacct reads `sacct -X -P -n --format=State,ExitCode` output. sacct
// lags and 22.05 prints exit codes ≥ 128 minus 128, so it is only the
// fallback once scontrol forgot the job (MinJobAge).
func parseSacct(out string) jobState {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	parts := strings.Split(line, "|")
	if len(parts) < 2 || parts[0] == "" {
		return jobState{}
	}
	st, _, _ := strings.Cut(parts[0], " ") // "CANCELLED by 0"
	rc, _, _ := strings.Cut(parts[1], ":")
	code, _ := strconv.Atoi(rc)
	return jobState{State: st, ExitCode: code, Found: true}
}

// queryJob asks Slurm about a job: `squeue --json` (fields by name) where
// squeue honours -j; else `scontrol show job -o` (22.05's squeue --json
// dumps every job, and scontrol has no --json before 23.02); once both
// forgot the job (MinJobAge), sacct's text output: `sacct --json` of 22.05
// reports exit code 0 ("SUCCESS") for a batch script that exited 3
// (measured on 22.05.8; text sacct says 3:0).
func queryJob(ctx context.Context, id string) jobState {
	if j, ok := squeueJSON(ctx, id, true); ok {
		return j.state()
	}
	out, err := exec.CommandContext(ctx, "scontrol", "show", "job", "-o", id).Output()
	if err == nil {
		if js := parseScontrolJob(string(out)); js.Found {
			return js
		}
	}
	out, err = exec.CommandContext(ctx, "sacct", "-j", id, "-X", "-P", "-n", "--format=State,ExitCode").Output()
	if err == nil {
		return parseSacct(string(out))
	}
	return jobState{}
}

// taskFiles reads the state one attempt's tasks recorded.
type attemptState struct {
	started map[jobs.TaskRef]bool
	rc      map[jobs.TaskRef]int
	stopped map[int]bool // role index → its step was stopped by the script
	verdict *drivers.Result
}

func readAttempt(dir string, roles []string, counts []int) attemptState {
	a := attemptState{started: map[jobs.TaskRef]bool{}, rc: map[jobs.TaskRef]int{}, stopped: map[int]bool{}}
	for k, name := range roles {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("stopped.%d", k))); err == nil {
			a.stopped[k] = true
		}
		// a role without a supervisor: the tasks srun reported started, a
		// line of ranges per node (js_ends)
		if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("started.%d", k))); err == nil {
			for _, i := range taskList(string(b), counts[k]) {
				a.started[jobs.TaskRef{Role: name, Index: i}] = true
			}
		}
		for i := 0; i < counts[k]; i++ {
			ref := jobs.TaskRef{Role: name, Index: i}
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("started.%d.%d", k, i))); err == nil {
				a.started[ref] = true
			}
			if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rc.%d.%d", k, i))); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					a.rc[ref] = n
				}
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "verdict")); err == nil {
		first, why, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(first)
		if len(f) >= 2 {
			code, _ := strconv.Atoi(f[1])
			a.verdict = &drivers.Result{Phase: completion.Phase(f[0]), ExitCode: code, Reason: strings.TrimSpace(why)}
		}
	}
	return a
}

// taskList reads srun's task lists, one per line ("0-2,7,10-11"), as
// the task indexes below n among them; what is not a number or a range of
// them is skipped (a line still being written).
func taskList(s string, n int) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(f), "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				continue
			}
		}
		for i := a; i <= min(b, n-1); i++ {
			out = append(out, i)
		}
	}
	return out
}

// resolveHandle completes a handle that carries only a job id (jobshift
// status/logs/stop from another process): everything from the manifest
// written at submit beside the script (squeue --json or scontrol name it);
// once scontrol forgot the job, the state directory is the default one
// under the job's WorkDir (sacct) or $JOBSHIFT_STATE_DIR, and the roles
// come from the "roles" file the script writes there.
func resolveHandle(ctx context.Context, h drivers.Handle) drivers.Handle {
	if h.Meta[metaState] != "" && h.Meta[metaRoles] != "" {
		return h
	}
	meta := map[string]string{}
	for k, v := range h.Meta {
		meta[k] = v
	}
	workDir, script := "", ""
	// once per handle: the JSON keeps a WorkDir or Command with spaces
	// whole (even where squeue dumps every job)
	if j, ok := squeueJSON(ctx, h.ID, false); ok {
		workDir, script = j.WorkDir, j.Command
	}
	// StdOut: squeue --json of 22.05 leaves standard_output empty; scontrol
	// prints it expanded (%x, %j filled in)
	if out, err := exec.CommandContext(ctx, "scontrol", "show", "job", "-o", h.ID).Output(); err == nil {
		line, _, _ := strings.Cut(string(out), "\n")
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			switch {
			case k == "WorkDir" && workDir == "":
				workDir = v
			case k == "Command" && script == "":
				script = v
			case k == "StdOut":
				meta[metaOutput] = v
			}
		}
	}
	if m, err := readManifest(script); err == nil && script != "" {
		for k, v := range m {
			meta[k] = v
		}
		h.Meta = meta
		return h
	}
	if workDir == "" {
		if out, err := exec.CommandContext(ctx, "sacct", "-j", h.ID, "-X", "-n", "-P", "--format=WorkDir").Output(); err == nil {
			workDir, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		}
	}
	base := filepath.Join(workDir, ".jobshift")
	if env := os.Getenv("JOBSHIFT_STATE_DIR"); env != "" {
		base = env
	}
	cluster, _ := clusterName(ctx)
	meta[metaState] = filepath.Join(base, jobDirName(cluster, h.ID))
	if roles, err := os.ReadFile(filepath.Join(meta[metaState], "roles")); err == nil {
		var names, counts []string
		for _, l := range strings.Split(strings.TrimSpace(string(roles)), "\n") {
			f := strings.SplitN(l, " ", 3)
			if len(f) == 3 {
				counts = append(counts, f[1])
				names = append(names, f[2])
			}
		}
		meta[metaRoles] = strings.Join(names, ",")
		meta[metaCounts] = strings.Join(counts, ",")
	}
	h.Meta = meta
	return h
}

// handleInfo decodes Handle.Meta.
func handleInfo(h drivers.Handle) (state string, roles []string, counts []int, err error) {
	state = h.Meta[metaState]
	if state == "" || h.Meta[metaRoles] == "" {
		return "", nil, nil, fmt.Errorf("slurm job %s: cannot find its jobshift state (roles file under %q); was it submitted by jobshift, and is the directory visible here? %w",
			h.ID, state, drivers.ErrNotFound)
	}
	roles = strings.Split(h.Meta[metaRoles], ",")
	for _, c := range strings.Split(h.Meta[metaCounts], ",") {
		n, _ := strconv.Atoi(c)
		counts = append(counts, n)
	}
	if len(counts) != len(roles) {
		return "", nil, nil, fmt.Errorf("slurm handle %s: roles and counts differ", h.ID)
	}
	return state, roles, counts, nil
}

// Watch polls scontrol (sacct once scontrol forgets the job) and the task
// state files, and reports task and job events until the job ends.
func (d *Driver) Watch(ctx context.Context, h drivers.Handle) (<-chan drivers.Event, error) {
	h = resolveHandle(ctx, h)
	state, roles, counts, err := handleInfo(h)
	if err != nil {
		return nil, err
	}
	interval := time.Second
	if v, err := time.ParseDuration(d.cfg.Options["watch_interval"]); err == nil && v > 0 {
		interval = v
	}
	ch := make(chan drivers.Event, 16)
	go func() {
		defer close(ch)
		send := func(e drivers.Event) bool {
			e.Time = time.Now()
			select {
			case ch <- e:
				return true
			case <-ctx.Done():
				return false
			}
		}
		lastJob := ""
		attempt := -1
		var reported map[jobs.TaskRef]completion.State
		missing := 0
		for {
			js := queryJob(ctx, h.ID)
			if !js.Found {
				missing++
				if missing > 30 {
					send(drivers.Event{Final: &drivers.Result{Phase: completion.PhaseFailed, ExitCode: 1,
						Reason: "neither scontrol nor sacct knows job " + h.ID}})
					return
				}
			} else {
				missing = 0
			}
			if js.Restarts != attempt && js.Found {
				attempt = js.Restarts
				reported = map[jobs.TaskRef]completion.State{}
			}
			if s := js.State + " " + js.Reason; js.Found && s != lastJob {
				lastJob = s
				if !send(drivers.Event{Attempt: max(attempt, 0), Message: fmt.Sprintf("slurm job %s: %s (%s)", h.ID, js.State, js.Reason)}) {
					return
				}
			}
			adir, a := readOwnAttempt(state, h.Meta[metaToken], max(attempt, 0), roles, counts)
			for k, name := range roles {
				for i := 0; i < counts[k]; i++ {
					ref := jobs.TaskRef{Role: name, Index: i}
					st, code := a.taskState(adir, k, ref)
					if st != reported[ref] && st != completion.Pending {
						reported[ref] = st
						r := ref
						if !send(drivers.Event{Attempt: max(attempt, 0), Task: &r, State: st, ExitCode: code}) {
							return
						}
					}
				}
			}
			if js.Found && terminalStates[js.State] {
				res := finalResult(js, a)
				res.Attempts = max(attempt, 0) + 1
				send(drivers.Event{Attempt: max(attempt, 0), Final: &res})
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval):
			}
		}
	}()
	return ch, nil
}

// taskState is task ref (of role k) as the attempt's state files say: a
// task the script stopped after the verdict is Stopped, not failed.
func (a attemptState) taskState(adir string, k int, ref jobs.TaskRef) (completion.State, int) {
	st, code := completion.Pending, 0
	if a.started[ref] {
		st = completion.Running
	}
	if rc, ok := a.rc[ref]; ok {
		st, code = completion.Succeeded, rc
		if rc != 0 {
			st = completion.Failed
		}
		if a.stopped[k] && a.verdict != nil && !endedBeforeVerdict(adir, k, ref.Index) {
			st = completion.Stopped
		}
	} else if a.verdict != nil && a.stopped[k] {
		st = completion.Stopped
	}
	return st, code
}

// endedBeforeVerdict reports whether task (k, i) is in the script's "ends"
// file: replayed by the completion rules, so a real end, not a stop.
func endedBeforeVerdict(adir string, k, i int) bool {
	b, err := os.ReadFile(filepath.Join(adir, "ends"))
	if err != nil {
		return false
	}
	prefix := fmt.Sprintf("%d %d ", k, i)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// finalResult: the script's own verdict when it wrote one (it knows every
// task's real exit code), else what Slurm says.
func finalResult(js jobState, a attemptState) drivers.Result {
	if a.verdict != nil && (js.State == "COMPLETED" || js.State == "FAILED") {
		return *a.verdict
	}
	if a.verdict != nil && js.State == "CANCELLED" && (a.verdict.Phase == completion.PhaseFailed || a.verdict.Phase == completion.PhaseSucceeded) {
		// As completion.UserStopped on every target: a verdict a rule
		// had already given stands when the job is stopped afterwards.
		return *a.verdict
	}
	switch js.State {
	case "COMPLETED":
		return drivers.Result{Phase: completion.PhaseSucceeded, Reason: "slurm: COMPLETED"}
	case "CANCELLED":
		return drivers.Result{Phase: completion.PhaseStopped, ExitCode: completion.StoppedExitCode, Reason: "slurm: CANCELLED (scancel)"}
	case "TIMEOUT":
		return drivers.Result{Phase: completion.PhaseFailed, ExitCode: 124, Reason: "slurm: TIMEOUT (time limit reached)"}
	}
	code := js.ExitCode
	if code == 0 {
		code = 1
	}
	return drivers.Result{Phase: completion.PhaseFailed, ExitCode: code, Reason: fmt.Sprintf("slurm: %s (%s)", js.State, js.Reason)}
}

// Logs returns a task's output file (latest attempt), or the batch
// script's output when opts.Task is nil.
func (d *Driver) Logs(ctx context.Context, h drivers.Handle, opts drivers.LogOptions) (io.ReadCloser, error) {
	h = resolveHandle(ctx, h)
	state, roles, _, err := handleInfo(h)
	if err != nil {
		return nil, err
	}
	path := h.Meta[metaOutput]
	if opts.Task != nil {
		known := false
		for _, r := range roles {
			known = known || r == opts.Task.Role
		}
		if !known {
			return nil, fmt.Errorf("job %s has no role %q (roles: %s): %w", h.ID, opts.Task.Role, strings.Join(roles, ", "), drivers.ErrNotFound)
		}
		if !ownState(state, h.Meta[metaToken]) {
			return nil, fmt.Errorf("job %s has not started yet (%s is not its state directory yet): %w", h.ID, state, drivers.ErrNotFound)
		}
		ext := ".out"
		if opts.Stderr {
			ext = ".err"
		}
		path = filepath.Join(lastAttemptDir(state),
			fmt.Sprintf("%s-%d%s", nameRE.ReplaceAllString(opts.Task.Role, "_"), opts.Task.Index, ext))
	}
	if !opts.Follow {
		f, err := os.Open(path)
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no output yet at %s: %w", path, drivers.ErrNotFound)
		}
		return f, err
	}
	pr, pw := io.Pipe()
	go func() {
		var off int64
		for {
			done := terminalStates[queryJob(ctx, h.ID).State]
			if f, err := os.Open(path); err == nil {
				if _, err := f.Seek(off, io.SeekStart); err == nil {
					n, _ := io.Copy(pw, f)
					off += n
				}
				f.Close()
			}
			if done || ctx.Err() != nil {
				pw.Close()
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return pr, nil
}
