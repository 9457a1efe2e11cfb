package slurm_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
)

// TestVolcanoUnplaceableOnSlurm: the Volcano job whose worker asks for
// memory no node has (examples/testdata/volcano-unknown-abortjob.yaml,
// which raises Unknown on Nomad where part of it is placed) is refused at
// submission on Slurm, which allocates a job whole: sbatch's own reason,
// and jobshift's hint naming what to check.
func TestVolcanoUnplaceableOnSlurm(t *testing.T) {
	needCluster(t)
	p := loadPlan(t, filepath.Join("examples", "testdata", "volcano-unknown-abortjob.yaml"), nil)
	d := slurm.New(drivers.Config{})
	h, err := d.Submit(context.Background(), p)
	if err == nil {
		_ = d.Stop(context.Background(), h)
		t.Fatalf("submitted as %s; want a refusal", h.ID)
	}
	if !errors.Is(err, slurm.ErrPlacement) {
		t.Fatalf("err = %v, want ErrPlacement", err)
	}
	for _, want := range []string{"Requested node configuration is not available", "No node of the partition can hold one task"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
