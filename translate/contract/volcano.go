package contract

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// Volcano's pod host names: the pod name <job>-<task>-<i>, then its name in
// the job's headless service, <job>-<task>-<i>.<job>, which the svc, mpi,
// tensorflow and pytorch plugins and the ssh plugin's config write
// (pkg/controllers/job/helpers/helpers.go MakePodName, MakeDomainName
// @v1.16.0-alpha.1).
func init() {
	hostNamers[jobs.FormatVolcano] = func(job *jobs.Job, k int, idx string) []string {
		pod := job.Name + "-" + job.Roles[k].Name + "-" + idx
		return []string{pod, pod + "." + job.Name}
	}
}

// volcano is the environment Volcano's job plugins append to every
// container (pkg/controllers/job/plugins/*, OnPodCreate, @v1.16.0-alpha.1),
// plugin by plugin in the file's order (Volcano ranges over a Go map, so
// its order differs from pod to pod; no two plugins set one name):
//
//   - env: VK_TASK_INDEX and VC_TASK_INDEX, the pod's index in its task.
//   - svc (unless --inject-hosts-env=false): for every task
//     VC_<TASK>_HOSTS (domain names joined by ',') and VC_<TASK>_NUM,
//     task names upper-cased with '-' → '_'.
//   - pytorch: MASTER_ADDR (task 0 of --master), MASTER_PORT (--port,
//     23456), WORLD_SIZE (replicas of --master and --worker), RANK (0 on
//     the master, index+1 on workers, unset on other tasks); nothing when
//     the master task does not exist.
//   - tensorflow: TF_CONFIG unless the job is one task of one replica;
//     cluster keys ps, worker, chief, evaluator (tasks named by --ps,
//     --worker, --chief, --evaluator), task type the mapped name or the
//     task's own name, index the pod's.
//   - mpi: MPI_HOST on the --master task: the --worker task's domain names
//     joined by ','.
//
// Names are Volcano's; addresses and ports: MASTER_ADDR, MASTER_PORT and
// TF_CONFIG carry the task's address and real port (as the torch and tf
// contracts do), since a host name and a fixed port only reach the task
// where it has its own network; the host lists keep the domain names
// (they are what the ssh emulation and the task host names resolve).
func (b *builder) volcano() {
	v := b.job.Extras.Volcano
	if v == nil {
		return
	}
	for _, p := range v.Plugins {
		f := jobs.ParseVolcanoFlags(p.Name, p.Args)
		switch p.Name {
		case "env":
			b.set("VK_TASK_INDEX", index(0))
			b.set("VC_TASK_INDEX", index(0))
		case "svc":
			if f.InjectHostsEnv {
				b.volcanoHosts()
			}
			b.volcanoPeerHosts()
		case "pytorch":
			b.volcanoTorch(f)
		case "tensorflow":
			b.volcanoTF(f)
		case "mpi":
			if b.job.Roles[b.self].Name == f.Master {
				if w := b.job.Role(f.Worker); w != nil {
					b.setLit("MPI_HOST", volcanoDomains(b.job, w, ","))
				}
			}
		}
	}
}

func volcanoDomains(j *jobs.Job, r *jobs.Role, sep string) string {
	hosts := make([]string, r.Instances)
	for i := range hosts {
		hosts[i] = jobs.VolcanoDomainName(j.Name, r.Name, i)
	}
	return strings.Join(hosts, sep)
}

// PeerHostsVar lists every task's platform names (Volcano's svc plugin:
// the headless service that made <job>-<task>-<i>.<job> resolve, svc.go
// createServiceIfNotExist @v1.16.0-alpha.1): entries "ADDR NAME..." joined
// by ','. The task view's wrapper (drivers/taskns) adds to the task's
// /etc/hosts the entries of tasks on other nodes: a peer on the task's own
// node keeps its name unresolved, as the collective libraries would take
// it for this node (OpenMPI's orte_ifislocal).
const PeerHostsVar = "JOBSHIFT_PEER_HOSTS"

// PeerHostVar is the n-th variable of Options.PeerEntries.
func PeerHostVar(n int) string { return "JOBSHIFT_PEER_HOST_" + strconv.Itoa(n) }

