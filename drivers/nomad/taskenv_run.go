package nomad

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/translate/contract"
)

// TaskEnvExec is nomad-env (taskenv.go): inside a task, wait for the
// attempt's topology snapshot, evaluate the task's environment, write
// local/jobshift.env and exec argv with it. It returns only on failure;
// the task then fails as its template would have ("rendezvous" errors
// name what is wrong).
func TaskEnvExec(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	te, err := decodeTaskEnv(os.Getenv(TaskEnvVar))
	if err != nil {
		return err
	}
	idx, err := strconv.Atoi(os.Getenv("NOMAD_ALLOC_INDEX"))
	if err != nil {
		return fmt.Errorf("NOMAD_ALLOC_INDEX %q is not an index: runs only inside a Nomad task", os.Getenv("NOMAD_ALLOC_INDEX"))
	}
	items, err := readSnapshot(ctx, te.Snapshot, os.Getenv(attemptEnv))
	if err != nil {
		return err
	}
	vars, err := te.vars(idx, items, os.Getenv)
	if err != nil {
		return fmt.Errorf("evaluating the environment contract of %s[%d]: %w", te.Role, idx, err)
	}
	if dir := os.Getenv("NOMAD_TASK_DIR"); dir != "" {
		if err := writeEnvFile(dir, vars); err != nil {
			return err
		}
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		if path, err = exec.LookPath(path); err != nil {
			return err
		}
	}
	return syscall.Exec(path, argv, execEnv(os.Environ(), vars))
}

// readSnapshot waits for the snapshot Variable at path with blocking
// queries (it is usually there already: the coordinator writes it at
// placement) and returns its items. A snapshot of another attempt than
// the task's is an error, as in the template. The Task API client moves
// into the socket's directory (NewInTask); the working directory is given
// back before returning, since the user's command starts in it.
func readSnapshot(ctx context.Context, path, attempt string) (map[string]string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	defer os.Chdir(cwd)
	d, err := NewInTask()
	if err != nil {
		return nil, err
	}
	var index uint64
	var failing time.Time
	for backoff := 250 * time.Millisecond; ; {
		q := &api.QueryOptions{WaitIndex: index, WaitTime: 5 * time.Minute}
		v, meta, err := d.client.Variables().Peek(path, q.WithContext(ctx))
		switch {
		case err != nil:
			// An agent restarting: retry for a while, as consul-template
			// retries its queries.
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(failing) > 2*time.Minute || ctx.Err() != nil {
				return nil, fmt.Errorf("reading the topology snapshot %s: %w", path, err)
			}
			time.Sleep(backoff)
			backoff = min(2*backoff, 5*time.Second)
			continue
		case v == nil:
			failing, index = time.Time{}, meta.LastIndex
			continue
		}
		if got := v.Items[contract.SnapshotAttempt]; got != attempt {
			return nil, fmt.Errorf("jobshift-contract: topology snapshot %s is of attempt %s, not of this task's attempt %s", path, got, attempt)
		}
		return v.Items, nil
	}
}

// inTaskToken is the task's workload identity: the file of identity {
// file = true } (secrets/nomad_token) when there is one, else NOMAD_TOKEN
// (identity { env = true }). The file wins: a raw_exec task inherits its
// client agent's environment, whose NOMAD_TOKEN, if any, is an operator's.
func inTaskToken() string {
	if b, err := os.ReadFile(filepath.Join(os.Getenv("NOMAD_SECRETS_DIR"), "nomad_token")); err == nil && os.Getenv("NOMAD_SECRETS_DIR") != "" {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t
		}
	}
	return os.Getenv("NOMAD_TOKEN")
}
