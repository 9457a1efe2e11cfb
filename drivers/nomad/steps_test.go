package nomad

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// What the Nomad rendering cannot run as written is refused, located: a
// task must not start without it, nor run its init containers out of
// order.
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

// TestInitSecretEnvRendered: an init step's Secret variable is an item of
// the job's Variable, read by the init task's env template (by its own
// name in a container, as JOBSHIFT_INIT_SECRET_J_I for a host driver's
// script, which gives it to its step only); the value is nowhere in the
// job.
func TestInitSecretEnvRendered(t *testing.T) {
	at := jobs.Pos{File: "j.yaml", Line: 7, Col: 9}
	j := psWorker("x", "true")
	j.Roles[1].Init = []jobs.InitStep{
		{Name: "a", Image: "busybox", Pos: at, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"true"}, Pos: at}},
		{Name: "fetch", Image: "busybox", Pos: at, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"true"}, Pos: at},
			Env: []jobs.EnvVar{{Name: "MODE", Value: "x"}, {Name: "TOKEN", Value: "s3cr3t-init", Secret: true, Pos: at}}},
	}
	docker := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", Datacenters: []string{"dc1"}, BarrierTimeout: "2m"}}
	for name, c := range map[string]struct {
		site       *siteconfig.Config
		steps      int
		tmpl, text string
	}{
		"raw_exec": {rawExecSite(), 2, `JOBSHIFT_INIT_SECRET_1_1={{ with nomadVar`, `_jsv1="$JOBSHIFT_INIT_SECRET_1_1" && unset JOBSHIFT_INIT_SECRET_1_1 && exec env -- 'MODE=x' 'TOKEN='"$_jsv1" 'true'`},
		"docker":   {docker, 1, `TOKEN={{ with nomadVar`, ""},
	} {
		jj := *j
		jj.Roles = append([]*jobs.Role(nil), j.Roles...)
		r := *j.Roles[1]
		r.Init = r.Init[2-c.steps:]
		jj.Roles[1] = &r
		job, diags := BuildJob(plan(&jj, c.site), fixtureContract{})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		b, _ := json.Marshal(job)
		if strings.Contains(string(b), "s3cr3t-init") {
			t.Errorf("%s: the job holds the Secret's value", name)
		}
		var init *api.Task
		for _, task := range groupOf(job, "worker").Tasks {
			if task.Name == InitTask {
				init = task
			}
		}
		var all strings.Builder
		for _, tm := range init.Templates {
			switch *tm.DestPath {
			case "local/jobshift-init.sh":
				all.WriteString(templateText(t, tm))
			case SecretInitEnvFile:
				all.WriteString(*tm.EmbeddedTmpl)
			}
		}
		if !strings.Contains(all.String(), c.tmpl) || !strings.Contains(all.String(), `"jobshift_initenv.worker.`) || !strings.Contains(all.String(), c.text) {
			t.Errorf("%s: init task templates:\n%s\nwant %q and %q", name, all.String(), c.tmpl, c.text)
		}
		if init.Env["TOKEN"] != "" {
			t.Errorf("%s: the init task's env block holds TOKEN", name)
		}
	}
}
