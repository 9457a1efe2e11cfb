package contracttmpl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	cttmpl "github.com/hashicorp/consul-template/template"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// TestTaskEnvMatchesOracle renders whole Nomad jobs through the driver —
// tasks with and without GPUs, user variables that must travel through
// the template (they contain ${...}) and plain ones, every contract
// combination the random jobs carry, on raw_exec and Docker — executes
// each task's env template as Nomad's client does, and requires the
// task's whole environment (env block + template) to be what the source
// platform gave: the role's variables, GPU visibility, and the oracle's
// contract. This is the test that sees a variable glued onto the line
// before it (CUDA_VISIBLE_DEVICES=GPU-1TF_CONFIG=...).
func TestTaskEnvMatchesOracle(t *testing.T) {
	var checked [2]int // task environments from an env template, sourced from a file
	cases := 240
	if testing.Short() {
		cases = 40
	}
	for n := range cases {
		c := contracttest.RandomNoTilde(7, n)
		r := rand.New(rand.NewPCG(8, uint64(n)))
		contracttest.AsTasks(r, c.Job)
		for _, driver := range []string{"raw_exec", "docker"} {
			// the barrier's registrations (a converted job), and the
			// snapshot of a job Submit registers: read by the env template
			// (docker) or by the file a task's sh sources (raw_exec,
			// shellenv.go), sourced here by dash and bash
			modes := []string{nomad.RendezvousBarrier, nomad.RendezvousSnap}
			for _, mode := range modes[:1+n%2] { // the snapshot every other case
				p := &translate.Plan{Job: c.Job, Contracts: c.Job.Contracts, User: c.Opts.User,
					Site:    &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: driver}},
					Options: map[string]string{nomad.OptWatched: strconv.FormatBool(mode == nomad.RendezvousSnap)}}
				tmpl, sourced := checkTasks(t, r, p, c.Topo, fmt.Sprintf("%s/%s/%s", c.Name, driver, mode))
				checked[0] += tmpl
				checked[1] += sourced
			}
		}
	}
	t.Logf("%d task environments from an env template, %d sourced from a file", checked[0], checked[1])
	if checked[0] == 0 || checked[1] == 0 {
		t.Fatal("a way of carrying the environment was never taken")
	}
}

// checkTasks checks every task of p's job and returns how many task
// environments came from an env template and how many were sourced.
func checkTasks(t *testing.T, r *rand.Rand, p *translate.Plan, topo contract.Topology, name string) (tmplN, sourcedN int) {
	t.Helper()
	job, diags := nomad.BuildJob(p, nil)
	if diags.HasErrors() {
		t.Fatalf("%s: BuildJob: %v", name, diags)
	}
	jobID := nomad.JobIDFor(p)
	opts := nomad.ContractOptions(p)
	snap := job.Meta[nomad.MetaRendezvous] == nomad.RendezvousSnap
	brain := registrations(t, r, p.Job, topo, jobID, opts, "")
	for k, role := range p.Job.Roles {
		if role.Instances == 0 {
			continue
		}
		if snap {
			path := nomad.TopologyPath(jobID, *job.TaskGroups[k].Name)
			brain = snapshot(t, p.Job, topo, jobID, path, "0", opts)
		}
		for _, task := range job.TaskGroups[k].Tasks {
			tmpl, sourced := envTemplate(task), false
			if tmpl == "" {
				tmpl, sourced = shellTemplate(task), true
			}
			if tmpl == "" {
				continue
			}
			proc := ""
			if task.Name == nomad.PSTask {
				proc = contract.ProcessPS
			}
			gpus := len(task.Resources.Devices) > 0
			for _, i := range []int{0, role.Instances - 1} {
				env := append([]string{"NOMAD_ALLOC_INDEX=" + fmt.Sprint(i), "NOMAD_JOB_ID=" + jobID, "NOMAD_META_jobshift_attempt=0"}, contracttest.NomadNodeEnv(topo, k, i)...)
				devices := fmt.Sprintf("GPU-fake-%d,GPU-fake-%d", 2*i, 2*i+1)
				if gpus {
					env = append(env, "NVIDIA_VISIBLE_DEVICES="+devices)
				}
				got := map[string]string{}
				for k, v := range task.Env {
					got[k] = v
				}
				var rendered map[string]string
				var err error
				if sourced {
					sourcedN++
					rendered, err = sourceTemplate(t, tmpl, brain, env)
				} else {
					tmplN++
					rendered, err = renderEnv(t, tmpl, brain, env)
				}
				if err != nil {
					t.Fatalf("%s task %s %s[%d]: Nomad would reject the env file (or sh the sourced one): %v", name, task.Name, role.Name, i, err)
				}
				for k, v := range rendered {
					got[k] = v // template variables override the env block in Nomad
				}
				want := expectedEnv(t, p, topo, role, i, proc, devices, gpus, p.Site.Nomad.Driver == "docker", opts)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s task %s %s[%d] (-want +got):\n%s", name, task.Name, role.Name, i, diff)
				}
			}
		}
	}
	return tmplN, sourcedN
}

