package example

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// run is one submitted job: its processes and their states.
type run struct {
	dir    string
	job    *jobs.Job
	policy completion.Policy
	start  time.Time
	mu     sync.Mutex
	tasks  map[jobs.TaskRef]*task
	order  []jobs.TaskRef
	done   chan struct{} // closed when every process has exited
}

type task struct {
	cmd   *exec.Cmd
	state completion.Task
}

// Submit writes the rendered scripts into a fresh run directory and starts
// them all. The handle's ID is the run directory.
func (d *Driver) Submit(ctx context.Context, p *translate.Plan) (drivers.Handle, error) {
	a, err := d.Render(ctx, p)
	if err != nil {
		return drivers.Handle{}, err
	}
	if err := os.MkdirAll(d.BaseDir, 0o755); err != nil {
		return drivers.Handle{}, err
	}
	dir, err := os.MkdirTemp(d.BaseDir, p.Job.Name+"-")
	if err != nil {
		return drivers.Handle{}, err
	}
	r := &run{dir: dir, job: p.Job, policy: p.Compiled().Policy, start: time.Now(), tasks: map[jobs.TaskRef]*task{}, done: make(chan struct{})}
	info := runInfo{Name: p.Job.Name, User: p.User, Submitted: r.start, Policy: r.policy}
	for _, role := range p.Job.Roles {
		for idx := 0; idx < role.Instances; idx++ {
			info.Tasks = append(info.Tasks, jobs.TaskRef{Role: role.Name, Index: idx})
		}
	}
	if err := writeJSON(filepath.Join(dir, "job.json"), info); err != nil { // status.go
		return drivers.Handle{}, err
	}
	var wg sync.WaitGroup
	i := 0
	for _, role := range p.Job.Roles {
		for idx := 0; idx < role.Instances; idx++ {
			ref := jobs.TaskRef{Role: role.Name, Index: idx}
			f := a.Files[i]
			i++
			script := filepath.Join(dir, f.Name)
			if err := os.WriteFile(script, f.Data, 0o755); err != nil {
				return drivers.Handle{}, err
			}
			t, err := start(script, taskBase(dir, ref), ref)
			if err != nil {
				r.stopAll()
				return drivers.Handle{}, err
			}
			r.tasks[ref], r.order = t, append(r.order, ref)
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := t.cmd.Wait()
				r.mu.Lock()
				defer r.mu.Unlock()
				if t.state.State == completion.Stopped {
					return
				}
				t.state.State, t.state.ExitCode = completion.Succeeded, 0
				if err != nil {
					t.state.State, t.state.ExitCode = completion.Failed, exitCode(t.cmd)
				}
			}()
		}
	}
	go func() { wg.Wait(); close(r.done) }()
	d.mu.Lock()
	d.runs[dir] = r
	d.mu.Unlock()
	return drivers.Handle{Driver: Name, ID: dir}, nil
}

// start runs script; base is <dir>/<role>-<index>, the prefix of the
// task's files (status.go).
func start(script, base string, ref jobs.TaskRef) (*task, error) {
	log, err := os.Create(base + ".log")
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child keeps its own descriptor
	// The task runs in jobshift's working directory, the stand-in for the
	// image WORKDIR that held the job's code (as the local driver does).
	// A wrapper shell records the exit code in <base>.exit, so a snapshot
	// has it even when this process is gone (status.go).
	cmd := exec.Command("bash", "-c", `bash "$1"; c=$?; echo "$c" >"$2.tmp" && mv "$2.tmp" "$2"; exit "$c"`, "jobshift-task", script, base+".exit")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // stop kills the whole tree
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s-%d: %w", ref.Role, ref.Index, err)
	}
	if err := os.WriteFile(base+".pid", []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return nil, err
	}
	return &task{cmd: cmd, state: completion.Task{TaskRef: ref, State: completion.Running}}, nil
}

func exitCode(cmd *exec.Cmd) int {
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

func (d *Driver) lookup(h drivers.Handle) (*run, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.runs[h.ID]
	if !ok {
		return nil, fmt.Errorf("run %s: %w", h.ID, drivers.ErrNotFound)
	}
	return r, nil
}

// Watch polls the tasks and reports every change to the attempt machine
// (completion.Machine), which applies the completion rules of the job's
// platform; the driver only executes what it answers: stop tasks, and end
// the job once every process exited. (This driver restarts nothing and
// runs a job once: the machine's restarts and retries are off or reported.)
func (d *Driver) Watch(ctx context.Context, h drivers.Handle) (<-chan drivers.Event, error) {
	r, err := d.lookup(h)
	if err != nil {
		return nil, err
	}
	ch := make(chan drivers.Event, 64)
	go func() {
		defer close(ch)
		m := completion.NewMachine(r.policy, completion.MachineConfig{Start: r.start})
		seen := map[jobs.TaskRef]completion.State{}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			now := time.Now()
			var evs []completion.TaskEvent
			for _, s := range r.snapshot() {
				if seen[s.TaskRef] != s.State {
					seen[s.TaskRef] = s.State
					ref := s.TaskRef
					ch <- drivers.Event{Time: now, Task: &ref, State: s.State, ExitCode: s.ExitCode}
					// Seq 1 for every end: this driver does not record
					// the order its processes ended in, so ties are
					// broken by role order then index (Task.Seq), the
					// same in-process and as a plugin.
					evs = append(evs, completion.TaskEvent{TaskRef: ref, State: s.State, ExitCode: s.ExitCode, Time: now, Seq: 1})
				}
			}
			acts := append(m.ObserveAll(evs), m.Tick(now)...)
			if r.exited() {
				acts = append(acts, m.Ended()...)
			}
			for _, a := range acts {
				switch a.Kind {
				case completion.ActStop:
					r.stop(a.Tasks)
				case completion.ActEnd, completion.ActRetry:
					v := a.Verdict
					res := &drivers.Result{Phase: v.Phase, ExitCode: v.ExitCode, Reason: v.Reason, Attempts: 1}
					r.recordVerdict(res)
					ch <- drivers.Event{Time: time.Now(), Final: res}
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return ch, nil
}

// exited reports whether every process of the run has exited.
func (r *run) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *run) snapshot() []completion.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]completion.Task, 0, len(r.order))
	for _, ref := range r.order {
		out = append(out, r.tasks[ref].state)
	}
	return out
}

// stop sends SIGTERM to the named tasks' process groups, then SIGKILL
// after two seconds to whatever is left.
func (r *run) stop(refs []jobs.TaskRef) {
	r.mu.Lock()
	var pgids []int
	for _, ref := range refs {
		t := r.tasks[ref]
		if t == nil || t.state.State.Terminal() {
			continue
		}
		t.state.State = completion.Stopped
		pgids = append(pgids, t.cmd.Process.Pid)
		_ = os.WriteFile(taskBase(r.dir, ref)+".stopped", nil, 0o644) // status.go
	}
	r.mu.Unlock()
	for _, pg := range pgids {
		syscall.Kill(-pg, syscall.SIGTERM)
	}
	go func() {
		time.Sleep(2 * time.Second)
		for _, pg := range pgids {
			syscall.Kill(-pg, syscall.SIGKILL)
		}
	}()
}

func (r *run) stopAll() { r.stop(r.order) }

// Stop stops every task of the job.
func (d *Driver) Stop(_ context.Context, h drivers.Handle) error {
	r, err := d.lookup(h)
	if err != nil {
		return err
	}
	r.stopAll()
	return nil
}
