package nomad_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
)

// TestStopReachesProcessGroup: a stop gives every task's processes SIGTERM
// and the grace period to checkpoint, as a pod's stop does, also when the
// process is not the task's top process (a shell runs it) and the role is
// not restarted in place (restartPolicy Never: no restart loop). Nomad
// signals only the top process of a raw_exec task, so without jobshift's
// stop wrapper the shell died of SIGTERM and the process got SIGKILL.
func TestStopReachesProcessGroup(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir, err := os.MkdirTemp("", "jobshift-stopgroup-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b, err := os.ReadFile(filepath.Join(agent.Repo(), "integration", "nomad", "testdata", "stop-group.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "stop-group.yaml")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(b), "@DIR@", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := loadPlan(t, file, site())
	p.Options["id"] = fmt.Sprintf("stopgroup-%d", time.Now().UnixNano()%1e9)
	p.Options[nomad.OptWorkDir] = agent.Repo()
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p.Options[nomad.OptWatched] = "true" // watched below, as jobshift run does
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Client(t).Jobs().Deregister(h.ID, true, nil)
	// every task's process has started before the stop
	drivertest.StopOnceRunning(ctx, t, &startedFirst{Driver: d, dir: dir, n: 3}, h, 3)
	for _, task := range []string{"master-0", "worker-0", "worker-1"} {
		b, err := os.ReadFile(filepath.Join(dir, task))
		if got := strings.Fields(string(b)); err != nil || strings.Join(got, " ") != "start term ckpt" {
			t.Errorf("%s recorded %q (%v), want start, term, ckpt: SIGTERM to its process and the grace to checkpoint", task, got, err)
		}
	}
}

// startedFirst delays the stop until every task's process wrote its start
// record: Nomad reports a task running when its top process started.
type startedFirst struct {
	drivers.Driver
	dir string
	n   int
}

func (s *startedFirst) Stop(ctx context.Context, h drivers.Handle) error {
	for ctx.Err() == nil {
		files, _ := filepath.Glob(filepath.Join(s.dir, "*"))
		if len(files) == s.n {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s.Driver.Stop(ctx, h)
}