// expectedEnv is what the source platform gave the task, written from the
// rules rather than from the driver: the role's variables, the contract
// (which wins over them), and for a plain process the devices the
// scheduler assigned as CUDA_VISIBLE_DEVICES ("" when it holds none, as a
// CPU-only container saw none; a container's runtime does that itself).
func expectedEnv(t *testing.T, p *translate.Plan, topo contract.Topology, role *jobs.Role, i int, proc, devices string, gpus, container bool, opts contract.Options) map[string]string {
	t.Helper()
	want := map[string]string{}
	for _, e := range role.Env {
		want[e.Name] = e.Value
	}
	if !container {
		want["CUDA_VISIBLE_DEVICES"] = ""
		if gpus {
			want["CUDA_VISIBLE_DEVICES"] = devices
		}
	}
	opts.Process = proc
	ev, err := contract.Eval(p.Job, topo, jobs.TaskRef{Role: role.Name, Index: i}, opts)
	if err != nil {
		t.Fatalf("Eval: %v", err)
	}
	for k, v := range ev.Map() {
		want[k] = v
	}
	if rp := p.Compiled().Role(role.Name); rp != nil && rp.SSH {
		// The ssh emulation's own files (jobshift's, not the platform's):
		// the job key in the task's secrets dir, sshd's state in its
		// task dir; Nomad interpolates both when the task starts.
		want["JOBSHIFT_SSH_KEY"] = "${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
	}
	return want
}

func envTemplate(task *api.Task) string {
	for _, tm := range task.Templates {
		if tm.Envvars != nil && *tm.Envvars && strings.HasSuffix(*tm.DestPath, "jobshift.env") {
			return *tm.EmbeddedTmpl
		}
	}
	return ""
}

// shellTemplate is the file the task's sh sources for its environment
// (drivers/nomad shellenv.go), "" if it has none.
func shellTemplate(task *api.Task) string {
	for _, tm := range task.Templates {
		if strings.HasSuffix(*tm.DestPath, "jobshift.env.sh") {
			return *tm.EmbeddedTmpl
		}
	}
	return ""
}

// sourceTemplate renders a sourced-file template as the client would and
// returns what every shell of shells gets from sourcing it (all the same).
func sourceTemplate(t *testing.T, text string, brain *cttmpl.Brain, env []string) (map[string]string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "jobshift.env.sh")
	if err := os.WriteFile(file, []byte(renderText(t, text, brain, env)), 0o600); err != nil {
		t.Fatal(err)
	}
	var first map[string]string
	for _, sh := range shells(t) {
		got, err := drivertest.SourcedEnv(sh, file)
		if err != nil {
			return nil, err
		}
		if first != nil {
			if diff := cmp.Diff(first, got); diff != "" {
				t.Fatalf("%s sources another environment:\n%s", sh, diff)
			}
		}
		first = got
	}
	return first, nil
}
