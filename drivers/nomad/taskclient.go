package nomad

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
)

// inTaskClient is a Nomad API client inside a task (the finisher's):
// through the Task API socket when there is one (socketClient), else
// NOMAD_ADDR. The socket wins: a raw_exec task inherits its client
// agent's environment, whose NOMAD_ADDR (set for the operator's CLI) may
// name another cluster. (nomad-env reads its one Variable without this
// client: intask taskapi.go says why.)
func inTaskClient() (*api.Client, error) {
	if sock := intask.Socket(); sock != "" {
		return socketClient(sock)
	}
	if os.Getenv("NOMAD_ADDR") != "" {
		return api.NewClient(api.DefaultConfig())
	}
	return nil, fmt.Errorf("neither NOMAD_UNIX_ADDR nor NOMAD_ADDR is set (the task needs identity { env = true })")
}

// socketClient is a client of the Task API socket sock with the task's
// token, asking for responses uncompressed. The socket's absolute path
// easily exceeds the 108 bytes a unix socket address may have (data dir +
// alloc UUID + task name), so the process moves into the socket's
// directory and dials it by relative name.
func socketClient(sock string) (*api.Client, error) {
	if err := os.Chdir(filepath.Dir(sock)); err != nil {
		return nil, err
	}
	name := filepath.Base(sock)
	cfg := api.DefaultConfig()
	cfg.Address = "http://127.0.0.1"
	cfg.SecretID = intask.Token() // identity { env = true } or { file = true }
	cfg.HttpClient = &http.Client{Transport: uncompressed{next: &http.Transport{
		DisableCompression: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "unix", name)
		},
	}}}
	return api.NewClient(cfg)
}
