package local

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"
)

// followPoll is how often a followed log looks for more output: the run
// writes its files as the tasks print, and a reader of another process
// has no event to wait on but the file's growth.
var followPoll = 200 * time.Millisecond

// follower reads a local run's log file as it grows (`jobshift logs -f`),
// as `tail -f` would, and ends when the run has ended and everything was
// read. For a task it moves on to the task's next start when it restarts
// in place or the job is retried (the starts' own files, startDirs' order).
type follower struct {
	ctx     context.Context
	ended   func() bool // the run has its verdict, or its process is gone
	taskDir string      // "" = the whole job's output.log
	name    string      // stdout or stderr
	path    string      // the file being read
	f       *os.File
}

func newFollower(ctx context.Context, ended func() bool, taskDir, name, path string) (*follower, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &follower{ctx: ctx, ended: ended, taskDir: taskDir, name: name, path: path, f: f}, nil
}

func (fl *follower) Read(p []byte) (int, error) {
	for {
		n, err := fl.f.Read(p)
		if n > 0 || err != io.EOF {
			return n, err
		}
		if fl.next() {
			continue
		}
		ended := fl.ended()
		// one more read after the end: the last lines written before it
		if n, err := fl.f.Read(p); n > 0 || err != io.EOF {
			return n, err
		}
		if ended {
			return 0, io.EOF
		}
		select {
		case <-fl.ctx.Done():
			return 0, fl.ctx.Err()
		case <-time.After(followPoll):
		}
	}
}

// next switches to a later start of the task, if there is one.
func (fl *follower) next() bool {
	if fl.taskDir == "" {
		return false
	}
	starts, err := startDirs(fl.taskDir)
	if err != nil || len(starts) == 0 {
		return false
	}
	latest := filepath.Join(starts[len(starts)-1], fl.name)
	if latest == fl.path {
		return false
	}
	f, err := os.Open(latest)
	if err != nil {
		return false
	}
	fl.f.Close()
	fl.f, fl.path = f, latest
	return true
}

func (fl *follower) Close() error { return fl.f.Close() }
