// Package contracttest generates random jobs and topologies for the
// differential tests of translate/contract (the shell rendering in this
// module, the Nomad template in integration/contracttmpl).
package contracttest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// Case is one random job, a topology for it and the options to render with.
type Case struct {
	Name string
	Job  *jobs.Job
	Topo contract.Topology
	Opts contract.Options
}

// Hostile are values that must travel byte for byte (they contain quotes,
// shell and template metacharacters, newlines, unicode).
var Hostile = []string{
	`it's "quoted"`, "$HOME `id` $(id) ${x}", "100% {{ .x }} }}{{", "line1\nline2\n", "tab\there\r\n",
	"日本語 ☃ émigré", `back\slash\n`, "[[ ]] <% x %> <b>&amp;", "#comment = not", "  spaces  ",
}

// v1Names are odd but legal OpenPAI v1 role names / port labels
// (^[A-Za-z0-9._~]+$).
var v1Names = []string{"ps", "worker", "ps_server", "Task_role_1", "a.b", "x~y", "r.0~1", "Worker", "evaluator", "m1", "S.y.n", "trainer~2"}

// v2Names are protocol v2 names (^[a-zA-Z_][a-zA-Z0-9_]*$).
var v2Names = []string{"ps", "worker", "ps_server", "_hidden", "Task_role_1", "master", "W0", "syn_port", "SynPort", "tb"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// distinct picks n distinct names from xs whose conversion (OpenPAI's
// lower-case-alphanumeric) is distinct and non-empty too.
func distinct(r *rand.Rand, xs []string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, i := range r.Perm(len(xs)) {
		c := convert(xs[i])
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, xs[i])
		if len(out) == n {
			break
		}
	}
	return out
}

func convert(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func addrOf(r *rand.Rand, n int) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), n%250+1)
	case 1:
		return fmt.Sprintf("node-%02d.cluster_a", n)
	case 2:
		return fmt.Sprintf("fe80::%x", n+1)
	}
	return "127.0.0.1"
}

// Random makes case number n (deterministic for a seed).
func Random(seed uint64, n int) Case { return random(seed, n, false) }

// RandomNoTilde is Random with every '~' in role names and port labels
// turned into '.': Nomad's env files cannot carry '~' in names (the
// renderer rejects them), '.' they can.
func RandomNoTilde(seed uint64, n int) Case { return random(seed, n, true) }

func random(seed uint64, n int, noTilde bool) Case {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	var c Case
	// n % 7 picks the family (tests rely on 6 being an MPIJob); every other
	// UAI slot is one of the training-operator kinds in turn.
	k := n % 7
	if k == 5 && (n/7)%2 == 1 {
		k = 7 + (n/14)%4
	}
	switch k {
	case 0, 1:
		c = paiCase(r, n%2 == 0)
	case 2:
		c = leinaoCase(r)
	case 3:
		c = tfCase(r)
	case 4:
		c = torchCase(r)
	case 6:
		c = mpiCase(r)
	case 7:
		c = xgboostCase(r)
	case 8:
		c = paddleCase(r)
	case 9:
		c = jaxCase(r)
	case 10:
		c = mxnetCase(r)
	default:
		c = uaiCase(r)
	}
	if n%13 == 12 {
		c = volcanoCase(r) // after the draw above: the other cases' streams stay as they were
	}
	if n%3 == 1 {
		fieldRefs(c.Job) // no draw: the cases' streams stay as they were
	}
	c.Name = fmt.Sprintf("%d-%s", n, c.Name)
	if noTilde {
		for _, role := range c.Job.Roles {
			role.Name = strings.ReplaceAll(role.Name, "~", ".")
			for i := range role.Ports {
				role.Ports[i].Label = strings.ReplaceAll(role.Ports[i].Label, "~", ".")
			}
		}
	}
	c.Topo = Topology(r, c.Job, c.Opts)
	return c
}

// fieldRefs gives every role the env variables a Kubernetes pod takes from
// its own fields (jobs.EnvVar.FieldPath), which the contract defines per
// task.
func fieldRefs(job *jobs.Job) {
	for _, role := range job.Roles {
		role.Env = append(role.Env,
			jobs.EnvVar{Name: "JS_POD_NAME", FieldPath: jobs.FieldPodName},
			jobs.EnvVar{Name: "JS_POD_IP", FieldPath: jobs.FieldPodIP},
			jobs.EnvVar{Name: "JS_POD_IPS", FieldPath: jobs.FieldPodIPs},
			jobs.EnvVar{Name: "JS_NODE_NAME", FieldPath: jobs.FieldNodeName},
			jobs.EnvVar{Name: "JS_HOST_IP", FieldPath: jobs.FieldHostIP},
			jobs.EnvVar{Name: "JS_HOST_IPS", FieldPath: jobs.FieldHostIPs})
	}
}

