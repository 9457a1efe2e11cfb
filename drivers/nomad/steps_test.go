package nomad

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// What the Nomad rendering cannot run as written is refused, located: a
// task must not start without it, nor run its init containers out of
// order, nor show a Secret's value in the job specification.
func TestStepsRefused(t *testing.T) {
	at := jobs.Pos{File: "j.yaml", Line: 7, Col: 9}
	step := func(name string, cmd ...string) jobs.InitStep {
		return jobs.InitStep{Name: name, Image: "busybox", Pos: at, Command: jobs.Command{Kind: jobs.CommandArgv, Command: cmd, Pos: at}}
	}
	withInit := func(steps ...jobs.InitStep) *jobs.Job {
		j := psWorker("x", "true")
		j.Roles[1].Init = steps
		return j
	}
	secretInit := step("fetch", "true")
	secretInit.Env = []jobs.EnvVar{{Name: "TOKEN", Value: "s3cr3t-init", Secret: true, Pos: at}}
	interp := step("fetch", "/bin/sh", "-c", "echo ${HOME}")
	docker := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", Datacenters: []string{"dc1"}, BarrierTimeout: "2m"}}
	for name, c := range map[string]struct {
		j    *jobs.Job
		site *siteconfig.Config
		want string
	}{
		"no command on host": {withInit(step("fetch")), rawExecSite(), "Init container without a command"},
		"two in containers":  {withInit(step("a", "true"), step("b", "true")), docker, "Init containers not run in order on Nomad"},
		"interpolated":       {withInit(interp), docker, "Init container value Nomad would rewrite"},
		"secret in init":     {withInit(secretInit), rawExecSite(), "Secret value not delivered on Nomad"},
	} {
		_, diags := BuildJob(plan(c.j, c.site), fixtureContract{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) || diags[0].Subject == nil || diags[0].Subject.Start.Line != 7 {
			t.Errorf("%s: want error %q at line 7, got %v", name, c.want, diags)
		}
		if strings.Contains(diags.Error(), "s3cr3t-init") {
			t.Errorf("%s: a diagnostic shows the Secret's value: %v", name, diags)
		}
	}
	// what the host drivers run: more than one step, in one task, in order
	for _, site := range []*siteconfig.Config{rawExecSite()} {
		j := withInit(step("a", "true"), step("b", "true"), interp)
		job, diags := BuildJob(plan(j, site), fixtureContract{})
		if diags.HasErrors() {
			t.Fatalf("host driver: %v", diags)
		}
		g := job.TaskGroups[1]
		if g.Tasks[0].Name == InitTask || g.Tasks[1].Name != InitTask {
			t.Errorf("tasks %s, %s: want the barrier, then the init task", g.Tasks[0].Name, g.Tasks[1].Name)
		}
		if s := templateText(t, g.Tasks[1].Templates[0]); !strings.Contains(s, "'echo ${HOME}'") {
			t.Errorf("init script does not carry ${HOME} whole:\n%s", s)
		}
	}
}
