package sshemu_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	_ "github.com/jobshift/jobshift/drivers/local"
	_ "github.com/jobshift/jobshift/drivers/nomad"
	_ "github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/drivers/sshemu"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestCorpusSSHSetup sweeps the corpus: every MPIJob converts (or gets a
// located reason), and every job whose tasks need ssh (an MPIJob, a PAI job
// with the ssh plugin's jobssh under gang allocation) gets the emulation on
// each target: the wrapper in the rendered artifact once per ssh role, and
// never a private key in it.
func TestCorpusSSHSetup(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not available")
	}
	var files []string
	for _, dir := range []string{"pai-v1", "pai-v2", "mpijob"} {
		m, _ := filepath.Glob(filepath.Join(corpus, dir, "*"))
		files = append(files, m...)
	}
	sort.Strings(files)
	sshJobs, mpiJobs := 0, 0
	for _, f := range files {
		rel, _ := filepath.Rel(corpus, f)
		job, diags := load.Load(f, jobs.ReadOptions{Path: rel, Lossy: true})
		isMPI := strings.HasPrefix(rel, "mpijob/")
		if diags.HasErrors() || job == nil {
			if isMPI && !located(diags.Error(), rel) {
				t.Errorf("%s: error without a file:line:col: %v", rel, diags)
			}
			continue
		}
		if isMPI {
			mpiJobs++
		}
		if (isMPI || pluginOn(job)) != sshemu.Enabled(job) {
			t.Errorf("%s: emulation enabled %v, want it for MPIJobs and jobssh plugins", rel, sshemu.Enabled(job))
		}
		if !sshemu.Enabled(job) {
			continue
		}
		sshJobs++
		plan, diags := translate.Build(job, &siteconfig.Config{}, nil, "ci")
		if diags.HasErrors() {
			if isMPI && !located(diags.Error(), rel) {
				t.Errorf("%s: plan error without a file:line:col: %v", rel, diags)
			}
			continue
		}
		want := 0
		for k := range job.Roles {
			if sshemu.RoleEnabled(job, k) {
				want++
			}
		}
		for _, target := range []string{"local", "nomad", "slurm"} {
			d, err := drivers.New(target, drivers.Config{Site: plan.Site})
			if err != nil {
				t.Fatal(err)
			}
			plan.Options = map[string]string{}
			a, err := d.Render(context.Background(), plan)
			if err != nil {
				if !located(err.Error(), rel) {
					t.Errorf("%s on %s: error without a file:line:col: %v", rel, target, err)
				} else {
					t.Logf("%s on %s: %v", rel, target, err)
				}
				continue
			}
			var all []byte
			for _, file := range a.Files {
				all = append(all, file.Data...)
			}
			if bytes.Contains(all, []byte("PRIVATE KEY")) {
				t.Errorf("%s on %s: a private key in the artifact", rel, target)
			}
			got := bytes.Count(all, []byte("sshemu.sh"))
			if target == "local" {
				got = bytes.Count(all, []byte("sshemu.sh "))
			}
			if got < want {
				t.Errorf("%s on %s: the wrapper appears %d times, want at least once per ssh role (%d)", rel, target, got, want)
			}
		}
	}
	t.Logf("%d MPIJob files read, %d jobs with the ssh emulation rendered on local, nomad and slurm", mpiJobs, sshJobs)
	if sshJobs == 0 {
		t.Error("no corpus job uses ssh")
	}
}

func pluginOn(job *jobs.Job) bool {
	if !job.Retry.GangAllocation {
		return false
	}
	for _, p := range job.Extras.RuntimePlugins {
		if p.Plugin == "ssh" && p.Parameters["jobssh"] == true {
			return true
		}
	}
	return false
}

func located(msg, rel string) bool { return strings.Contains(msg, rel+":") }
