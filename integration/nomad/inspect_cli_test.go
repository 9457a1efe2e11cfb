package nomad_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/integration/nomad/agent"
)

// TestCLIConvertEqualsRegistered is TestConvertEqualsRegistered through
// the jobshift binary, for the examples on raw_exec with the helper: what
// `jobshift convert -to nomad-json` prints is what `jobshift run -to nomad
// -detach` registers, and what `convert -to nomad-json -watched` prints is
// what `jobshift run -to nomad` registers (that run is killed once its job
// is registered: its watcher would wait for a placement that never comes
// in datacenter nowhere). Both compared exactly on the wire and group by
// group with what the agent stores.
func TestCLIConvertEqualsRegistered(t *testing.T) {
	c := agent.Client(t)
	reg := &registrar{agent: agent.Addr(t)}
	proxy := newProxy(t, reg)
	t.Setenv("NOMAD_ADDR", proxy)
	bin := helper(t)
	start := time.Now() // after the build
	dir := t.TempDir()
	site := filepath.Join(dir, "jobshift.hcl")
	conf := fmt.Sprintf("nomad {\n  driver = \"raw_exec\"\n  helper = \"/usr/local/bin/jobshift\"\n  cpu_mhz_per_core = 100\n  datacenters = [%q]\n}\n", nowhere)
	if err := os.WriteFile(site, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(agent.Repo(), "examples", "*.[jy]*"))
	filled := map[string]bool{}
	n := 0
	for i, f := range files {
		user := fmt.Sprintf("insp%d-%d", time.Now().UnixNano()%1e6, i)
		args := []string{"-config", site, "-user", user, f}
		for _, watched := range []bool{false, true} {
			name := fmt.Sprintf("%s watched=%t", filepath.Base(f), watched)
			conv := append([]string{"convert", "-to", "nomad-json"}, args...)
			run := append([]string{"run", "-to", "nomad"}, args...)
			if watched {
				conv = append([]string{"convert", "-to", "nomad-json", "-watched"}, args...)
			} else {
				run = append([]string{"run", "-to", "nomad", "-detach"}, args...)
			}
			out, errOut, err := runBin(bin, conv...)
			if err != nil {
				t.Logf("%s does not convert: %s", name, errorLine(errOut))
				continue
			}
			var doc struct{ Job *api.Job }
			if err := json.Unmarshal(out, &doc); err != nil || doc.Job == nil {
				t.Errorf("%s: convert -to nomad-json printed no job: %v", name, err)
				continue
			}
			checkShape(t, name, doc.Job, watched)
			id := *doc.Job.ID
			registered := registerWithCLI(t, bin, reg, id, watched, run)
			purge(t, c, id)
			if registered == nil {
				continue
			}
			n++
			if diff := cmp.Diff(doc.Job, registered.wire); diff != "" {
				t.Errorf("%s: registered job (-converted +registered):\n%s", name, diff)
			}
			for _, d := range compareGroups(doc.Job, registered.stored, filled) {
				t.Errorf("%s: %s", name, d)
			}
		}
	}
	t.Logf("%d examples × shape converted and registered with the jobshift binary in %s", n, time.Since(start).Round(time.Millisecond))
	if n == 0 {
		t.Fatal("nothing compared")
	}
}

type cliRegistration struct {
	wire, stored *api.Job
}

// registerWithCLI runs jobshift run (args); a watched run is killed once
// its job is registered.
func registerWithCLI(t *testing.T, bin string, reg *registrar, id string, watched bool, args []string) *cliRegistration {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wire *api.Job
	if watched {
		for deadline := time.Now().Add(30 * time.Second); wire == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			wire = reg.take(id)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	} else {
		if err := cmd.Wait(); err != nil {
			t.Errorf("jobshift %v: %v\n%s", args, err, errOut.String())
			return nil
		}
		wire = reg.take(id)
	}
	if wire == nil {
		t.Errorf("jobshift %v registered no job %s:\n%s", args, id, errOut.String())
		return nil
	}
	stored, _, err := agent.Client(t).Jobs().Info(id, nil)
	if err != nil {
		t.Errorf("nomad job inspect %s: %v", id, err)
		return nil
	}
	return &cliRegistration{wire: wire, stored: stored}
}

func runBin(bin string, args ...string) ([]byte, string, error) {
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.Bytes(), errOut.String(), err
}

// errorLine is the first error line of jobshift's diagnostics.
func errorLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "error") {
			return l
		}
	}
	return s
}