// nodeOf is the node of the n-th task over all roles in a test topology:
// two tasks a node, names and addresses of either kind the targets give
// (no draw: the cases' streams stay as they were).
func nodeOf(n int) (name, addr string) {
	if n%4 < 2 {
		return fmt.Sprintf("node-%02d", n/2), fmt.Sprintf("192.168.%d.%d", n/500, n/2%250+1)
	}
	return fmt.Sprintf("ip-10-1-%d.ec2.internal", n/2), fmt.Sprintf("fd00::%x", n/2+1)
}

// NomadNodeEnv is what Nomad's template env function gives task i of role
// k on its node in topo: the client's name and address, the node
// attributes a pNode part of the contract reads.
func NomadNodeEnv(topo contract.Topology, k, i int) []string {
	t := topo.Roles[k].Tasks[i]
	return []string{"node.unique.name=" + t.Node, "attr.unique.network.ip-address=" + t.NodeAddr}
}

// Topology is a random topology for job.
func Topology(r *rand.Rand, job *jobs.Job, opts contract.Options) contract.Topology {
	var t contract.Topology
	n := 0
	for k, role := range job.Roles {
		rt := contract.RoleTopology{Name: role.Name}
		labels := contract.PortLabels(job, k, opts)
		for range role.Instances {
			tt := contract.TaskTopology{Addr: addrOf(r, n), Ports: map[string][]int{}}
			tt.Node, tt.NodeAddr = nodeOf(n)
			n++
			for _, l := range labels {
				for range l.Count {
					tt.Ports[l.Label] = append(tt.Ports[l.Label], 1+r.IntN(65535))
				}
			}
			rt.Tasks = append(rt.Tasks, tt)
		}
		t.Roles = append(t.Roles, rt)
	}
	return t
}

func userPorts(r *rand.Rand, names []string) []jobs.Port {
	var ps []jobs.Port
	for _, l := range distinct(r, names, r.IntN(4)) {
		if l == "ssh" || l == "http" {
			continue
		}
		ps = append(ps, jobs.Port{Label: l, Count: 1 + r.IntN(3)})
	}
	return ps
}

func paiCase(r *rand.Rand, v1 bool) Case {
	names, format := v2Names, jobs.FormatPAIv2
	if v1 {
		names, format = v1Names, jobs.FormatPAIv1
	}
	j := &jobs.Job{Name: pick(r, Hostile), Source: jobs.Source{Format: format},
		VirtualCluster: pick(r, append([]string{""}, Hostile...)),
		DataDir:        "hdfs://x/$PAI_USER_NAME/$PAI_JOB_NAME/data",
		OutputDir:      "$PAI_DEFAULT_FS_URI/out/$PAI_USERNAMEx/" + pick(r, Hostile),
		CodeDir:        pick(r, Hostile)}
	for _, name := range distinct(r, names, 1+r.IntN(6)) {
		role := &jobs.Role{Name: name, Instances: 1 + r.IntN(16),
			Resources: jobs.Resources{GPU: r.IntN(3), CPUMilli: int64(500 * (1 + r.IntN(8))), MemoryMiB: int64(1024 * (1 + r.IntN(8))), ShmMiB: 64, ShmSet: r.IntN(2) == 0}}
		role.Ports = append(userPorts(r, names), jobs.Port{Label: "ssh", Count: 1, Implicit: true}, jobs.Port{Label: "http", Count: 1, Implicit: true})
		if v1 && r.IntN(3) == 0 {
			role.MinSucceeded = nil
		} else {
			role.MinSucceeded = &role.Instances
		}
		one := 1
		role.MinFailed = &one
		j.Roles = append(j.Roles, role)
	}
	cs := []string{jobs.ContractPAI}
	if v1 {
		cs = append(cs, jobs.ContractPAIYarn)
	}
	if r.IntN(3) == 0 {
		cs = append(cs, jobs.ContractTF)
	}
	if r.IntN(3) == 0 && len(j.Roles[0].Ports) > 2 {
		cs = append(cs, jobs.ContractTorch)
	}
	j.Contracts = cs
	opts := contract.Options{User: pick(r, Hostile)}
	// Half the jobs use the ssh runtime plugin (decided without a draw, so
	// the random streams of existing cases stay as they were).
	if j.Roles[0].Instances%2 == 0 {
		j.Retry.GangAllocation = true
		j.Extras.RuntimePlugins = []jobs.RuntimePlugin{{Plugin: "ssh", Parameters: map[string]any{"jobssh": true}}}
		opts.SSH = true
	}
	return Case{Name: "pai", Job: j, Opts: opts}
}

