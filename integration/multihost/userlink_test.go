package multihost_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// userLink is the ${user} layout of userPaths with bob's directory
// holding bob-only.txt and mallory's directory a link to bob's, and
// mallory's plan of the three-task job on site.
func userLink(t *testing.T, c *cluster) (string, *translate.Plan) {
	t.Helper()
	shared, site := userPaths(t, c)
	if err := os.WriteFile(filepath.Join(shared, "ckpt", "bob", "bob-only.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bob", filepath.Join(shared, "ckpt", "mallory")); err != nil {
		t.Fatal(err)
	}
	return shared, userPathsPlan(t, site, "mallory")
}

// checkBobUntouched: bob's directory holds his file only.
func checkBobUntouched(t *testing.T, shared string) {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(shared, "ckpt", "bob"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "bob-only.txt" {
		t.Errorf("mallory's job wrote into bob's directory: %q", got)
	}
}

// TestUserDirLinkNomad: mallory's ${user} directory is a link to bob's:
// on every client her tasks' views refuse it before the command (which
// runs as root there), so her job fails and nothing reaches bob's tree.
func TestUserDirLinkNomad(t *testing.T) {
	c := need(t, "nomad")
	shared, plan := userLink(t, c)
	res, id := runNomad(t, c, plan, 3*time.Minute)
	if res.Phase != completion.PhaseFailed {
		t.Errorf("mallory's job: %+v, want failed", res)
	}
	cl := nomadClient(t, c)
	masters := 0
	for _, nt := range nomadTasks(t, cl, id) {
		if nt.role != "master" {
			continue
		}
		masters++
		if errOut := catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stderr.0"); !strings.Contains(errOut, "is a symbolic link") {
			t.Errorf("the master's stderr does not name the link: %q", errOut)
		}
	}
	if masters != 1 {
		t.Errorf("%d master allocations, want 1", masters)
	}
	checkBobUntouched(t, shared)
}

// TestUserDirLinkSlurm: the same on the Slurm cluster.
func TestUserDirLinkSlurm(t *testing.T) {
	c := need(t, "slurm")
	shared, plan := userLink(t, c)
	r := runSlurm(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseFailed {
		t.Errorf("mallory's job: %+v, want failed", r.final)
	}
	if errOut, _ := os.ReadFile(filepath.Join(r.adir, "master-0.err")); !strings.Contains(string(errOut), "is a symbolic link") {
		t.Errorf("master-0's stderr does not name the link: %q", errOut)
	}
	checkBobUntouched(t, shared)
}

// TestUserDirLinkNomadDocker: the same on the clients' Docker daemons,
// which would follow the link when they mount the directory: the
// submission is refused, located at the job's volume mounts, and nothing
// runs.
func TestUserDirLinkNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	shared, plan := userLink(t, dockerCluster(t, c))
	id := fmt.Sprintf("mh-userlink-%d", time.Now().UnixNano()%1e9)
	plan.Options["id"] = id
	t.Cleanup(func() { _, _, _ = nomadClient(t, c).Jobs().Deregister(id, true, nil) })
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: plan.Site})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Submit(t.Context(), plan)
	for _, want := range []string{"user-ckpt-spread.yaml:", filepath.Join(shared, "ckpt", "mallory") + " is a symbolic link"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mallory's submission: err = %v, want a refusal holding %q", err, want)
		}
	}
	if job, _, err := nomadClient(t, c).Jobs().Info(id, nil); err == nil {
		t.Errorf("job %s was registered (status %s)", id, *job.Status)
	}
	checkBobUntouched(t, shared)
}
