package kubeflow

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// MPIJob generations, read from kubeflow/mpi-operator's sources:
//
//   - kubeflow.org/v1alpha1 (mpi-operator 0.1, pkg/controllers/v1alpha1):
//     one pod template for everything; the launcher is a batch Job running
//     the template without resources (restartPolicy forced to OnFailure
//     unless Never), the workers a StatefulSet running `sleep 365d`; worker
//     count from spec.replicas, or spec.gpus/processingUnits divided by the
//     per-node count; hostfile `<job>-worker-<i> slots=N`, rsh agent
//     /etc/mpi/kubexec.sh; backoffLimit default 6.
//   - kubeflow.org/v1alpha2 (v0.2, pkg/controllers/v1alpha2): mpiReplicaSpecs
//     Launcher/Worker; launcher restartPolicy OnFailure unless Never, workers
//     a StatefulSet (Always); backoffLimit default 6, cleanPodPolicy None;
//     same hostfile and kubexec agent.
//   - kubeflow.org/v1 (v0.3, pkg/controllers/v1; training-operator v1):
//     restartPolicy default Never for both, cleanPodPolicy None, runPolicy
//     nested or top level, mainContainer; same hostfile and kubexec agent.
//   - kubeflow.org/v2beta1 (v0.4+, pkg/controller/mpi_job_controller.go,
//     pkg/apis/kubeflow/v2beta1/default.go, validation.go): ssh; Launcher
//     OnFailure / replicas 1, Worker Never / replicas 0; slotsPerWorker 1;
//     OpenMPI / Intel / MPICH; hostfile `<pod>.<job>.<ns>.svc slots=N` or
//     `...:N`, launcher first with runLauncherAsWorker.
//
// Every generation: the launcher decides completion (jobs.CompletionMPI).