func leinaoCase(r *rand.Rand) Case {
	j := &jobs.Job{Name: "leinao", Source: jobs.Source{Format: jobs.FormatPAIv1, Dialect: "leinao"}, Contracts: []string{jobs.ContractLeinao}}
	for _, name := range distinct(r, v1Names, 1+r.IntN(6)) {
		// ports the user declared (the YARN-era names cover them), and
		// LeinaoPAI's three either as the PAI reader adds them or left to
		// PortLabels
		role := &jobs.Role{Name: name, Instances: 1 + r.IntN(16), Ports: userPorts(r, v1Names)}
		if r.IntN(2) == 0 {
			role.Ports = append(role.Ports, jobs.Port{Label: contract.LeinaoLabel, Count: 3, Implicit: true})
		}
		j.Roles = append(j.Roles, role)
	}
	return Case{Name: "leinao", Job: j, Opts: contract.Options{User: pick(r, Hostile)}}
}

// kubeflowVersions are apiVersions of every operator generation.
var kubeflowVersions = []string{"", "kubeflow.org/v1", "kubeflow.org/v1beta2", "kubeflow.org/v1alpha2", "kubeflow.org/v1alpha1"}

func tfCase(r *rand.Rand) Case {
	types := []string{"chief", "ps", "worker", "evaluator", "master"}
	r.Shuffle(len(types), func(a, b int) { types[a], types[b] = types[b], types[a] })
	// the apiVersion picks the generation's TF_CONFIG rules (lone replica,
	// evaluator); "" is read as kubeflow.org/v1
	j := &jobs.Job{Name: "tfjob", Source: jobs.Source{Format: jobs.FormatTFJob, Version: pick(r, kubeflowVersions)}, Contracts: []string{jobs.ContractTF}}
	j.Completion.EnableDynamicWorker = r.IntN(4) == 0
	for _, typ := range types[:1+r.IntN(4)] {
		ps := append([]jobs.Port{{Label: "tfjob-port", Count: 1, Implicit: true}}, userPorts(r, v2Names)...)
		n := 1 + r.IntN(16)
		if typ == "evaluator" && r.IntN(3) == 0 {
			n = 0 // the v1.1 CRD allowed Evaluator replicas 0
		}
		j.Roles = append(j.Roles, &jobs.Role{Name: strings.ToUpper(typ[:1]) + typ[1:], ReplicaType: typ, Instances: n, Ports: ps})
	}
	if j.Roles[0].Instances == 0 {
		j.Roles[0].Instances = 1
	}
	return Case{Name: "tf", Job: j, Opts: contract.Options{TFLegacyEvaluator: r.IntN(3) == 0}}
}

func torchCase(r *rand.Rand) Case {
	p := func() []jobs.Port {
		return append([]jobs.Port{{Label: "pytorchjob-port", Count: 1, Implicit: true}}, userPorts(r, v2Names)...)
	}
	// pre-v1 apiVersions get pytorch-operator's variables
	j := &jobs.Job{Name: "pt", Source: jobs.Source{Format: jobs.FormatPyTorchJob, Version: pick(r, kubeflowVersions)}, Contracts: []string{jobs.ContractTorch}}
	nproc := pick(r, []string{"", "auto", "gpu", "4"})
	if r.IntN(4) != 0 {
		j.Roles = append(j.Roles, &jobs.Role{Name: "Master", ReplicaType: "master", Instances: 1, Ports: p(), NprocPerNodeSpec: nproc})
	}
	j.Roles = append(j.Roles, &jobs.Role{Name: "Worker", ReplicaType: "worker", Instances: 1 + r.IntN(16), Ports: p(), NprocPerNodeSpec: nproc})
	if r.IntN(3) == 0 {
		ep := map[string]any{"rdzvBackend": "c10d", "maxRestarts": 3, "rdzvConf": []any{map[string]any{"key": "a", "value": "b"}}}
		if r.IntN(2) == 0 {
			ep["minReplicas"], ep["maxReplicas"] = 1, 16
		}
		if r.IntN(2) == 0 {
			ep["rdzvHost"], ep["rdzvPort"] = "rdzv.example", 29400
		}
		j.Extras.ElasticPolicy = ep
	}
	return Case{Name: "torch", Job: j}
}

