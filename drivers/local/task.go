package local

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// exitStartFailed is the code of a task whose program could not be started
// (not found, not executable): what a shell reports for "command not found".
const exitStartFailed = 127

// proc is one running task process (one start of one task).
type proc struct {
	spec   *taskSpec
	cmd    *exec.Cmd
	pgid   int
	dir    string // this start's output directory
	docker bool
	// secrets are this start's secret platform files, removed at its end.
	secrets []string

	mu       sync.Mutex
	exited   bool
	stopping bool
	kill     *time.Timer
}

// exit is what a proc reports when its main process ended.
type exit struct {
	p    *proc
	code int
	err  error // start failure or wait error, for the message
}

// psDir is where a UAI node's parameter-server process keeps its files: a
// subdirectory of the attempt's first start, since it runs once per attempt
// beside every start of the training process.
func psDir(taskDir string, attempt int) string {
	return filepath.Join(startDir(taskDir, attempt, 0), "ps")
}

// startDir names one start of a task: attempt a (job retries, 0 = the
// first), restart k (in-place task restarts) — so attempts can be counted
// from the run dir. Its name counts attempts from 1, as every message,
// `status` and the JSON do: attempt-1 is the first (run directories
// written before held attempt-0; startDirs orders either).
func startDir(taskDir string, attempt, restart int) string {
	if restart == 0 {
		return filepath.Join(taskDir, fmt.Sprintf("attempt-%d", attempt+1))
	}
	return filepath.Join(taskDir, fmt.Sprintf("attempt-%d-restart-%d", attempt+1, restart))
}

// start runs spec in its own process group, teeing its output into the
// start's files and, line-prefixed, into out. done receives exactly one exit.
func start(spec *taskSpec, dir string, docker bool, out *lineMux, done chan<- exit) *proc {
	p := &proc{spec: spec, dir: dir, docker: docker}
	// "[worker-0] ", and "[worker-0/ps] " for a UAI parameter server.
	prefix := "[" + spec.name() + "] "
	fail := func(err error) *proc {
		p.exited = true
		msg := fmt.Sprintf("jobshift: cannot start task %s: %v\n", spec.name(), err)
		out.writeLine([]byte(prefix + msg))
		_ = os.WriteFile(filepath.Join(dir, "stderr"), []byte(msg), 0o600)
		_ = os.WriteFile(filepath.Join(dir, "exit"), []byte(strconv.Itoa(exitStartFailed)+"\n"), 0o600)
		go func() { done <- exit{p: p, code: exitStartFailed, err: err} }()
		return p
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail(err)
	}
	if err := makeEmptyDirs(spec.Dirs); err != nil {
		return fail(err)
	}
	stdout, err := newTee(filepath.Join(dir, "stdout"), out, prefix)
	if err != nil {
		return fail(err)
	}
	stderr, err := newTee(filepath.Join(dir, "stderr"), out, prefix)
	if err != nil {
		stdout.abort()
		return fail(err)
	}
	argv, cwd, progPath, err := p.command(dir)
	if err != nil {
		removeAll(p.secrets)
		stdout.abort()
		stderr.abort()
		return fail(err)
	}
	run := *spec
	run.Dir = cwd
	// Own process group, under a supervisor (supervisor.go): stopping the
	// task reaches every process it forked, a Ctrl-C on jobshift's
	// terminal reaches only jobshift, which then stops the job in order,
	// and the group is stopped even if jobshift is killed.
	sup, err := startSupervised(&run, argv, stdout.w, stderr.w)
	if err != nil {
		stdout.abort()
		stderr.abort()
		return fail(err)
	}
	// The child has its copies; ours must go so the readers see EOF.
	stdout.w.Close()
	stderr.w.Close()
	p.cmd, p.pgid = sup.cmd, sup.pgid
	_ = os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(p.pgid)+"\n"), 0o600)

	go p.reap(progPath, stdout, stderr, done)
	return p
}

// command is the argv the task's supervisor runs, in its working
// directory: the job's command as a written program, inside the init
// containers' runner and the task's view (its mounts and files), as in a
// pod; and the program's path ("" = none) for reap to remove.
func (p *proc) command(dir string) (argv []string, cwd, progPath string, err error) {
	spec := p.spec
	argv = spec.Argv
	if spec.Program != nil {
		if argv, progPath, err = spec.Program.write(argv, dir); err != nil {
			return nil, "", "", err
		}
	}
	if spec.Init != nil {
		if argv, err = spec.Init.wrap(argv, dir); err != nil {
			return nil, "", "", err
		}
	}
	user := argv
	if argv, cwd, err = prepareWorkDir(spec.Work, spec, argv, dir); err != nil {
		return nil, "", "", fmt.Errorf("private working directory: %w", err)
	}
	if spec.View != nil {
		if argv, p.secrets, err = startView(spec, argv, user, dir); err != nil {
			return nil, "", "", err
		}
	}
	return argv, cwd, progPath, nil
}

