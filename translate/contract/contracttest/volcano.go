package contracttest

import (
	"fmt"
	"math/rand/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// volcanoNames are Volcano task names (DNS-1123 labels), some with '-',
// which the svc plugin turns into '_' in variable and file names.
var volcanoNames = []string{"ps", "worker", "master", "chief", "evaluator", "mpimaster", "mpiworker", "task-1", "data-loader", "x0"}

// volcanoCase is a Volcano Job with a random subset of the plugins the
// volcano contract covers, random plugin arguments (task names that exist
// or not, ports) and the ports the reader adds for them. The job name is
// sometimes hostile: it travels into the host lists.
func volcanoCase(r *rand.Rand) Case {
	name := "vc"
	if r.IntN(2) == 0 {
		name = pick(r, Hostile)
	}
	j := &jobs.Job{Name: name, Source: jobs.Source{Format: jobs.FormatVolcano, Version: "batch.volcano.sh/v1alpha1"},
		Contracts: []string{jobs.ContractVolcano}, Extras: jobs.Extras{Volcano: &jobs.Volcano{MaxRetry: 3}}}
	tasks := distinct(r, volcanoNames, 1+r.IntN(4))
	for _, t := range tasks {
		role := &jobs.Role{Name: t, Instances: r.IntN(6), Ports: userPorts(r, v2Names)}
		role.Ports = append(role.Ports, jobs.Port{Label: "pytorchjob-port", Count: 1, Number: 23456, Implicit: true},
			jobs.Port{Label: "tfjob-port", Count: 1, Number: 2222, Implicit: true})
		j.Roles = append(j.Roles, role)
	}
	if j.TaskCount() == 0 {
		j.Roles[0].Instances = 1 // a job runs at least one task (the tests pick one)
	}
	v := j.Extras.Volcano
	arg := func(flag string) string {
		if r.IntN(3) == 0 {
			return fmt.Sprintf("--%s=%s", flag, pick(r, volcanoNames))
		}
		return ""
	}
	for _, p := range []string{"env", "svc", "pytorch", "tensorflow", "mpi"} {
		if r.IntN(2) == 0 {
			continue
		}
		var args []string
		for _, f := range []string{"master", "worker", "ps", "chief", "evaluator"} {
			if a := arg(f); a != "" && p != "env" && p != "svc" {
				args = append(args, a)
			}
		}
		if p == "svc" && r.IntN(3) == 0 {
			args = append(args, "--inject-hosts-env=false")
		}
		v.Plugins = append(v.Plugins, jobs.VolcanoPlugin{Name: p, Args: args})
	}
	// no draw: the views' variables (svc) from what was drawn
	return Case{Name: "volcano", Job: j, Opts: contract.Options{HostNames: name != "vc", PeerEntries: len(tasks)%2 == 0}}
}
