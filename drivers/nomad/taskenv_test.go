package nomad

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// placementsOf are the allocations the scheduler would have placed for
// topo: each task's address as the host IP of its ports (the network IP
// of a role without ports), each port by its group port label.
func placementsOf(job *jobs.Job, jobID string, opts contract.Options, topo contract.Topology) []*api.AllocationListStub {
	var out []*api.AllocationListStub
	svcs := contract.NomadServicesFor(job, jobID, opts)
	for k, r := range job.Roles {
		for i, tt := range topo.Roles[k].Tasks {
			ports := map[string]int{}
			for _, s := range svcs {
				if s.Role == r.Name && s.Label != "" {
					ports[s.PortLabel] = tt.Ports[s.Label][s.Ordinal]
				}
			}
			out = append(out, stub(groupName(r.Name), i, 0, "run", "pending", 1, tt.Addr, ports))
		}
	}
	return out
}

// TestInTaskEnvMatchesOracle is the differential test of the environment
// a task evaluates itself (taskenv.go): whole random jobs — every
// contract the generator has, GPUs or none, user variables plain and
// holding ${...} with hostile bytes — are rendered for `jobshift run` on
// raw_exec with a helper; each task's payload is decoded from its env
// block, the snapshot is built by the coordinator from the placements of
// a random topology, and the environment nomad-env would exec with must be
// what the source platform gave: the role's variables, GPU visibility and
// the oracle's contract on that topology (the rules of contracttmpl's
// TestTaskEnvMatchesOracle, where the template is held to the same).
func TestInTaskEnvMatchesOracle(t *testing.T) {
	cases, checked := 300, 0
	if testing.Short() {
		cases = 60
	}
	for n := range cases {
		c := contracttest.RandomNoTilde(11, n)
		r := rand.New(rand.NewPCG(12, uint64(n)))
		contracttest.AsTasks(r, c.Job)
		p := &translate.Plan{Job: c.Job, Contracts: c.Job.Contracts, User: c.Opts.User,
			Site:    &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", Helper: "/opt/jobshift"}},
			Options: map[string]string{OptWatched: "true"}}
		job, diags := BuildJob(p, nil)
		if diags.HasErrors() {
			t.Fatalf("%s: BuildJob: %v", c.Name, diags)
		}
		if job.Meta[MetaRendezvous] != RendezvousSnap {
			continue // e.g. a group name that is no Variable path: the barrier
		}
		jobID := JobIDFor(p)
		co := &coordinator{groups: snapGroups(job), attempt: 0}
		items, missing := co.build(placementsOf(p.Job, jobID, ContractOptions(p), c.Topo))
		if missing != "" {
			t.Fatalf("%s: placements miss %s", c.Name, missing)
		}
		for k, role := range p.Job.Roles {
			for _, task := range job.TaskGroups[k].Tasks {
				if role.Instances == 0 || task.Name != MainTask && task.Name != PSTask {
					continue
				}
				checkInTask(t, c, p, task, role, items)
				checked++
			}
		}
	}
	if checked < cases/2 {
		t.Fatalf("only %d tasks took the in-task path", checked)
	}
}

func checkInTask(t *testing.T, c contracttest.Case, p *translate.Plan, task *api.Task, role *jobs.Role, items map[string]string) {
	t.Helper()
	name := c.Name + " " + role.Name + "/" + task.Name
	args, _ := task.Config["args"].([]string)
	if task.Config["command"] != "/opt/jobshift" || len(args) < 2 || args[0] != TaskEnvCommand || args[1] != "--" {
		t.Fatalf("%s: command %v %q, want the helper's %s -- ...", name, task.Config["command"], args, TaskEnvCommand)
	}
	for _, tm := range task.Templates {
		if tm.Envvars != nil && *tm.Envvars {
			t.Fatalf("%s: an env template beside the in-task environment", name)
		}
	}
	if len(task.Identities) != 1 || !task.Identities[0].File || task.Identities[0].Env {
		t.Fatalf("%s: identities %+v, want the default one as a file only", name, task.Identities)
	}
	te, err := intask.Decode(task.Env[TaskEnvVar])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	proc := ""
	if task.Name == PSTask {
		proc = contract.ProcessPS
	}
	gpus := len(task.Resources.Devices) > 0
	for _, i := range []int{0, role.Instances - 1} {
		devices := fmt.Sprintf("GPU-fake-%d", i)
		vars, err := te.Vars(i, items, func(k string) string {
			if k == "NVIDIA_VISIBLE_DEVICES" && gpus {
				return devices
			}
			return ""
		})
		if err != nil {
			t.Fatalf("%s[%d]: %v", name, i, err)
		}
		var environ []string
		for k, v := range task.Env {
			environ = append(environ, k+"="+v)
		}
		got := map[string]string{}
		for _, kv := range intask.ExecEnv(append(environ, "PATH=/bin"), vars) {
			k, v, _ := strings.Cut(kv, "=")
			got[k] = v
		}
		want := map[string]string{"PATH": "/bin"}
		for _, e := range role.Env {
			want[e.Name] = e.Value
		}
		want["CUDA_VISIBLE_DEVICES"] = ""
		if gpus {
			want["CUDA_VISIBLE_DEVICES"] = devices
		}
		opts := ContractOptions(p)
		opts.Process = proc
		ev, err := contract.Eval(p.Job, c.Topo, jobs.TaskRef{Role: role.Name, Index: i}, opts)
		if err != nil {
			t.Fatalf("%s: Eval: %v", name, err)
		}
		for _, v := range ev {
			want[v.Name] = v.Value
		}
		if rp := p.Compiled().Role(role.Name); rp != nil && rp.SSH {
			// The ssh emulation's own files, interpolated by Nomad.
			want["JOBSHIFT_SSH_KEY"] = "${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s[%d] (-want +got):\n%s", name, i, diff)
		}
	}
}

