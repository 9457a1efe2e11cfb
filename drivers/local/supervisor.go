package local

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Every task runs under a small supervisor: this binary (whatever embeds the
// driver: jobshift, a plugin, a test) run again through /proc/self/exe with
// argv[0] = supervisorName, which init below turns into superviseMain before
// anything else runs. The supervisor starts the task as the leader of a new
// process group (so the pid file, the events and `kill PID` still mean the
// task's own process), reports its pid, waits for it and exits with its code
// (the status, or 128+n for a death by signal n). The supervisor is in a
// group of its own, so nothing sent to the task's group reaches it.
//
// It also holds the read end of a pipe whose only write end lives in
// jobshift: when jobshift ends in any way, SIGKILL included, the kernel
// closes that end, the supervisor reads EOF and stops the task's group
// (SIGTERM, SIGKILL after the grace period), so no task outlives the
// jobshift that started it. A pipe, unlike PR_SET_PDEATHSIG, does not depend
// on which thread forked, and reaches every process of the group, not just
// the first.
const supervisorName = "jobshift-task-supervisor"

// The supervisor's extra descriptors (exec.Cmd.ExtraFiles order).
const (
	lifelineFD = 3 // EOF once jobshift is gone
	reportFD   = 4 // the task's pid, written once it started
)

func init() {
	if filepath.Base(os.Args[0]) == supervisorName {
		os.Exit(superviseMain(os.Args[1:]))
	}
}

var (
	lifelineOnce sync.Once
	lifelineR    *os.File // handed to every supervisor
	lifelineW    *os.File // never closed: it goes only when jobshift goes
	lifelineErr  error
)

// lifeline returns the read end every supervisor gets. os.Pipe sets
// close-on-exec on both ends, so no task, supervisor or other child ever
// holds the write end.
func lifeline() (*os.File, error) {
	lifelineOnce.Do(func() {
		lifelineR, lifelineW, lifelineErr = os.Pipe()
	})
	return lifelineR, lifelineErr
}

// supervised is a started supervisor and the task it started.
type supervised struct {
	cmd *exec.Cmd
	// pgid is the task's process group (its pid); when the task could not
	// be started it is the supervisor's own group, never 0 (kill(-0)
	// would signal jobshift's group).
	pgid int
}

// startSupervised runs argv (spec's, with this start's program file) under
// a supervisor with the task's environment, directory and output.
func startSupervised(spec *taskSpec, argv []string, stdout, stderr *os.File) (*supervised, error) {
	life, err := lifeline()
	if err != nil {
		return nil, fmt.Errorf("lifeline pipe: %w", err)
	}
	return superviseWith(life, spec, argv, stdout, stderr)
}

// superviseWith is startSupervised with a given lifeline (tests cut their
// own to play a killed jobshift).
func superviseWith(life *os.File, spec *taskSpec, argv []string, stdout, stderr *os.File) (*supervised, error) {
	rep, repW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer rep.Close()
	args := append([]string{supervisorName, spec.name(), spec.Grace.String(), spec.Container, "--"}, argv...)
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: args, Env: spec.Env, Dir: spec.Dir,
		Stdout: stdout, Stderr: stderr, ExtraFiles: []*os.File{life, repW},
		// Its own group: a Ctrl-C on jobshift's terminal does not reach it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if spec.Work == workOverlay && spec.Shared != "" && spec.Dir == spec.Shared {
		// The overlay is mounted in the task's own mount namespace (the
		// supervisor's, which the task shares), gone with its last
		// process; Go remounts / private in it first.
		cmd.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
	}
	err = cmd.Start()
	repW.Close()
	if err != nil {
		return nil, err
	}
	s := &supervised{cmd: cmd, pgid: cmd.Process.Pid}
	// One line, then EOF (the supervisor closes its end; the task never
	// has it); just EOF when the task could not be started.
	line, _ := bufio.NewReader(rep).ReadString('\n')
	if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && pid > 0 {
		s.pgid = pid
	}
	return s, nil
}

// superviseMain is the supervisor: argv is name, grace, container ("" when
// none), "--", then the task's argv. Its environment, directory and standard
// streams are the task's.
func superviseMain(argv []string) int {
	if len(argv) < 5 || argv[3] != "--" {
		fmt.Fprintf(os.Stderr, "%s: internal use by jobshift's local driver only\n", supervisorName)
		return 2
	}
	name, container, task := argv[0], argv[2], argv[4:]
	grace, err := time.ParseDuration(argv[1])
	if err != nil {
		grace = DefaultGrace
	}
	// Neither descriptor is the task's business.
	syscall.CloseOnExec(lifelineFD)
	syscall.CloseOnExec(reportFD)
	report := os.NewFile(reportFD, "report")
	cmd := &exec.Cmd{Path: task[0], Args: task, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if err := cmd.Start(); err != nil {
		report.Close()
		fmt.Fprintf(os.Stderr, "jobshift: cannot start task %s: %v\n", name, err)
		return exitStartFailed
	}
	pgid := cmd.Process.Pid
	fmt.Fprintf(report, "%d\n", pgid)
	report.Close()
	exited := make(chan int, 1)
	go func() {
		werr := cmd.Wait()
		exited <- exitCode(cmd.ProcessState, werr)
	}()
	orphaned := make(chan struct{})
	go watchLifeline(orphaned)
	select {
	case code := <-exited:
		return code
	case <-orphaned:
		return stopOrphan(pgid, container, grace, exited)
	}
}

// watchLifeline closes orphaned once jobshift is gone (EOF, or an error:
// either way nobody will read this task's output or stop it any more).
func watchLifeline(orphaned chan<- struct{}) {
	f := os.NewFile(lifelineFD, "lifeline")
	if f == nil {
		return
	}
	_, _ = io.Copy(io.Discard, f)
	close(orphaned)
}

// stopOrphan stops the task's group as jobshift would have: SIGTERM, then
// SIGKILL after grace, or as soon as the main process has ended (a
// container ends with its main process, taking the rest with it).
func stopOrphan(pgid int, container string, grace time.Duration, exited <-chan int) int {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if container != "" {
		go dockerKill(container)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	code := 128 + int(syscall.SIGKILL)
	select {
	case code = <-exited:
	case <-t.C:
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if container != "" {
		dockerKill(container)
	}
	return code
}
