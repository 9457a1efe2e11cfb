package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
)

// TestDepsStayOut: jobshift-env exists to start fast once per task, so it
// must not link what makes the jobshift binary slow to start: the plugin
// host (go-plugin, gRPC, protobuf), the drivers, the readers, the HCL
// writer, the ssh emulation; nor the Nomad API client, net/http or TLS,
// which cost a start ≈ 3 ms for the one GET it makes over the Task API
// socket (intask taskapi.go). A new import that drags one in fails here.
func TestDepsStayOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, bad := range []string{
		"github.com/hashicorp/go-plugin", "google.golang.org/grpc", "google.golang.org/protobuf",
		"github.com/jobshift/jobshift/drivers/nomad", "github.com/jobshift/jobshift/plugin",
		"github.com/jobshift/jobshift/jobs/pai", "github.com/jobshift/jobshift/jobs/kubeflow",
		"github.com/hashicorp/hcl/v2/hclwrite", "golang.org/x/crypto/ssh",
		"github.com/hashicorp/nomad/api", "net/http", "crypto/tls",
	} {
		for _, d := range deps {
			if d == bad || strings.HasPrefix(d, bad+"/") && !strings.HasPrefix(d, "github.com/jobshift/jobshift/drivers/nomad/intask") {
				t.Errorf("jobshift-env links %s", d)
			}
		}
	}
}

// TestMainUsage: without `-- COMMAND` it says how to run it (2); outside a
// task it says why it cannot set the environment (1), never runs argv.
func TestMainUsage(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		code int
		says string
	}{
		"no command":    {nil, 2, "usage: jobshift-env -- COMMAND"},
		"no separator":  {[]string{"true"}, 2, "usage"},
		"empty argv":    {[]string{"--"}, 2, "usage"},
		"no payload":    {[]string{"--", "true"}, 1, intask.EnvVar + " is not set"},
		"not a payload": {[]string{"--", "true"}, 1, intask.EnvVar + " is not base64"},
	} {
		t.Setenv(intask.EnvVar, "")
		if name == "not a payload" {
			t.Setenv(intask.EnvVar, "{not base64}")
		}
		var stderr bytes.Buffer
		if code := intask.Main("jobshift-env", tc.args, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("%s: exit %d, stderr %q; want %d saying %q", name, code, stderr.String(), tc.code, tc.says)
		}
	}
}