// reap waits for the task's process, makes sure nothing of it is left, and
// reports its exit on done.
func (p *proc) reap(progPath string, stdout, stderr *tee, done chan<- exit) {
	cmd, spec := p.cmd, p.spec
	werr := cmd.Wait()
	code := exitCode(cmd.ProcessState, werr)
	p.mu.Lock()
	p.exited = true
	if p.kill != nil {
		p.kill.Stop()
	}
	p.mu.Unlock()
	// A container ends when its main process does, taking every
	// other process with it; a task here does the same.
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	if p.docker {
		dockerKill(spec.Container)
	}
	// Report the end only once nothing of the task is left, so a
	// finished job means no process behind.
	waitGroupGone(p.pgid, 10*time.Second)
	if spec.Program != nil && spec.Program.Secret {
		// Secret values live only as long as the task.
		_ = os.Remove(progPath)
	}
	removeAll(p.secrets)
	stdout.wait()
	stderr.wait()
	_ = os.WriteFile(filepath.Join(p.dir, "exit"), []byte(strconv.Itoa(code)+"\n"), 0o600)
	done <- exit{p: p, code: code, err: nil}
}

// exitCode is the code a shell would report: the exit status, or 128+n for
// a death by signal n (what OpenPAI and Kubernetes report too: 137, 143).
func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return exitStartFailed
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// stop sends SIGTERM to the task's process group and SIGKILL after grace.
// With grace 0 it sends SIGKILL at once.
func (p *proc) stop(grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return
	}
	if grace <= 0 {
		p.hardKill()
		return
	}
	if p.stopping {
		return
	}
	p.stopping = true
	// docker run proxies SIGTERM to the container's main process.
	_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
	p.kill = time.AfterFunc(grace, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.exited {
			p.hardKill()
		}
	})
}

// hardKill must be called with p.mu held and p not exited (so pgid still
// names this task's group).
func (p *proc) hardKill() {
	p.stopping = true
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	if p.docker {
		go dockerKill(p.spec.Container)
	}
}

// wasStopped reports whether jobshift stopped this process.
func (p *proc) wasStopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopping
}

// tee copies one output stream of a task into its file and, prefixed, into
// the shared terminal stream.
type tee struct {
	w    *os.File // the child's end
	done chan struct{}
	file *os.File
}

func newTee(path string, mux *lineMux, prefix string) (*tee, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	t := &tee{w: w, done: make(chan struct{}), file: f}
	go func() {
		defer close(t.done)
		defer f.Close()
		defer r.Close()
		pw := &prefixWriter{mux: mux, prefix: prefix}
		copyOutput(r, f, pw, mux, prefix)
		pw.flush()
	}()
	return t, nil
}

// copyOutput copies a task's stream into its file and the terminal stream
// until the task closes it. The pipe is always read to the end: a reader
// that gave up would kill the task with SIGPIPE (exit 141) when its disk
// fills. A failed file write (no space left, quota) is said once, on the
// terminal stream, and the output goes on there.
func copyOutput(r io.Reader, f *os.File, pw *prefixWriter, mux *lineMux, prefix string) {
	buf := make([]byte, 32<<10)
	fileOK := true
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if fileOK {
				if _, werr := f.Write(buf[:n]); werr != nil {
					fileOK = false
					mux.writeLine([]byte(fmt.Sprintf("%sjobshift: cannot keep this output in %s: %v; the task goes on, "+
						"its output from here on is only shown here\n", prefix, f.Name(), werr)))
				}
			}
			_, _ = pw.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// wait waits for the copy to finish. The task's process group is dead by
// now, so the pipe is closed unless a process left the group; that one must
// not hold the job, hence the bound.
func (t *tee) wait() {
	select {
	case <-t.done:
	case <-time.After(5 * time.Second):
	}
}

func (t *tee) abort() { t.w.Close() }

// lineMux serialises whole lines from all tasks onto one writer.
type lineMux struct {
	mu sync.Mutex
	w  io.Writer
}

func (m *lineMux) writeLine(b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, _ = m.w.Write(b)
}

// prefixWriter splits a stream into lines and writes each, prefixed, in one
// Write call, so lines of different tasks never interleave.
type prefixWriter struct {
	mux    *lineMux
	prefix string
	buf    []byte
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i+1])
		w.buf = w.buf[i+1:]
	}
	// A very long line without newline (progress bars with \r) is flushed
	// in pieces rather than held forever.
	if len(w.buf) > 64<<10 {
		w.emit(append(w.buf, '\n'))
		w.buf = nil
	}
	return len(b), nil
}

func (w *prefixWriter) emit(line []byte) {
	out := make([]byte, 0, len(w.prefix)+len(line))
	out = append(append(out, w.prefix...), line...)
	w.mux.writeLine(out)
}

func (w *prefixWriter) flush() {
	if len(w.buf) > 0 {
		w.emit(append(w.buf, '\n'))
		w.buf = nil
	}
}

// errTaskRef formats a task for messages.
func refString(r jobs.TaskRef) string { return fmt.Sprintf("%s-%d", r.Role, r.Index) }
