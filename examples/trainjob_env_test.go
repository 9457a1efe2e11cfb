package examples_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/internal/envdump"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// runTrainJob runs a TrainJob example as run does, every task's command
// preceded by a dump of its environment, and checks each against the
// oracle's once the job ended (under the task view, where this machine
// allows one, the master by its pod name).
func runTrainJob(t *testing.T, file string, env []string) outcome {
	t.Helper()
	dumps := t.TempDir()
	var plan *translate.Plan
	var wrapped map[string]bool
	o := runPlan(t, file, env, func(p *translate.Plan) { plan, wrapped = p, envdump.Wrap(t, p, dumps) })
	// as drivers/local contract.go and view.go set them
	opts := plan.Compiled().ContractOn(filepath.Join(o.dir, "mpi"))
	mode, _ := taskns.Probe()
	opts.HostNames = mode != taskns.ModeNone
	seen := envdump.Read(t, dumps)
	envdump.Check(t, plan.Job, localTopology(t, plan.Job, opts, seen), opts, dumps, wrapped, "")
	return o
}

// localTopology is where the local driver put the tasks: all on loopback,
// each port the one a task saw for it (the ports are drawn at random):
// the trainer's from the master port variables, each sshd's from the ssh
// emulation's host list; ports no task saw are 1.
func localTopology(t *testing.T, job *jobs.Job, opts contract.Options, seen map[string][]map[string]string) contract.Topology {
	t.Helper()
	var master string
	ssh := map[string]int{} // alias -> port
	for _, envs := range seen {
		for _, e := range envs {
			for _, v := range []string{"PET_MASTER_PORT", "DMLC_TRACKER_PORT"} {
				if e[v] != "" {
					master = e[v]
				}
			}
			for _, h := range strings.Split(e[contract.SSHHostsVar], ",") {
				if f := strings.Fields(h); len(f) >= 3 {
					ssh[f[2]], _ = strconv.Atoi(f[1])
				}
			}
		}
	}
	mp, _ := strconv.Atoi(master)
	var topo contract.Topology
	for k, r := range job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := range r.Instances {
			tt := contract.TaskTopology{Addr: "127.0.0.1", Ports: map[string][]int{}}
			for _, l := range contract.PortLabels(job, k, opts) {
				p := 1
				switch {
				case l.Label == "trainer" && i == 0:
					p = mp
				case l.Label == "ssh":
					p = ssh[contract.HostNames(job, k, i)[0]]
				}
				tt.Ports[l.Label] = append(tt.Ports[l.Label], p)
			}
			rt.Tasks = append(rt.Tasks, tt)
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}