// uaiCase: a UAI node role that declares two ports, one (the contract adds
// two of its own) or none (as every UAI user wrote it).
func uaiCase(r *rand.Rand) Case {
	implicit := []jobs.Port{{Label: "ssh", Count: 1, Implicit: true}, {Label: "http", Count: 1, Implicit: true}}
	declared := [][]jobs.Port{{{Label: "uai", Count: 2}}, {{Label: "syn", Count: 1}}, nil}[r.IntN(3)]
	j := &jobs.Job{Name: "uai", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractUAI},
		Roles: []*jobs.Role{{Name: "node", Instances: 1 + r.IntN(16), Ports: append(declared, implicit...)}}}
	opts := contract.Options{}
	if j.Roles[0].Instances > 1 && r.IntN(2) == 0 {
		opts.Process = contract.ProcessPS
	}
	return Case{Name: "uai", Job: j, Opts: opts}
}

// mpiCase is an MPIJob of a random generation and implementation; the
// directory the files go to is sometimes hostile (it is a value).
func mpiCase(r *rand.Rand) Case {
	ssh := []jobs.Port{{Label: "ssh", Count: 1, Implicit: true}}
	m := &jobs.MPI{SlotsPerWorker: r.IntN(9), Implementation: pick(r, []string{"OpenMPI", "Intel", "MPICH"}),
		RshAgent: "ssh", HostSuffix: ".mpi.default.svc", RunLauncherAsWorker: r.IntN(2) == 0}
	version := pick(r, []string{"kubeflow.org/v1alpha1", "kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1"})
	if version != "kubeflow.org/v2beta1" {
		m.RshAgent, m.HostSuffix, m.Implementation = "kubexec", "", "OpenMPI"
	}
	j := &jobs.Job{Name: "mpi", Source: jobs.Source{Format: jobs.FormatMPIJob, Version: version}, Contracts: []string{jobs.ContractMPI},
		Extras: jobs.Extras{MPI: m}, Roles: []*jobs.Role{
			{Name: "launcher", ReplicaType: "launcher", Instances: 1, Ports: ssh},
			{Name: "worker", ReplicaType: "worker", Instances: 1 + r.IntN(16), Ports: append(ssh, userPorts(r, v2Names)...)},
		}}
	opts := contract.Options{}
	if r.IntN(2) == 0 {
		opts.MPIDir = pick(r, Hostile)
	}
	opts.SSH = j.Roles[1].Instances%2 == 0 // without a draw, see paiCase
	return Case{Name: "mpi", Job: j, Opts: opts}
}

// AsTasks gives every role of job what a whole task has beside its
// contract, drawn from r: 0 to 2 GPUs, an image, a command, and two user
// variables with hostile values, one of them holding ${...} (which a Nomad
// env block would rewrite, so it must travel another way).
func AsTasks(r *rand.Rand, job *jobs.Job) {
	for _, role := range job.Roles {
		role.Resources.GPU = r.IntN(3)
		role.Image = "img"
		role.Command = jobs.Command{Kind: jobs.CommandEval, Script: "true"}
		role.Env = []jobs.EnvVar{
			{Name: "USER_PLAIN", Value: Hostile[r.IntN(len(Hostile))]},
			{Name: "USER_INTERP", Value: "${NOMAD_ALLOC_ID} " + Hostile[r.IntN(len(Hostile))]},
		}
	}
}