// TestInTaskEnvOnlyWhereItCan: docker, exec and a job without a helper
// or without the snapshot do not evaluate in the task; a payload over the
// limit (a command that does not compress) does not either. Of those, a
// raw_exec or exec task of the snapshot sources its environment from a
// file (shellenv.go); docker and the barrier keep the env template.
func TestInTaskEnvOnlyWhereItCan(t *testing.T) {
	noise := func() string {
		r := rand.New(rand.NewPCG(1, 2))
		var b strings.Builder
		for b.Len() < 200*1024 {
			fmt.Fprintf(&b, "%x", r.Uint64())
		}
		return "echo " + b.String()
	}()
	const js, env = "/opt/jobshift", "/opt/jobshift-env"
	for name, tc := range map[string]struct {
		driver, helper, envHelper, mode, script string
		want                                    string // the command running nomad-env, "" = the template, sh = the sourced file
	}{
		"raw_exec, helper, snapshot": {"raw_exec", js, "", RendezvousSnap, "true", js},
		"jobshift-env wins":          {"raw_exec", js, env, RendezvousSnap, "true", env},
		"jobshift-env alone":         {"raw_exec", "", env, RendezvousSnap, "true", env},
		"no helper":                  {"raw_exec", "", "", RendezvousSnap, "true", "sh"},
		"barrier":                    {"raw_exec", js, env, RendezvousBarrier, "true", ""},
		"docker":                     {"docker", js, env, RendezvousSnap, "true", ""},
		// an exec task's chroot holds Nomad's default chroot_env: /opt is not in it
		"exec, helper outside the chroot":  {"exec", js, env, RendezvousSnap, "true", "sh"},
		"exec, jobshift-env in /usr":       {"exec", js, "/usr/local/bin/jobshift-env", RendezvousSnap, "true", "/usr/local/bin/jobshift-env"},
		"exec, jobshift in /usr/local/bin": {"exec", "/usr/local/bin/jobshift", "", RendezvousSnap, "true", "/usr/local/bin/jobshift"},
		"exec, /usr2 is not /usr":          {"exec", "", "/usr2/jobshift-env", RendezvousSnap, "true", "sh"},
		"exec, /usr/../opt is not in /usr": {"exec", "", "/usr/../opt/jobshift-env", RendezvousSnap, "true", "sh"},
		"exec, jobshift-env in /bin":       {"exec", "", "/bin/jobshift-env", RendezvousSnap, "true", "/bin/jobshift-env"},
		"exec, jobshift-env in /etc":       {"exec", "", "/etc/jobshift-env", RendezvousSnap, "true", "sh"},
		"payload too large":                {"raw_exec", js, env, RendezvousSnap, noise, "sh"},
	} {
		j := paiMesh("te")
		for _, r := range j.Roles {
			r.Command = jobs.Command{Kind: jobs.CommandEval, Script: tc.script}
		}
		p := plan(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: tc.driver, Helper: tc.helper, EnvHelper: tc.envHelper}})
		p.Options[OptWatched] = strconv.FormatBool(tc.mode == RendezvousSnap)
		job, diags := BuildJob(p, nil)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		for _, g := range job.TaskGroups {
			for _, task := range g.Tasks {
				if task.Name != MainTask {
					continue
				}
				_, inTask := task.Env[TaskEnvVar]
				got := ""
				for _, tm := range task.Templates {
					switch {
					case tm.Envvars != nil && *tm.Envvars:
						got += "template "
					case *tm.DestPath == ShellEnvFile:
						got += "sh "
					}
				}
				if inTask {
					got += "in-task "
				}
				want := map[string]string{"": "template ", "sh": "sh "}[tc.want]
				if want == "" {
					want = "in-task "
				}
				if got != want {
					t.Errorf("%s: group %s: %q, want %q", name, *g.Name, got, want)
				}
				cmd := task.Config["command"]
				if want == "in-task " && cmd != tc.want || want == "sh " && cmd != "/bin/sh" {
					t.Errorf("%s: group %s: the command is %v, want %s", name, *g.Name, cmd, tc.want)
				}
			}
		}
	}
}

// TestTaskEnvPayloadHasNoSecrets: the payload carries the contract's
// input only: no secret value, no role variable, no image credential.
func TestTaskEnvPayloadHasNoSecrets(t *testing.T) {
	j := paiMesh("sec")
	j.Secrets = map[string]any{"token": "s3cr3t-value"}
	for _, r := range j.Roles {
		r.Env = []jobs.EnvVar{{Name: "USER_VAR", Value: "env-value"}}
		r.ImageAuth = &jobs.ImageAuth{Username: "u", Password: "p4ssw0rd"}
	}
	te := &intask.Env{Job: contractJob(j)}
	s, err := te.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := intask.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf("%+v", back.Job)
	for _, r := range back.Job.Roles {
		raw += fmt.Sprintf("%+v", *r)
	}
	for _, bad := range []string{"s3cr3t-value", "env-value", "p4ssw0rd"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the payload carries %q", bad)
		}
	}
	if j.Roles[0].Env == nil || j.Secrets == nil {
		t.Fatal("contractJob changed the plan's job")
	}
}
