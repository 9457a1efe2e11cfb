package intask

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeTaskAPI serves GET /v1/var/<path> on a unix socket with Go's
// net/http server, as the Nomad agent does: 404 with X-Nomad-Index until
// the Variable is set, blocking queries answered at once (the test
// drives the sequence through answers). It records each request.
type fakeTaskAPI struct {
	sock string
	mu   sync.Mutex
	reqs []*http.Request
	// answers are served in order, the last one repeatedly.
	answers []fakeAnswer
}

type fakeAnswer struct {
	status int
	index  string
	body   string
}

func newFakeTaskAPI(t *testing.T, answers ...fakeAnswer) *fakeTaskAPI {
	t.Helper()
	f := &fakeTaskAPI{sock: filepath.Join(t.TempDir(), "api.sock"), answers: answers}
	l, err := net.Listen("unix", f.sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: f}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeTaskAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.reqs = append(f.reqs, r)
	a := f.answers[min(len(f.reqs), len(f.answers))-1]
	f.mu.Unlock()
	w.Header().Set("X-Nomad-Index", a.index)
	w.WriteHeader(a.status)
	// a body larger than the server's buffer: a chunked one if the
	// request were HTTP/1.1
	w.Write([]byte(a.body))
}

// TestReadSnapshotOverTheSocket: nomad-env's hand-written HTTP/1.0 read
// blocks through 404s on the index the agent gives, sends the task's
// token, namespace and region, and decodes a large Variable (over the
// server's 4 KiB buffer) whole.
func TestReadSnapshotOverTheSocket(t *testing.T) {
	t.Chdir(".") // readVar dials from the socket's directory; it must come back
	big := strings.Repeat("10.0.0.1 ", 2000)
	f := newFakeTaskAPI(t,
		fakeAnswer{404, "7", "variable not found"},
		fakeAnswer{404, "9", "variable not found"},
		fakeAnswer{200, "12", `{"Path":"nomad/jobs/j/g","Items":{"attempt":"3","a0":"` + big + `"}}`},
	)
	t.Setenv("NOMAD_UNIX_ADDR", "unix://"+f.sock)
	t.Setenv("NOMAD_SECRETS_DIR", "")
	t.Setenv("NOMAD_TOKEN", "wi-token")
	t.Setenv("NOMAD_NAMESPACE", "team a")
	t.Setenv("NOMAD_REGION", "eu-1")
	cwd := t.TempDir()
	t.Chdir(cwd)
	items, err := readSnapshot(context.Background(), "nomad/jobs/j/g", "3")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"attempt": "3", "a0": big}, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	var got []string
	for _, r := range f.reqs {
		got = append(got, r.Proto+" "+r.URL.String()+" token="+r.Header.Get("X-Nomad-Token")+" enc="+r.Header.Get("Accept-Encoding"))
	}
	want := []string{
		"HTTP/1.0 /v1/var/nomad/jobs/j/g?index=0&wait=5m0s&namespace=team+a&region=eu-1 token=wi-token enc=",
		"HTTP/1.0 /v1/var/nomad/jobs/j/g?index=7&wait=5m0s&namespace=team+a&region=eu-1 token=wi-token enc=",
		"HTTP/1.0 /v1/var/nomad/jobs/j/g?index=9&wait=5m0s&namespace=team+a&region=eu-1 token=wi-token enc=",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if wd, _ := filepath.EvalSymlinks(mustGetwd(t)); wd != mustEval(t, cwd) {
		t.Errorf("working directory %s after the read, want %s", wd, cwd)
	}
}

// TestReadSnapshotRefusals: an answer that is neither the Variable nor
// "not yet" fails the task with what the agent said; so does another
// attempt's snapshot and a task without a socket.
func TestReadSnapshotRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		answer fakeAnswer
		noSock bool
		says   string
	}{
		"forbidden":     {answer: fakeAnswer{403, "1", "Permission denied"}, says: "Unexpected response code: 403 (Permission denied)"},
		"other attempt": {answer: fakeAnswer{200, "4", `{"Items":{"attempt":"2"}}`}, says: "is of attempt 2, not of this task's attempt 3"},
		"not JSON":      {answer: fakeAnswer{200, "4", `<html>`}, says: "the Variable is not JSON"},
		"no socket":     {noSock: true, says: "the task has no Task API socket"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Chdir(".")
			f := newFakeTaskAPI(t, tc.answer)
			t.Setenv("NOMAD_UNIX_ADDR", "unix://"+f.sock)
			t.Setenv("NOMAD_SECRETS_DIR", "")
			if tc.noSock {
				t.Setenv("NOMAD_UNIX_ADDR", "")
			}
			_, err := readSnapshot(context.Background(), "nomad/jobs/j/g", "3")
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v, want one saying %q", err, tc.says)
			}
		})
	}
}

func TestParseResponse(t *testing.T) {
	for name, tc := range map[string]struct {
		raw    string
		status int
		index  uint64
		body   string
		err    string
	}{
		"ok":          {raw: "HTTP/1.0 200 OK\r\nX-Nomad-Index: 42\r\nContent-Type: application/json\r\n\r\n{}", status: 200, index: 42, body: "{}"},
		"header case": {raw: "HTTP/1.1 404 Not Found\r\nx-nomad-index:  5\r\n\r\nnot found", status: 404, index: 5, body: "not found"},
		"empty body":  {raw: "HTTP/1.0 500 Internal Server Error\r\n\r\n", status: 500},
		"not http":    {raw: "SSH-2.0-OpenSSH\r\n\r\n", err: "not HTTP"},
		"truncated":   {raw: "HTTP/1.0 200 OK\r\nX-Nomad-Index: 1", err: "not HTTP"},
		"chunked":     {raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", err: "Transfer-Encoding chunked"},
	} {
		r, err := parseResponse([]byte(tc.raw))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", name, err, tc.err)
			}
			continue
		}
		if err != nil || r.status != tc.status || r.index != tc.index || string(r.body) != tc.body {
			t.Errorf("%s: %+v, %v; want status %d index %d body %q", name, r, err, tc.status, tc.index, tc.body)
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
