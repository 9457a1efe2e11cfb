package intask

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/translate/contract"
)

// Exec is nomad-env: inside a task, wait for the attempt's topology
// snapshot, evaluate the task's environment, write local/jobshift.env
// (and the task namespace's files: View) and exec argv with it. It returns only on failure; the task then fails as
// its template would have ("rendezvous" errors name what is wrong).
func Exec(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	te, err := Decode(os.Getenv(EnvVar))
	if err != nil {
		return err
	}
	idx, err := strconv.Atoi(os.Getenv("NOMAD_ALLOC_INDEX"))
	if err != nil {
		return fmt.Errorf("NOMAD_ALLOC_INDEX %q is not an index: runs only inside a Nomad task", os.Getenv("NOMAD_ALLOC_INDEX"))
	}
	items, err := readSnapshot(ctx, te.Snapshot, os.Getenv(AttemptEnv))
	if err != nil {
		return err
	}
	topo, err := contract.SnapshotTopology(te.Job, te.Opts, items)
	if err != nil {
		return fmt.Errorf("evaluating the environment contract of %s[%d]: %w", te.Role, idx, err)
	}
	vars, err := te.varsOf(topo, idx, os.Getenv)
	if err != nil {
		return fmt.Errorf("evaluating the environment contract of %s[%d]: %w", te.Role, idx, err)
	}
	dir := os.Getenv("NOMAD_TASK_DIR")
	if dir != "" {
		if err := writeEnvFile(dir, vars); err != nil {
			return err
		}
	}
	env := ExecEnv(os.Environ(), vars)
	if te.View != nil {
		if err := te.writeView(topo, idx, dir, envValue(env, "PATH")); err != nil {
			return fmt.Errorf("writing the task namespace's files of %s[%d]: %w", te.Role, idx, err)
		}
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		if path, err = exec.LookPath(path); err != nil {
			return err
		}
	}
	if te.View != nil {
		if err := execView(dir, path, argv, env); !errors.Is(err, taskns.ErrNotEntered) {
			return err
		}
	}
	return syscall.Exec(path, argv, env)
}

// envValue is name's value in env (the first, as getenv(3) finds it).
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// readSnapshot waits for the snapshot Variable at path with blocking
// queries over the Task API socket (it is usually there already: the
// coordinator writes it at placement) and returns its items. A snapshot
// of another attempt than the task's is an error, as in the template.
func readSnapshot(ctx context.Context, path, attempt string) (map[string]string, error) {
	sock := Socket()
	if sock == "" {
		return nil, fmt.Errorf("the task has no Task API socket (NOMAD_UNIX_ADDR, or api.sock in NOMAD_SECRETS_DIR) to read the topology snapshot %s through: Nomad 1.7 or later creates it unless its path is too long for a unix socket (a client data_dir over ~40 bytes: the client logs \"error creating task api socket\")", path)
	}
	token := Token()
	var index uint64
	var failing time.Time
	for backoff := 250 * time.Millisecond; ; {
		r, err := readVar(sock, token, path, index, 5*time.Minute)
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
		case r.status == 404:
			failing, index = time.Time{}, r.index
			if index == 0 { // nothing to block on: do not spin
				time.Sleep(backoff)
			}
			continue
		case r.status != 200:
			return nil, fmt.Errorf("reading the topology snapshot %s: Unexpected response code: %d (%s)", path, r.status, strings.TrimSpace(clip(r.body)))
		}
		items, err := r.items()
		if err != nil {
			return nil, fmt.Errorf("reading the topology snapshot %s: %w", path, err)
		}
		if got := items[contract.SnapshotAttempt]; got != attempt {
			return nil, fmt.Errorf("jobshift-contract: topology snapshot %s is of attempt %s, not of this task's attempt %s", path, got, attempt)
		}
		return items, nil
	}
}

// Socket is the task's Task API socket, or "". identity { file = true }
// sets no NOMAD_UNIX_ADDR (Nomad sets it with the token's variable), but
// the socket is in the secrets dir all the same.
func Socket() string {
	if sock := strings.TrimPrefix(os.Getenv("NOMAD_UNIX_ADDR"), "unix://"); sock != "" {
		return sock
	}
	if dir := os.Getenv("NOMAD_SECRETS_DIR"); dir != "" {
		if s := filepath.Join(dir, "api.sock"); fileExists(s) {
			return s
		}
	}
	return ""
}

// Token is the task's workload identity: the file of identity { file =
// true } (secrets/nomad_token) when there is one, else NOMAD_TOKEN
// (identity { env = true }). The file wins: a raw_exec task inherits its
// client agent's environment, whose NOMAD_TOKEN, if any, is an operator's.
func Token() string {
	if dir := os.Getenv("NOMAD_SECRETS_DIR"); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "nomad_token")); err == nil {
			if t := strings.TrimSpace(string(b)); t != "" {
				return t
			}
		}
	}
	return os.Getenv("NOMAD_TOKEN")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Main is nomad-env's command line in both binaries: args are
// `-- COMMAND [ARG...]`; on success it never returns (the command
// replaces the process), else it says why on stderr and returns the exit
// code (2: usage, 1: the task fails as its template would have).
func Main(prog string, args []string, stderr io.Writer) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintf(stderr, "%s: usage: %s -- COMMAND [ARG...] (inside a Nomad task)\n", prog, prog)
		return 2
	}
	err := Exec(context.Background(), args[1:])
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return 1
}
