package nomad

import (
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestNewInTaskPrefersTheSocket: inside a task the Task API socket is the
// job's own cluster; a NOMAD_ADDR inherited from the client agent's
// environment is not used while the socket is there; and it asks for
// responses uncompressed (the agent would gzip them: CPU on both ends of
// a unix socket for nothing).
func TestNewInTaskPrefersTheSocket(t *testing.T) {
	t.Chdir(".") // NewInTask moves into the socket's directory; restored after
	sock := filepath.Join(t.TempDir(), "api.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	var enc atomic.Value
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		enc.Store(r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`"127.0.0.1:4647"`))
	})}
	go srv.Serve(l)
	defer srv.Close()
	t.Setenv("NOMAD_UNIX_ADDR", "unix://"+sock)
	t.Setenv("NOMAD_ADDR", "http://127.0.0.1:1") // another cluster's, unreachable here
	d, err := NewInTask()
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status().Leader(); err != nil {
		t.Fatalf("through the socket: %v", err)
	}
	if hits.Load() != 1 {
		t.Errorf("the socket served %d requests, want 1", hits.Load())
	}
	if e := enc.Load(); e != "" {
		t.Errorf("the request carried Accept-Encoding %q, want none", e)
	}
}
