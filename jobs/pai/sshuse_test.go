package pai

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

func TestSSHUse(t *testing.T) {
	plugin := func(roles ...string) []jobs.RuntimePlugin {
		return []jobs.RuntimePlugin{{Plugin: "ssh", Parameters: map[string]any{"jobssh": true}, TaskRoles: roles}}
	}
	job := func(gang bool, plugins []jobs.RuntimePlugin, script string, n int) *jobs.Job {
		return &jobs.Job{Retry: jobs.Retry{GangAllocation: gang}, Extras: jobs.Extras{RuntimePlugins: plugins},
			Roles: []*jobs.Role{
				{Name: "master", Instances: 1, Command: jobs.Command{Script: script, Pos: jobs.Pos{Line: 3}}},
				{Name: "worker", Instances: n, Command: jobs.Command{Script: "sleep infinity"}}}}
	}
	const mpirun = "cd /code\nmpirun -np 8 -H master-0:4,worker-0:4 python train.py"
	cases := map[string]struct {
		job  *jobs.Job
		want []string // summaries
	}{
		"plugin on: emulated":              {job(true, plugin(), mpirun, 1), nil},
		"plugin for this role":             {job(true, plugin("master"), mpirun, 1), nil},
		"plugin for other roles only":      {job(true, plugin("worker"), mpirun, 1), []string{"Command uses mpirun without the ssh plugin"}},
		"no plugin":                        {job(true, nil, mpirun, 1), []string{"Command uses mpirun without the ssh plugin"}},
		"plugin off without gang":          {job(false, plugin(), mpirun, 1), []string{"Command uses mpirun without the ssh plugin"}},
		"one task: mpirun stays local":     {&jobs.Job{Roles: []*jobs.Role{{Name: "m", Instances: 1, Command: jobs.Command{Script: mpirun}}}}, nil},
		"path to horovodrun":               {job(true, nil, "/usr/local/bin/horovodrun -np 2 x", 1), []string{"Command uses horovodrun without the ssh plugin"}},
		"ssh in an option is not ssh":      {job(true, nil, "python x.py --ssh-port 22 --use-ssh", 1), nil},
		"ssh after a separator":            {job(true, nil, "true; ssh worker-0 hostname", 1), []string{"Command uses ssh without the ssh plugin"}},
		"mpirun inside a word is not used": {job(true, nil, "echo mympirun.log", 1), nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			sshUse(tc.job, func(p jobs.Pos, summary, format string, args ...any) {
				if p.Line != 3 {
					t.Errorf("warning at line %d, want the role's commands (3)", p.Line)
				}
				got = append(got, summary)
			})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
