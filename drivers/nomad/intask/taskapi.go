package intask

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The one request nomad-env makes: a blocking read of the snapshot
// Variable over the task's Task API socket, as HTTP/1.0 written and read
// by hand. jobshift-env runs once per task at every job's start, and what
// a Go binary links is paid at each start in package inits and page faults
// (≈ 3 ms of a 15 ms start on a VM where a page fault is dear, measured:
// BENCHMARKS.md); nomad/api and net/http were that much for one GET. An
// HTTP/1.0 request gets neither a chunked nor a compressed body: the agent
// (Go's net/http server) answers it with the body to the end of the
// connection, which it then closes.

// varResponse is one answer of GET /v1/var/<path>: its status, the
// X-Nomad-Index of a blocking query, and the body.
type varResponse struct {
	status int
	index  uint64
	body   []byte
}

// readVar asks the agent behind the unix socket sock for the Variable at
// path, blocking (index > 0) until its index passes index or wait ends. The
// socket's absolute path easily exceeds the 108 bytes a unix socket
// address may have (data dir + alloc UUID + task name), so the process
// moves into the socket's directory and dials it by its relative name.
func readVar(sock, token, path string, index uint64, wait time.Duration) (*varResponse, error) {
	q := "index=" + strconv.FormatUint(index, 10) + "&wait=" + wait.String()
	// inside a task Nomad sets these to the job's, as nomad/api's
	// DefaultConfig would send them
	if ns := os.Getenv("NOMAD_NAMESPACE"); ns != "" {
		q += "&namespace=" + url.QueryEscape(ns)
	}
	if r := os.Getenv("NOMAD_REGION"); r != "" {
		q += "&region=" + url.QueryEscape(r)
	}
	req := "GET /v1/var/" + path + "?" + q + " HTTP/1.0\r\nHost: 127.0.0.1\r\n"
	if token != "" {
		req += "X-Nomad-Token: " + token + "\r\n"
	}
	raw, err := roundTrip(sock, req+"\r\n")
	if err != nil {
		return nil, err
	}
	return parseResponse(raw)
}

// roundTrip writes req to the unix socket sock and reads the answer to
// the end of the connection.
func roundTrip(sock, req string) ([]byte, error) {
	fd, err := dialUnix(sock)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), sock)
	defer f.Close()
	if _, err := f.WriteString(req); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dialUnix connects to the unix socket at path (see readVar for why by
// its relative name); the working directory is given back before it
// returns, since the user's command starts in it.
func dialUnix(path string) (int, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return -1, err
	}
	if err := os.Chdir(filepath.Dir(path)); err != nil {
		return -1, err
	}
	defer os.Chdir(cwd)
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: filepath.Base(path)})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("dial %s: %w", path, err)
	}
	return fd, nil
}

// parseResponse reads an HTTP/1.x answer whose body runs to the end.
func parseResponse(raw []byte) (*varResponse, error) {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		return nil, fmt.Errorf("the Task API answered %q, not HTTP", clip(raw))
	}
	lines := strings.Split(string(head), "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil {
		return nil, fmt.Errorf("the Task API answered %q, not HTTP", clip(raw))
	}
	r := &varResponse{status: status, body: body}
	for _, l := range lines[1:] {
		name, val, _ := strings.Cut(l, ":")
		if strings.EqualFold(strings.TrimSpace(name), "X-Nomad-Index") {
			r.index, _ = strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Transfer-Encoding") {
			return nil, fmt.Errorf("the Task API answered an HTTP/1.0 request with Transfer-Encoding %s", strings.TrimSpace(val))
		}
	}
	return r, nil
}

// items decodes a 200 answer's Variable items.
func (r *varResponse) items() (map[string]string, error) {
	var v struct{ Items map[string]string }
	if err := json.Unmarshal(r.body, &v); err != nil {
		return nil, fmt.Errorf("the Variable is not JSON: %w", err)
	}
	return v.Items, nil
}

func clip(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