// Local is a topology of job with every task on addr and the ports of its
// labels consecutive from first, in role, task and label order: one host's
// view, as a benchmark or a single-node test gives it.
func Local(job *jobs.Job, opts contract.Options, addr string, first int) contract.Topology {
	var topo contract.Topology
	port := first
	for k, r := range job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for range r.Instances {
			t := contract.TaskTopology{Addr: addr, Ports: map[string][]int{}, Node: "localhost", NodeAddr: addr}
			for _, p := range contract.PortLabels(job, k, opts) {
				for range p.Count {
					t.Ports[p.Label] = append(t.Ports[p.Label], port)
					port++
				}
			}
			rt.Tasks = append(rt.Tasks, t)
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}

// kindPorts are a replica type's ports as the Kubeflow reader builds them:
// the kind's named port (implicit, the operator's default) and user ports.
func kindPorts(r *rand.Rand, label string, number int) []jobs.Port {
	ps := []jobs.Port{{Label: label, Count: 1, Implicit: true, Number: number}}
	for _, p := range userPorts(r, v2Names) {
		if p.Label != label {
			ps = append(ps, p)
		}
	}
	return ps
}

// xgboostCase is an XGBoostJob: a Master of 1 replica (the webhook's rule)
// and 0 to 15 Workers, so WORKER_* come and go.
func xgboostCase(r *rand.Rand) Case {
	j := &jobs.Job{Name: "xgb", Source: jobs.Source{Format: jobs.FormatXGBoostJob, Version: "kubeflow.org/v1"}, Contracts: []string{jobs.ContractXGBoost},
		Roles: []*jobs.Role{{Name: "master", ReplicaType: "master", Instances: 1, Ports: kindPorts(r, "xgboostjob-port", 9999)}}}
	if n := r.IntN(16); n > 0 {
		j.Roles = append(j.Roles, &jobs.Role{Name: "worker", ReplicaType: "worker", Instances: n, Ports: kindPorts(r, "xgboostjob-port", 9999)})
	}
	if r.IntN(2) == 0 {
		j.Roles[0], j.Roles = j.Roles[len(j.Roles)-1], append(j.Roles[len(j.Roles)-1:], j.Roles[:len(j.Roles)-1]...)[:len(j.Roles)]
	}
	return Case{Name: "xgboost", Job: j}
}

// paddleCase is a PaddleJob in collective mode (Workers only) or
// parameter-server mode (Masters and Workers).
func paddleCase(r *rand.Rand) Case {
	j := &jobs.Job{Name: "paddle-" + pick(r, []string{"a", "job'$x", "ps"}), Source: jobs.Source{Format: jobs.FormatPaddleJob, Version: "kubeflow.org/v1"},
		Contracts: []string{jobs.ContractPaddle}}
	if r.IntN(2) == 0 {
		j.Roles = append(j.Roles, &jobs.Role{Name: "master", ReplicaType: "master", Instances: 1 + r.IntN(4), Ports: kindPorts(r, "master", 36543)})
	}
	j.Roles = append(j.Roles, &jobs.Role{Name: "worker", ReplicaType: "worker", Instances: 1 + r.IntN(16), Ports: kindPorts(r, "master", 36543)})
	return Case{Name: "paddle", Job: j}
}

// jaxCase is a JAXJob: Workers only.
func jaxCase(r *rand.Rand) Case {
	j := &jobs.Job{Name: "jax", Source: jobs.Source{Format: jobs.FormatJAXJob, Version: "kubeflow.org/v1"}, Contracts: []string{jobs.ContractJAX},
		Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 1 + r.IntN(16), Ports: kindPorts(r, "jaxjob-port", 6666)}}}
	return Case{Name: "jax", Job: j}
}

// mxnetCase is an MXJob of MXTrain (Scheduler, Server, Worker, each
// possibly absent) or MXTune roles, with tuner keys that need escaping.
func mxnetCase(r *rand.Rand) Case {
	mx := &jobs.MXNet{JobMode: "MXTrain", TunerKeys: map[string]string{}}
	types := []string{"worker", "server", "scheduler"}
	if r.IntN(4) == 0 {
		mx.JobMode, types = "MXTune", []string{"tunertracker", "tunerserver", "tuner"}
	}
	j := &jobs.Job{Name: "mx", Source: jobs.Source{Format: jobs.FormatMXJob, Version: "kubeflow.org/v1"}, Contracts: []string{jobs.ContractMXNet},
		Extras: jobs.Extras{MXNet: mx}}
	for i, t := range types[:1+r.IntN(len(types))] {
		n := 1 + r.IntN(8)
		if t == "scheduler" {
			n = 1
		} else if i > 0 && r.IntN(4) == 0 {
			n = 0
		}
		j.Roles = append(j.Roles, &jobs.Role{Name: t, ReplicaType: t, Instances: n, Ports: kindPorts(r, "mxjob-port", 9091)})
		if r.IntN(2) == 0 {
			mx.TunerKeys[t] = pick(r, []string{"k1", `q"<&>\`, "é"})
		}
	}
	return Case{Name: "mxnet", Job: j}
}