// PeerHostCount is how many PeerHostVar variables job's tasks get: one
// per platform name of every task.
func PeerHostCount(job *jobs.Job) int {
	n := 0
	for k, r := range job.Roles {
		if r.Instances > 0 {
			n += r.Instances * len(HostNames(job, k, 0))
		}
	}
	return n
}

// volcanoPeerHosts sets PeerHostsVar where the target runs the tasks under
// the task view (Options.HostNames), and the PeerHostVar variables where
// it asks for them (Options.PeerEntries).
func (b *builder) volcanoPeerHosts() {
	if b.opts.PeerEntries {
		n := 0
		for k, r := range b.job.Roles {
			for i := range r.Instances {
				for _, name := range HostNames(b.job, k, i) {
					b.set(PeerHostVar(n), cat(lit(name+":"), addr(k, i)))
					n++
				}
			}
		}
	}
	if !b.opts.HostNames {
		return
	}
	var es []expr
	for k, r := range b.job.Roles {
		if r.Instances == 0 {
			continue
		}
		if len(es) > 0 {
			es = append(es, lit(","))
		}
		es = append(es, join(r.Instances, ",", func(i int) expr {
			return cat(addr(k, i), lit(" "+strings.Join(HostNames(b.job, k, i), " ")))
		}))
	}
	b.set(PeerHostsVar, cat(es...))
}

func (b *builder) volcanoHosts() {
	for _, r := range b.job.Roles {
		up := strings.ToUpper(jobs.VolcanoEnvKey(r.Name))
		b.setLit("VC_"+up+"_HOSTS", volcanoDomains(b.job, r, ","))
		b.setLit("VC_"+up+"_NUM", strconv.Itoa(r.Instances))
	}
}

// roleIndex is the position of the role called name (-1: none).
func (b *builder) roleIndex(name string) int {
	for k, r := range b.job.Roles {
		if r.Name == name {
			return k
		}
	}
	return -1
}

func (b *builder) volcanoTorch(f jobs.VolcanoFlags) {
	mk := b.roleIndex(f.Master)
	if mk < 0 {
		return // OnPodCreate: "job doesn't have task master", nothing set
	}
	if b.job.Roles[mk].Instances == 0 {
		// generateMasterAddr names pod 0 whether or not it exists: no
		// task has that address, so the values stay Volcano's own
		b.setLit("MASTER_ADDR", jobs.VolcanoDomainName(b.job.Name, f.Master, 0))
		b.setLit("MASTER_PORT", strconv.Itoa(f.Port))
	} else {
		s := volcanoSlot(b.job.Roles[mk], f.Port, jobs.VolcanoPytorchLabel)
		b.set("MASTER_ADDR", addr(mk, 0))
		b.set("MASTER_PORT", port(mk, 0, s.label, s.n))
	}
	world := 0
	for _, r := range b.job.Roles {
		if r.Name == f.Master || r.Name == f.Worker {
			world += r.Instances
		}
	}
	b.setLit("WORLD_SIZE", strconv.Itoa(world))
	switch b.job.Roles[b.self].Name {
	case f.Worker:
		b.set("RANK", index(1))
	case f.Master:
		b.setLit("RANK", "0")
	}
}

// volcanoSlot is the port a plugin's --port is on in role r: the
// container port of that number, else the one the reader added.
func volcanoSlot(r *jobs.Role, number int, label string) slot {
	for _, p := range r.Ports {
		if p.Number == number && p.Count > 0 {
			return slot{p.Label, 0}
		}
	}
	return slot{label, 0}
}

func (b *builder) volcanoTF(f jobs.VolcanoFlags) {
	j := b.job
	if len(j.Roles) == 1 && j.Roles[0].Instances == 1 {
		return // "No need to generate TF_CONFIG for stand-alone tensorflow job"
	}
	es := []expr{lit(`{"cluster":{`)}
	n := 0
	for _, key := range []struct{ json, task string }{{"ps", f.PS}, {"worker", f.Worker}, {"chief", f.Chief}, {"evaluator", f.Evaluator}} {
		// the last task of a name wins (the loop overwrites the slice);
		// task names are unique, so at most one matches
		k := b.roleIndex(key.task)
		if k < 0 || j.Roles[k].Instances == 0 {
			continue // omitempty
		}
		if n > 0 {
			es = append(es, lit(","))
		}
		n++
		s := volcanoSlot(j.Roles[k], f.Port, jobs.VolcanoTFLabel)
		es = append(es, lit(jsonString(key.json)+":["), join(j.Roles[k].Instances, ",", func(i int) expr {
			return host(k, i, s.label, s.n)
		}), lit("]"))
	}
	me := j.Roles[b.self].Name
	typ := me
	for _, m := range []struct{ task, t string }{{f.Chief, "chief"}, {f.Worker, "worker"}, {f.PS, "ps"}, {f.Evaluator, "evaluator"}} {
		if me == m.task {
			typ = m.t
			break
		}
	}
	es = append(es, lit(`},"task":{"type":`+jsonString(typ)+`,"index":`), index(0), lit("}}"))
	b.set("TF_CONFIG", cat(es...))
}

