package slurm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestSiteHooks: a site's #SBATCH directive (slurm.sbatch), a role rule's
// directive and a per-run -sbatch-arg all reach sbatch (scontrol show job
// reports them), --comment names the source file, and a role's setup
// commands run in the task's shell before the user's command (the command
// sees what they export). The script sources its library from the state
// directory, and is a few hundred lines.
func TestSiteHooks(t *testing.T) {
	needCluster(t)
	site, diags := siteconfig.ParseConfig([]byte(`
slurm { sbatch = ["--nice=7"] }
role "worker" {
  sbatch = ["--mail-type=NONE", "--begin=now"]
  setup  = ["JOBSHIFT_SETUP_MARK=set-by-setup", "export JOBSHIFT_SETUP_MARK"]
}
`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	file := writeJob(t, "hooks.yaml", "protocolVersion: 2\nname: hooks\ntype: job\njobRetryCount: 0\n"+img+
		"taskRoles:\n  worker:\n    instances: 2\n    dockerImage: img\n"+
		"    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n    commands:\n"+
		"      - echo \"mark=${JOBSHIFT_SETUP_MARK:-unset}\"\n")
	job, diags := load.Load(file, jobs.ReadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{"state_dir": t.TempDir(), "submit_dir": repoRoot(),
		slurm.OptSbatchArgs: "--time=9"}
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	out, err := exec.Command("scontrol", "show", "job", "-o", r.h.ID).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v\n%s", r.h.ID, err, out)
	}
	show := string(out)
	for _, want := range []string{
		" Nice=7 ",                               // site directive
		" TimeLimit=00:09:00 ",                   // per-run -sbatch-arg
		" Comment=jobshift:pai-v2:" + file + " ", // source file
	} {
		if !strings.Contains(show, want) {
			t.Errorf("scontrol show job lacks %q:\n%s", want, show)
		}
	}
	for i := 0; i < 2; i++ {
		b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", "worker-"+string(rune('0'+i))+".out"))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != "mark=set-by-setup\n" {
			t.Errorf("task worker-%d printed %q, want the setup's export seen by the command", i, got)
		}
	}
	script, err := os.ReadFile(r.h.Meta["script"])
	if err != nil {
		t.Fatal(err)
	}
	// the library alone is some 900 lines; the script, its job's data and
	// task program (with the in-shell stage since session 11) ~400
	if n := strings.Count(string(script), "\n"); n > 600 {
		t.Errorf("the batch script has %d lines; the library should be a file beside it", n)
	}
	for _, d := range []string{"#SBATCH --nice=7\n", "#SBATCH --mail-type=NONE\n", "#SBATCH --begin=now\n", "#SBATCH --time=9\n"} {
		if !strings.Contains(string(script), d) {
			t.Errorf("script lacks %q", d)
		}
	}
}
