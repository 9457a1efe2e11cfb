package contract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// TestSSHEnv: the emulation's variables, written by hand from the sample
// topology (launcher 10.0.0.1:20000, workers 10.0.0.2:20001, 10.0.0.3:20002;
// PAI: master 10.0.0.1, worker 10.0.0.2, ssh then http ports).
func TestSSHEnv(t *testing.T) {
	v2 := mpiTestJob("kubeflow.org/v2beta1", "OpenMPI", "ssh", ".pi.hpc.svc", 2, false)
	v1a2 := mpiTestJob("kubeflow.org/v1alpha2", "OpenMPI", "kubexec", "", 1, false)
	ports := func() []jobs.Port {
		return []jobs.Port{{Label: "ssh", Count: 1, Implicit: true}, {Label: "http", Count: 1, Implicit: true}}
	}
	pai := &jobs.Job{Name: "h", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractPAI},
		Retry: jobs.Retry{GangAllocation: true},
		Extras: jobs.Extras{RuntimePlugins: []jobs.RuntimePlugin{
			{Plugin: "ssh", TaskRoles: []string{"master"}, Parameters: map[string]any{"jobssh": true, "sshbarrier": true, "sshbarrierTimeout": 2,
				"userssh": map[string]any{"type": "custom", "value": "ssh-ed25519 AAAA me@there"}}},
			{Plugin: "ssh", TaskRoles: []string{"Work_er"}, Parameters: map[string]any{"jobssh": true}}}},
		Roles: []*jobs.Role{{Name: "master", Instances: 1, Ports: ports()}, {Name: "Work_er", Instances: 1, Ports: ports()}}}
	noGang := *pai
	noGang.Retry.GangAllocation = false
	const paiHosts = "10.0.0.1 20000 master-0,10.0.0.2 20002 worker-0"
	cases := map[string]struct {
		job  *jobs.Job
		role string
		idx  int
		opts Options
		want Env
	}{
		"v2beta1 launcher": {v2, "launcher", 0, Options{SSH: true, MPIDir: "/tmp/m"}, Env{
			{SSHHostsVar, "10.0.0.1 20000 pi-launcher.pi.hpc.svc pi-launcher,10.0.0.2 20001 pi-worker-0.pi.hpc.svc pi-worker-0,10.0.0.3 20002 pi-worker-1.pi.hpc.svc pi-worker-1"},
			{SSHBarrierVar, "1800"}, {MPIDirVar, "/tmp/m"}, {MPIHostfileVar, "pi-worker-0.pi.hpc.svc slots=2,pi-worker-1.pi.hpc.svc slots=2"},
			{SSHSelfVar, "pi-launcher.pi.hpc.svc"}}},
		"v2beta1 worker 1": {v2, "worker", 1, Options{SSH: true}, Env{
			{SSHHostsVar, "10.0.0.1 20000 pi-launcher.pi.hpc.svc pi-launcher,10.0.0.2 20001 pi-worker-0.pi.hpc.svc pi-worker-0,10.0.0.3 20002 pi-worker-1.pi.hpc.svc pi-worker-1"},
			{MPIDirVar, "/etc/mpi"}, {MPIHostfileVar, "pi-worker-0.pi.hpc.svc slots=2,pi-worker-1.pi.hpc.svc slots=2"},
			{SSHSelfVar, "pi-worker-1.pi.hpc.svc"}}},
		"v1alpha2 launcher: bare pod names, /etc/mpi": {v1a2, "launcher", 0, Options{SSH: true}, Env{
			{SSHHostsVar, "10.0.0.1 20000 pi-launcher,10.0.0.2 20001 pi-worker-0,10.0.0.3 20002 pi-worker-1"},
			{SSHBarrierVar, "1800"}, {MPIDirVar, "/etc/mpi"}, {MPIHostfileVar, "pi-worker-0 slots=1,pi-worker-1 slots=1"},
			{SSHSelfVar, "pi-launcher"}}},
		"without the option: nothing": {v2, "launcher", 0, Options{}, Env{}},
		"PAI master: barrier minutes, user key": {pai, "master", 0, Options{SSH: true, User: "u"}, Env{
			{SSHHostsVar, paiHosts}, {SSHBarrierVar, "120"}, {SSHUserKeysVar, "ssh-ed25519 AAAA me@there"}, {SSHSelfVar, "master-0"}}},
		"PAI worker: converted role name, no barrier": {pai, "Work_er", 0, Options{SSH: true, User: "u"}, Env{
			{SSHHostsVar, paiHosts}, {SSHSelfVar, "worker-0"}}},
		"PAI without gang allocation: jobssh off": {&noGang, "master", 0, Options{SSH: true, User: "u"}, Env{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env, err := Eval(tc.job, SampleTopology(tc.job), jobs.TaskRef{Role: tc.role, Index: tc.idx}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := Env{}
			for _, v := range env {
				if strings.HasPrefix(v.Name, "JOBSHIFT_") {
					got = append(got, v)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSSHIdle: which MPIJob workers run only the emulation's sshd (their
// own command starts an sshd, or they have none), and that the launcher and
// other formats never do.
func TestSSHIdle(t *testing.T) {
	argv := func(c ...string) jobs.Command { return jobs.Command{Kind: jobs.CommandArgv, Command: c} }
	p := []jobs.Port{{Label: "ssh", Count: 1}}
	job := func(f jobs.Format, worker jobs.Command) *jobs.Job {
		return &jobs.Job{Name: "m", Source: jobs.Source{Format: f, Version: "kubeflow.org/v2beta1"}, Roles: []*jobs.Role{
			{Name: "launcher", ReplicaType: "launcher", Instances: 1, Ports: p, Command: argv("mpirun", "x")},
			{Name: "worker", ReplicaType: "worker", Instances: 2, Ports: p, Command: worker}}}
	}
	cases := map[string]struct {
		format jobs.Format
		worker jobs.Command
		idle   bool
	}{
		"sshd -De":              {jobs.FormatMPIJob, jobs.Command{Kind: jobs.CommandArgv, Command: []string{"/usr/sbin/sshd"}, Args: []string{"-De"}}, true},
		"no command (kubexec)":  {jobs.FormatMPIJob, jobs.Command{Kind: jobs.CommandArgv}, true},
		"bash -c mkdir; sshd":   {jobs.FormatMPIJob, argv("/bin/bash", "-c", "mkdir -p /run/sshd\n/usr/sbin/sshd -D"), true},
		"a PAI script":          {jobs.FormatMPIJob, jobs.Command{Kind: jobs.CommandBashScript, Script: "/usr/sbin/sshd -D"}, true},
		"a worker program":      {jobs.FormatMPIJob, argv("python", "serve.py"), false},
		"sshd_config is a word": {jobs.FormatMPIJob, argv("cat", "/etc/ssh/sshd_config"), false},
		"not an MPIJob":         {jobs.FormatPAIv2, argv("/usr/sbin/sshd", "-D"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := job(tc.format, tc.worker)
			if SSHIdle(j, 0) {
				t.Error("the launcher is idle")
			}
			if got := SSHIdle(j, 1); got != tc.idle {
				t.Errorf("SSHIdle = %v, want %v", got, tc.idle)
			}
		})
	}
}