// volcanoSSH: the job has Volcano's ssh plugin (written, or added by the
// webhook for mpi), which gives every pod the job's key pair and a client
// config naming every pod (ssh.go generateSSHConfig @v1.16.0-alpha.1):
// every role runs the ssh emulation, which gives the same reach.
func volcanoSSH(job *jobs.Job) bool {
	return job.Source.Format == jobs.FormatVolcano && job.Extras.Volcano.Plugin("ssh") != nil
}

// svcHostRead finds a command that reads the svc plugin's host files, and
// fixedPort one that appends a port of its own to host names
// (`sed 's/$/&:2222/g'`, `"$h:2222"`), as Volcano's TensorFlow example
// builds TF_CONFIG (example/integrations/tensorflow/tf-example.yaml
// @v1.16.0-alpha.1).
var (
	svcHostRead = regexp.MustCompile(`/etc/volcano/[^\s'"]*\.host`)
	fixedPort   = regexp.MustCompile(`[^:]:[0-9]{2,5}\b`)
)

// VolcanoFixedPortPeers names the first role whose command builds its
// peers' addresses from the svc plugin's host files with a port of its
// own ("" = none). Such a job needs a host per task: on Kubernetes every
// pod had its own network, so every task could listen on that port and
// every name resolved; tasks sharing a host share its ports, and a peer
// on the task's own host is not named in its /etc/hosts (the collective
// libraries would take it for this node).
func VolcanoFixedPortPeers(job *jobs.Job) string {
	if job.Source.Format != jobs.FormatVolcano || job.Extras.Volcano.Plugin("svc") == nil || job.TaskCount() < 2 {
		return ""
	}
	for _, r := range job.Roles {
		text := r.Command.Script
		if r.Command.Kind == jobs.CommandArgv {
			text = strings.Join(append(append([]string(nil), r.Command.Command...), r.Command.Args...), " ")
		}
		if svcHostRead.MatchString(text) && fixedPort.MatchString(text) {
			return r.Name
		}
	}
	return ""
}

// foregroundSSHD finds a command whose last step is an sshd in the
// foreground (-D), what Volcano's MPI examples run in their workers
// (`mkdir -p /var/run/sshd; /usr/sbin/sshd -D;`).
var foregroundSSHD = regexp.MustCompile(`(?:^|[\s;&|(/])sshd(?:\s+-[A-Za-z]+)*\s+-[A-Za-z]*D[A-Za-z]*(?:\s+-\S+)*[\s;]*$`)

// volcanoSSHIdle: the task's command only ends in an sshd in the
// foreground, so the emulation's sshd takes its place (as for MPIJob
// workers).
func volcanoSSHIdle(r *jobs.Role) bool {
	c := r.Command
	text := c.Script
	if c.Kind == jobs.CommandArgv {
		text = strings.Join(append(append([]string(nil), c.Command...), c.Args...), " ")
	}
	return foregroundSSHD.MatchString(text)
}

// volcanoSSHVars: a task that runs more than an sshd (the launcher that
// calls mpiexec) waits for every peer's sshd before its command starts
// (jobshift's, as for an MPIJob launcher: on Volcano the gang starts
// together and mpiexec may race the workers' sshd; Volcano's own examples
// sleep first).
func (b *builder) volcanoSSHVars() {
	if !volcanoSSHIdle(b.job.Roles[b.self]) {
		b.setLit(SSHBarrierVar, strconv.Itoa(DefaultSSHBarrier))
	}
}
