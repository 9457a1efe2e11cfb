// Package agent gives integration tests a real Nomad dev agent: the one
// scripts/nomad-dev-start.sh started (reused), or a new one it starts and
// stops after the tests. Tests skip when no nomad binary exists, but fail
// under CI=true, where a missing cluster is a broken setup.
package agent

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// Repo is the repository root.
func Repo() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), "..", "..", ".."))
}

// Binary finds nomad: $NOMAD_BIN, the cache build, or PATH.
func Binary() string {
	if b := os.Getenv("NOMAD_BIN"); b != "" {
		return b
	}
	cache := os.Getenv("JOBSHIFT_CACHE")
	if cache == "" {
		cache = filepath.Join(Repo(), ".cache")
	}
	if b := filepath.Join(cache, "nomad", "bin", "nomad"); isExec(b) {
		return b
	}
	b, _ := exec.LookPath("nomad")
	return b
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

var (
	once    sync.Once
	addr    string
	started bool
	err     error
)

// Addr returns the agent's address, starting it if needed.
func Addr(t testing.TB) string {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no nomad binary (CI=true): run scripts/install-nomad.sh")
		}
		t.Skip("no nomad binary; run scripts/install-nomad.sh to enable Nomad integration tests")
	}
	once.Do(func() {
		pidf := filepath.Join(cacheDir(), "nomad", "dev", "nomad.pid")
		_, statErr := os.Stat(pidf)
		started = statErr != nil
		cmd := exec.Command("bash", filepath.Join(Repo(), "scripts", "nomad-dev-start.sh"))
		cmd.Env = append(os.Environ(), "NOMAD_BIN="+bin)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err = cmd.Run(); err != nil {
			err = &startError{err, stderr.String()}
			return
		}
		addr = strings.TrimPrefix(strings.TrimSpace(out.String()), "NOMAD_ADDR=")
	})
	if err != nil {
		t.Fatalf("starting the nomad dev agent: %v", err)
	}
	return addr
}

type startError struct {
	err    error
	stderr string
}

func (e *startError) Error() string { return e.err.Error() + ": " + e.stderr }

func cacheDir() string {
	if c := os.Getenv("JOBSHIFT_CACHE"); c != "" {
		return c
	}
	return filepath.Join(Repo(), ".cache")
}

// Client returns an API client for the agent.
func Client(t testing.TB) *api.Client {
	t.Helper()
	addr := Addr(t)
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if c := clients[addr]; c != nil {
		return c
	}
	cfg := api.DefaultConfig()
	cfg.Address = addr
	c, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clients[addr] = c
	return c
}

// One client per address for the whole test process: every client has its
// own pool of keep-alive connections, and the agent refuses an address
// holding more than its http_max_conns_per_client (429).
var (
	clientsMu sync.Mutex
	clients   = map[string]*api.Client{}
)

// StopIfStarted stops the agent when this process started it; call it from
// TestMain after m.Run.
func StopIfStarted() {
	if started && addr != "" {
		_ = exec.Command("bash", filepath.Join(Repo(), "scripts", "nomad-dev-stop.sh")).Run()
	}
}