// mpiFlavour: the operator uses the first container (no required name),
// and nothing names a port; jobshift's ssh emulation needs one per task.
var mpiFlavour = &flavour{container: "", portName: "ssh", defaultPort: 22,
	operatorEnv: []string{"K_MPI_JOB_ROLE", "OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames",
		"OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_set_default_slots", "I_MPI_HYDRA_HOST_FILE", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS",
		"I_MPI_PERHOST", "HYDRA_HOST_FILE", "HYDRA_LAUNCH_EXTRA_ARGS", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES"}}

// mpiGen is what differs between the map-form generations.
type mpiGen struct {
	launcherRestart, workerRestart string
	defaultWorkers                 bool // Worker.replicas defaults to 0 (v2beta1), not 1
	backoffDefault                 int  // -1: none
	ssh                            bool // v2beta1: ssh and FQDN host names
}

var mpiGens = map[string]mpiGen{
	"kubeflow.org/v1alpha2": {launcherRestart: "OnFailure", workerRestart: "Always", backoffDefault: 6},
	"kubeflow.org/v1":       {launcherRestart: "Never", workerRestart: "Never", backoffDefault: -1},
	"kubeflow.org/v2beta1":  {launcherRestart: "OnFailure", workerRestart: "Never", defaultWorkers: true, backoffDefault: -1, ssh: true},
}

// readMPIJob reads an MPIJob of any generation. ns is metadata.namespace
// ("" = default), which v2beta1 puts in the hostfile's host names.
func (r *reader) readMPIJob(job *jobs.Job, spec *mapping, apiNode *yaml.Node, ns string) {
	job.Contracts = []string{jobs.ContractMPI}
	job.Completion.Kind = jobs.CompletionMPI
	api := job.Source.Version
	mpi := &jobs.MPI{SlotsPerWorker: 1, Implementation: "OpenMPI", RshAgent: "kubexec", Pos: r.pos(spec.node)}
	job.Extras.MPI = mpi
	if api == "kubeflow.org/v1alpha1" || (!spec.has("mpiReplicaSpecs") && spec.has("template")) {
		r.mpiV1alpha1(job, spec, mpi)
		spec.warnUnknown()
		return
	}
	gen, known := mpiGens[api]
	if !known {
		if api != "" {
			r.warnf(apiNode, "Unknown MPIJob apiVersion", "apiVersion %q is not one jobshift knows (kubeflow.org/v1alpha1, v1alpha2, v1, v2beta1); it is read as kubeflow.org/v2beta1.", api)
		}
		gen = mpiGens["kubeflow.org/v2beta1"]
	}
	r.runPolicy(job, spec, "None") // every generation defaults cleanPodPolicy to None
	if job.Retry.BackoffLimit == nil && gen.backoffDefault >= 0 {
		b := gen.backoffDefault
		job.Retry.BackoffLimit = &b
	}
	r.replicaMap(job, spec, &replicaSet{field: "mpiReplicaSpecs", canonical: map[string]string{"launcher": "Launcher", "worker": "Worker"},
		unknownIsError: true, defaultRestart: gen.workerRestart, typeRestart: map[string]string{"launcher": gen.launcherRestart}, fl: mpiFlavour})
	r.mpiRoles(job, spec, gen)
	r.mpiOptions(job, spec, mpi, gen)
	if l := job.Role("launcher"); api == "kubeflow.org/v1" && l != nil && l.Resources.GPU > 0 {
		mpi.RunLauncherAsWorker = true // v1 isGPULauncher: listed in the hostfile, keeps its GPUs
	}
	if gen.ssh {
		if ns == "" {
			ns = "default"
		}
		mpi.RshAgent, mpi.HostSuffix = "ssh", fmt.Sprintf(".%s.%s.svc", job.Name, ns)
	}
	r.mpiName(job)
}

// mpiRoles applies the per-type defaults and the webhook's rules: Launcher
// required with exactly 1 replica; Worker at least 1 when given.
func (r *reader) mpiRoles(job *jobs.Job, spec *mapping, gen mpiGen) {
	launcher, worker := job.Role("launcher"), job.Role("worker")
	if launcher == nil {
		if len(job.Roles) > 0 {
			r.errorf(r.node(job.Roles[0].Pos), "Missing Launcher", "An MPIJob needs a Launcher replica (replicas: 1) that runs mpirun; the operator rejects the job without one.")
		}
	} else {
		if launcher.RestartPolicy != "Never" && launcher.RestartPolicy != "OnFailure" && !gen.ssh {
			// v1alpha2 … v1 setDefaultsTypeLauncher: a batch Job only takes
			// Never or OnFailure, anything else became OnFailure.
			r.warnf(r.node(launcher.Pos), "Launcher restartPolicy changed", "The Launcher runs as a Kubernetes Job; the %s operator turned restartPolicy %s into OnFailure, and so does jobshift.", job.Source.Version, launcher.RestartPolicy)
			launcher.RestartPolicy = "OnFailure"
		}
		if launcher.RestartPolicy != "Never" && launcher.RestartPolicy != "OnFailure" {
			r.errorf(r.node(launcher.Pos), "Invalid Launcher restartPolicy", "The Launcher runs as a Kubernetes Job, which only accepts restartPolicy Never or OnFailure, not %s.", launcher.RestartPolicy)
		}
		if launcher.Instances != 1 {
			r.errorf(r.node(r.firstPos(launcher.InstancesPos, launcher.Pos)), "Launcher must have one replica", "An MPIJob's Launcher has exactly 1 replica (it runs mpirun); the operator rejects %d.", launcher.Instances)
		}
	}
	if worker != nil {
		if gen.defaultWorkers && worker.InstancesPos.IsZero() {
			worker.Instances = 0 // v2beta1 setDefaultsTypeWorker
		}
		if gen.defaultWorkers && worker.Instances < 1 {
			r.errorf(r.node(r.firstPos(worker.InstancesPos, worker.Pos)), "Worker needs replicas", "mpi-operator v2beta1 defaults Worker.replicas to 0 and then rejects it (it must be 1 or more). Set Worker.replicas, or remove the Worker.")
		}
		if gen.ssh && worker.RestartPolicy != "Never" && worker.RestartPolicy != "OnFailure" {
			r.errorf(r.node(worker.Pos), "Invalid Worker restartPolicy", "mpi-operator v2beta1 accepts restartPolicy Never or OnFailure, not %s.", worker.RestartPolicy)
		}
	}
}

// mpiOptions reads the spec fields beside the replicas.
func (r *reader) mpiOptions(job *jobs.Job, spec *mapping, mpi *jobs.MPI, gen mpiGen) {
	if n := spec.get("slotsPerWorker"); n != nil {
		if v, ok := r.nonNegative(n, "spec.slotsPerWorker"); ok {
			if v > 1<<16 {
				r.errorf(n, "Too many slots", "spec.slotsPerWorker %d is more than 65536.", v)
			} else {
				mpi.SlotsPerWorker = int(v)
			}
		}
	}
	if n := spec.get("mpiImplementation"); n != nil {
		if v, ok := r.str(n, "spec.mpiImplementation"); ok {
			switch v {
			case "OpenMPI", "Intel", "MPICH":
				mpi.Implementation = v
			default:
				r.errorf(n, "Invalid mpiImplementation", "spec.mpiImplementation %q must be OpenMPI, Intel or MPICH.", v)
			}
			if !gen.ssh {
				r.warnf(n, "mpiImplementation before v2beta1", "mpiImplementation arrived with kubeflow.org/v2beta1; the %s operator always set up OpenMPI. jobshift reads it anyway.", job.Source.Version)
			}
		}
	}
	if n := spec.get("runLauncherAsWorker"); n != nil {
		mpi.RunLauncherAsWorker, _ = r.boolean(n, "spec.runLauncherAsWorker")
	}
	if n := spec.get("sshAuthMountPath"); n != nil {
		mpi.SSHAuthMountPath, _ = r.str(n, "spec.sshAuthMountPath")
	} else if gen.ssh {
		mpi.SSHAuthMountPath = "/root/.ssh"
	}
	if n := spec.get("launcherCreationPolicy"); n != nil {
		if v, ok := r.str(n, "spec.launcherCreationPolicy"); ok && v != "AtStartup" && v != "WaitForWorkersReady" {
			r.errorf(n, "Invalid launcherCreationPolicy", "spec.launcherCreationPolicy %q must be AtStartup or WaitForWorkersReady.", v)
		}
	}
	if f := spec.field("mainContainer"); f.val != nil {
		name, _ := r.str(f.val, "spec.mainContainer")
		r.warnf(f.key, "mainContainer not used to pick the container", "spec.mainContainer (%q) named the container kubexec.sh entered; jobshift runs the first container of each template, as the operator did for the launcher.", name)
	}
}

// mpiName: every worker's pod name <job>-worker-<i> is a host name, so the
// operator (v2beta1 validateMPIJobName) rejects a job whose last worker
// name is not a DNS-1035 label.
func (r *reader) mpiName(job *jobs.Job) {
	w := job.Role("worker")
	if w == nil || w.Instances == 0 || job.Name == "" {
		return
	}
	host := fmt.Sprintf("%s-worker-%d", job.Name, w.Instances-1)
	if len(host) > 63 || !dns1035Label.MatchString(host) {
		r.errorf(r.node(job.NamePos), "Job name too long for worker host names", "The last worker's host name %q is not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter, at most 63 characters); the operator rejects the job. Shorten metadata.name.", host)
	}
}

// mpiV1alpha1 reads the single-template form: the launcher runs the
// template's command without resources, the workers idle (`sleep 365d`,
// what the operator's StatefulSet ran) and wait for kubexec.
func (r *reader) mpiV1alpha1(job *jobs.Job, spec *mapping, mpi *jobs.MPI) {
	backoff := 6
	job.Retry.BackoffLimit = &backoff
	if n := spec.get("backoffLimit"); n != nil {
		if v, ok := r.nonNegative(n, "spec.backoffLimit"); ok {
			b := int(v)
			job.Retry.BackoffLimit, job.Retry.Pos = &b, r.pos(n)
		}
	}
	if n := spec.get("activeDeadlineSeconds"); n != nil {
		if v, ok := r.nonNegative(n, "spec.activeDeadlineSeconds"); ok {
			job.Retry.ActiveDeadlineSeconds = &v
		}
	}
	tf := spec.field("template")
	if tf.val == nil {
		r.errorf(spec.node, "Missing template", "A kubeflow.org/v1alpha1 MPIJob needs spec.template (the pod every replica runs).")
		return
	}
	launcher := newRole("launcher", r.pos(tf.key))
	launcher.ReplicaType = "launcher"
	if tr := r.podTemplate(launcher, tf.val, mpiFlavour, "spec.template", nil); tr != nil {
		if v, ok := r.restartPolicy(tr, "spec.template.spec.restartPolicy", false); ok && v == "Never" {
			launcher.RestartPolicy = "Never"
		}
	}
	if launcher.RestartPolicy == "" {
		launcher.RestartPolicy = "OnFailure"
	}
	worker := *launcher
	worker.Name, worker.ReplicaType, worker.RestartPolicy = "worker", "worker", "Always"
	// Own copies: drivers may adjust one role's ports or env.
	worker.Ports = append([]jobs.Port(nil), launcher.Ports...)
	worker.Env = append([]jobs.EnvVar(nil), launcher.Env...)
	worker.Volumes = append([]jobs.Volume(nil), launcher.Volumes...)
	worker.Command = jobs.Command{Kind: jobs.CommandArgv, Command: []string{"sleep"}, Args: []string{"365d"}, Pos: launcher.Command.Pos}
	launcher.Resources = jobs.Resources{Pos: launcher.Resources.Pos} // the operator cleared the launcher's limits and requests
	worker.Instances = r.mpiV1alpha1Workers(spec, &worker, mpi)
	job.Roles = []*jobs.Role{launcher, &worker}
	r.mpiName(job)
}

// mpiV1alpha1Workers is allocateProcessingUnits: spec.replicas, or
// gpus/processingUnits split by gpusPerNode/processingUnitsPerNode; the
// slots default to the per-worker units.
func (r *reader) mpiV1alpha1Workers(spec *mapping, worker *jobs.Role, mpi *jobs.MPI) int {
	count := func(key string) (int64, *yaml.Node) {
		n := spec.get(key)
		if n == nil {
			return -1, nil
		}
		v, ok := r.nonNegative(n, "spec."+key)
		if !ok {
			return -1, n
		}
		return v, n
	}
	gpus, gn := count("gpus")
	pus, pn := count("processingUnits")
	perGPU, _ := count("gpusPerNode")
	perPU, _ := count("processingUnitsPerNode")
	replicas, rn := count("replicas")
	spec.ignore("processingResourceType", "launcherOnMaster")
	units, per, unitNode, what := gpus, perGPU, gn, "gpus"
	if pn != nil {
		units, per, unitNode, what = pus, perPU, pn, "processingUnits"
		if gn != nil {
			r.errorf(pn, "gpus and processingUnits both set", "spec.gpus and spec.processingUnits are mutually exclusive; the operator refuses the job.")
		}
	}
	slots := worker.Resources.GPU
	workers := 0
	switch {
	case unitNode != nil && units >= 0 && per < 1:
		r.errorf(unitNode, "Worker count left to the operator", "spec.%s (%d) is divided by the per-node count, which comes from the operator's command line when spec.%sPerNode is not set; jobshift cannot know it. Set spec.%sPerNode, or spec.replicas with resources.limits.", what, units, what, what)
	case unitNode != nil && units >= 0 && units < per:
		workers, slots = 1, int(units)
	case unitNode != nil && units >= 0 && units%per == 0:
		workers, slots = int(units/per), int(per)
	case unitNode != nil && units >= 0:
		r.errorf(unitNode, "Not a multiple of the per-node count", "spec.%s (%d) is not a multiple of %d per node; the operator refuses the job.", what, units, per)
	case rn != nil && replicas >= 0:
		workers = int(replicas)
		worker.InstancesPos = r.pos(rn)
	default:
		r.errorf(spec.node, "No worker count", "A kubeflow.org/v1alpha1 MPIJob needs spec.replicas, spec.gpus or spec.processingUnits.")
	}
	if unitNode != nil && what == "gpus" && slots > 0 {
		worker.Resources.GPU = slots
	}
	mpi.SlotsPerWorker = 1
	if slots > 0 {
		mpi.SlotsPerWorker = slots
	}
	if n := spec.get("slotsPerWorker"); n != nil {
		if v, ok := r.nonNegative(n, "spec.slotsPerWorker"); ok && v <= 1<<16 {
			mpi.SlotsPerWorker = int(v)
		}
	}
	return workers
}
