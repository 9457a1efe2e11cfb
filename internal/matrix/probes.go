package matrix

import (
	"encoding/json"
	"strconv"
	"strings"
)

// format is one input format: a small valid job and the fields probed on it.
type format struct {
	name   string
	base   func() any
	probes []probe
	// known are the fields the reader's own tables list, by part (nil
	// when the reader has no such table); prefix maps a part to the probe
	// path prefix its fields sit under
	known map[string]string // part → path prefix
}

// probe sets one field (path: map keys and list indexes) to value.
type probe struct {
	field string // as the matrix prints it
	path  []string
	value any
	with  []probe // further fields set with it (a volume and its mount)
}

func (f *format) encode(doc any) ([]byte, error) { return json.MarshalIndent(doc, "", "  ") }

// p builds a probe whose path is the dotted field name under prefix
// (a key holding dots, such as nvidia.com/gpu, is written in [brackets]).
func p(prefix, field string, value any) probe {
	var path []string
	if prefix != "" {
		path = strings.Split(prefix, ".")
	}
	rest := field
	for rest != "" {
		if strings.HasPrefix(rest, "[") {
			end := strings.Index(rest, "]")
			path = append(path, rest[1:end])
			rest = strings.TrimPrefix(rest[end+1:], ".")
			continue
		}
		seg, after, _ := strings.Cut(rest, ".")
		if i := strings.Index(seg, "["); i > 0 {
			seg, after = rest[:i], rest[i:]
			path = append(path, seg)
			rest = after
			continue
		}
		path = append(path, seg)
		rest = after
	}
	return probe{field: field, path: path, value: value}
}

// set puts v at path in doc, creating maps on the way; a numeric segment
// indexes a list (which must exist).
func set(doc any, path []string, v any) {
	cur := doc
	for i, k := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = v
				return
			}
			next, ok := c[k]
			if !ok {
				if _, err := strconv.Atoi(path[i+1]); err == nil {
					next = []any{map[string]any{}}
				} else {
					next = map[string]any{}
				}
				c[k] = next
			}
			cur = next
		case []any:
			n, _ := strconv.Atoi(k)
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		}
	}
}

// with sets more fields together with p.
func with(first probe, more ...probe) probe {
	first.with = more
	return first
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func list(v ...any) []any { return v }

// the formats, in the order the matrix prints them
var formats = []*format{paiV1, paiV2, tfJob, pyTorchJob, mpiV1alpha1, mpiV1alpha2, mpiV1, mpiV2beta1,
	xgboostJob, paddleJob, jaxJob, mxJob}

var paiV1 = &format{name: "OpenPAI v1 (JSON)",
	known: map[string]string{"v1": "", "v1 taskRoles[]": "taskRoles.0", "v1 portList[]": "taskRoles.0.portList.0"},
	base: func() any {
		return obj("jobName", "m", "image", "busybox", "taskRoles", list(obj("name", "worker", "taskNumber", 2,
			"cpuNumber", 1, "memoryMB", 1024, "command", "python train.py")))
	},
	probes: []probe{
		p("", "jobName", "other"),
		p("", "image", "python:3.11"),
		p("", "authFile", "hdfs://nn/auth"),
		p("", "dataDir", "hdfs://nn/data"),
		p("", "outputDir", "hdfs://nn/out"),
		p("", "codeDir", "hdfs://nn/code"),
		p("", "virtualCluster", "vc1"),
		p("", "gpuType", "K80"),
		p("", "retryCount", 2),
		p("", "killAllOnCompletedTaskNumber", 1),
		p("", "jobEnvs", obj("isDebug", true)),
		p("", "extras", obj("x", 1)),
		p("taskRoles.0", "name", "trainer"),
		p("taskRoles.0", "taskNumber", 3),
		p("taskRoles.0", "cpuNumber", 4),
		p("taskRoles.0", "memoryMB", 4096),
		p("taskRoles.0", "shmMB", 512),
		p("taskRoles.0", "gpuNumber", 1),
		p("taskRoles.0", "portList", list(obj("label", "http", "beginAt", 0, "portNumber", 1))),
		p("taskRoles.0", "command", "python other.py"),
		p("taskRoles.0", "minFailedTaskCount", 2),
		p("taskRoles.0", "minSucceededTaskCount", 1),
	}}

var paiV2 = &format{name: "OpenPAI protocol v2 (YAML)",
	known: map[string]string{"v2": "", "v2 taskRoles.<name>": "taskRoles.worker"},
	base: func() any {
		return obj("protocolVersion", 2, "name", "m", "type", "job",
			"prerequisites", list(obj("type", "dockerimage", "name", "img", "uri", "busybox")),
			"taskRoles", obj("worker", obj("instances", 2, "dockerImage", "img",
				"resourcePerInstance", obj("cpu", 1, "memoryMB", 1024, "gpu", 0),
				"commands", list("python train.py"))))
	},
	probes: []probe{
		p("", "name", "other"),
		p("", "version", "1.0"),
		p("", "contributor", "alice"),
		p("", "description", "a job"),
		p("", "parameters", obj("lr", 0.1)),
		p("", "secrets", obj("token", "s3cr3t")),
		p("", "jobRetryCount", 2),
		p("", "defaults", obj("virtualCluster", "vc1")),
		p("", "deployments", list(obj("name", "d", "taskRoles", obj("worker", obj("preCommands", list("echo pre")))))),
		p("", "extras.gangAllocation", false),
		p("", "extras.hivedScheduler", obj("taskRoles", obj("worker", obj("skuType", "DGX2-V100")))),
		p("", "extras.com.microsoft.pai.runtimeplugin", list(obj("plugin", "ssh", "parameters", obj("jobssh", true)))),
		p("", "extras.jobPriorityClass", "prod"),
		p("", "extras.submitFrom", "webportal"),
		p("taskRoles.worker", "instances", 3),
		p("taskRoles.worker", "completion.minFailedInstances", 2),
		p("taskRoles.worker", "completion.minSucceededInstances", 1),
		p("taskRoles.worker", "taskRetryCount", 1),
		p("taskRoles.worker", "resourcePerInstance.cpu", 4),
		p("taskRoles.worker", "resourcePerInstance.memoryMB", 4096),
		p("taskRoles.worker", "resourcePerInstance.gpu", 1),
		p("taskRoles.worker", "resourcePerInstance.ports", obj("http", 1)),
		p("taskRoles.worker", "extraContainerOptions.shmMB", 256),
		p("taskRoles.worker", "extraContainerOptions.infiniband", true),
		p("taskRoles.worker", "commands", list("python other.py")),
	}}

// kubeflow builds a Kubeflow job of kind with the given replica specs.
func kubeflow(kind, specKey, container string, replicas ...string) func() any {
	return func() any {
		specs := obj()
		for _, r := range replicas {
			specs[r] = obj("replicas", 1, "restartPolicy", "Never", "template", obj("spec", obj("containers", list(
				obj("name", container, "image", "busybox", "command", list("python", "train.py"),
					"resources", obj("limits", obj("cpu", "1", "memory", "1Gi")))))))
		}
		return obj("apiVersion", "kubeflow.org/v1", "kind", kind, "metadata", obj("name", "m"),
			"spec", obj(specKey, specs))
	}
}

// podProbes are the pod template fields probed on a replica type.
func podProbes(spec string) []probe {
	c := spec + ".template.spec.containers.0"
	ps := spec + ".template.spec"
	return []probe{
		p(spec, "replicas", 2),
		p(spec, "restartPolicy", "OnFailure"),
		p(c, "image", "python:3.11"),
		p(c, "command", list("python", "other.py")),
		p(c, "args", list("--lr", "0.1")),
		p(c, "env", list(obj("name", "A", "value", "b"))),
		p(c, "env", list(obj("name", "A", "valueFrom", obj("secretKeyRef", obj("name", "s", "key", "k"))))),
		p(c, "envFrom", list(obj("configMapRef", obj("name", "cm")))),
		p(c, "workingDir", "/work"),
		p(c, "ports", list(obj("name", "metrics", "containerPort", 9090))),
		p(c, "resources.limits.cpu", "4"),
		p(c, "resources.limits.memory", "8Gi"),
		p(c, "resources.limits.[nvidia.com/gpu]", 1),
		p(c, "resources.requests.cpu", "2"),
		with(p(c, "volumeMounts", list(obj("name", "data", "mountPath", "/data"))),
			p(ps, "volumes", list(obj("name", "data", "hostPath", obj("path", "/data"))))),
		with(p(c, "volumeMounts", list(obj("name", "dshm", "mountPath", "/dev/shm"))),
			p(ps, "volumes", list(obj("name", "dshm", "emptyDir", obj("medium", "Memory", "sizeLimit", "2Gi"))))),
		with(p(c, "volumeMounts", list(obj("name", "cfg", "mountPath", "/etc/cfg"))),
			p(ps, "volumes", list(obj("name", "cfg", "configMap", obj("name", "cm"))))),
		p(c, "securityContext.privileged", true),
		p(c, "livenessProbe.exec.command", list("true")),
		p(c, "imagePullPolicy", "Always"),
		p(ps, "nodeSelector", obj("gpu", "v100")),
		p(ps, "tolerations", list(obj("key", "gpu", "operator", "Exists"))),
		p(ps, "affinity.nodeAffinity", obj()),
		p(ps, "hostNetwork", true),
		p(ps, "initContainers", list(obj("name", "init", "image", "busybox", "command", list("true")))),
		p(ps, "serviceAccountName", "sa"),
		p(ps, "schedulerName", "volcano"),
		p(ps, "priorityClassName", "high"),
		p(ps, "imagePullSecrets", list(obj("name", "reg"))),
	}
}

var runPolicyProbes = []probe{
	p("", "metadata.namespace", "team"),
	p("", "metadata.labels", obj("a", "b")),
	p("", "spec.runPolicy.cleanPodPolicy", "All"),
	p("", "spec.runPolicy.backoffLimit", 3),
	p("", "spec.runPolicy.activeDeadlineSeconds", 3600),
	p("", "spec.runPolicy.ttlSecondsAfterFinished", 60),
	p("", "spec.runPolicy.schedulingPolicy.minAvailable", 2),
	p("", "spec.runPolicy.suspend", true),
}

var tfJob = &format{name: "Kubeflow TFJob (kubeflow.org/v1)",
	base: kubeflow("TFJob", "tfReplicaSpecs", "tensorflow", "Worker"),
	probes: append(append(append([]probe{}, runPolicyProbes...),
		p("", "spec.successPolicy", "AllWorkers"),
		p("", "spec.enableDynamicWorker", true),
	), relabel("Worker", podProbes("spec.tfReplicaSpecs.Worker"))...)}

var pyTorchJob = &format{name: "Kubeflow PyTorchJob (kubeflow.org/v1)",
	base: kubeflow("PyTorchJob", "pytorchReplicaSpecs", "pytorch", "Master", "Worker"),
	probes: append(append(append([]probe{}, runPolicyProbes...),
		p("", "spec.elasticPolicy", obj("minReplicas", 1, "maxReplicas", 3)),
		p("", "spec.nprocPerNode", "2"),
	), relabel("Worker", podProbes("spec.pytorchReplicaSpecs.Worker"))...)}

// relabel prints pod probes relative to the replica spec ("Worker: ...").
func relabel(replica string, ps []probe) []probe {
	for i := range ps {
		ps[i].field = replica + " " + ps[i].field
		if len(ps[i].with) > 0 {
			ps[i].field = replica + " volume mounted at " + ps[i].value.([]any)[0].(map[string]any)["mountPath"].(string)
		} else if strings.Contains(strings.Join(ps[i].path, "."), ".template.spec.containers.0.") {
			ps[i].field = replica + " container " + strings.TrimPrefix(ps[i].field, replica+" ")
		}
	}
	return ps
}

// mpiJob builds an MPIJob of apiVersion kubeflow.org/<gen> with a Launcher
// running mpirun and two Workers with no command (the operator's idle
// workers; jobshift's ssh emulation runs their sshd).
func mpiJob(gen string) func() any {
	return func() any {
		pod := func(name string, cmd []any) any {
			c := obj("name", name, "image", "busybox", "resources", obj("limits", obj("cpu", "1", "memory", "1Gi")))
			if cmd != nil {
				c["command"] = cmd
			}
			return obj("spec", obj("containers", list(c)))
		}
		return obj("apiVersion", "kubeflow.org/"+gen, "kind", "MPIJob", "metadata", obj("name", "m"),
			"spec", obj("mpiReplicaSpecs", obj(
				"Launcher", obj("replicas", 1, "template", pod("launcher", list("mpirun", "-n", "2", "python", "train.py"))),
				"Worker", obj("replicas", 2, "template", pod("worker", nil)))))
	}
}

// mpiProbes are the MPIJob fields of the map-form generations (v1alpha2
// on), with the launcher's and the workers' pod fields.
func mpiProbes(extra ...probe) []probe {
	ps := []probe{
		p("", "metadata.namespace", "team"),
		p("", "spec.slotsPerWorker", 4),
		p("", "spec.runPolicy.cleanPodPolicy", "All"),
		p("", "spec.runPolicy.backoffLimit", 3),
		p("", "spec.runPolicy.activeDeadlineSeconds", 3600),
		p("", "spec.runPolicy.ttlSecondsAfterFinished", 60),
		p("", "spec.runPolicy.schedulingPolicy.minAvailable", 2),
		p("", "spec.runPolicy.suspend", true),
		p("", "spec.mpiImplementation", "Intel"),
		p("", "spec.runLauncherAsWorker", true),
	}
	ps = append(ps, extra...)
	l := "spec.mpiReplicaSpecs.Launcher"
	ps = append(ps, relabel("Launcher", []probe{
		p(l, "restartPolicy", "Never"),
		p(l+".template.spec.containers.0", "command", list("mpirun", "-n", "4", "python", "other.py")),
		p(l+".template.spec.containers.0", "env", list(obj("name", "A", "value", "b"))),
		p(l+".template.spec.containers.0", "resources.limits.[nvidia.com/gpu]", 1),
	})...)
	w := "spec.mpiReplicaSpecs.Worker"
	return append(ps, relabel("Worker", []probe{
		p(w, "replicas", 3),
		p(w, "restartPolicy", "OnFailure"),
		p(w+".template.spec.containers.0", "command", list("/usr/sbin/sshd", "-De")),
		p(w+".template.spec.containers.0", "command", list("python", "serve.py")),
		p(w+".template.spec.containers.0", "image", "python:3.11"),
		p(w+".template.spec.containers.0", "ports", list(obj("name", "ssh", "containerPort", 2222))),
		p(w+".template.spec.containers.0", "resources.limits.cpu", "4"),
		p(w+".template.spec.containers.0", "resources.limits.[nvidia.com/gpu]", 1),
		p(w+".template.spec", "hostNetwork", true),
	})...)
}

var mpiV1alpha1 = &format{name: "Kubeflow MPIJob (kubeflow.org/v1alpha1)",
	base: func() any {
		return obj("apiVersion", "kubeflow.org/v1alpha1", "kind", "MPIJob", "metadata", obj("name", "m"),
			"spec", obj("replicas", 2, "template", obj("spec", obj("containers", list(
				obj("name", "bench", "image", "busybox", "command", list("mpirun", "python", "bench.py"),
					"resources", obj("limits", obj("cpu", "1", "memory", "1Gi"))))))))
	},
	probes: []probe{
		p("", "metadata.namespace", "team"),
		p("", "spec.replicas", 3),
		p("", "spec.slotsPerWorker", 4),
		p("", "spec.backoffLimit", 2),
		p("", "spec.activeDeadlineSeconds", 3600),
		named("spec.gpus with spec.gpusPerNode", with(p("", "spec.gpus", 16), p("", "spec.gpusPerNode", 8))),
		p("", "spec.gpus", 16),
		named("spec.processingUnits with spec.processingUnitsPerNode", with(p("", "spec.processingUnits", 8), p("", "spec.processingUnitsPerNode", 4))),
		p("", "spec.processingResourceType", "cpu"),
		p("", "spec.launcherOnMaster", true),
	}}

func init() {
	t := "spec.template.spec"
	mpiV1alpha1.probes = append(mpiV1alpha1.probes, relabel("template", []probe{
		p(t+".containers.0", "command", list("mpirun", "python", "other.py")),
		p(t+".containers.0", "image", "python:3.11"),
		p(t+".containers.0", "resources.limits.cpu", "4"),
		p(t+".containers.0", "resources.limits.[nvidia.com/gpu]", 2),
		p(t, "restartPolicy", "Never"),
	})...)
}

// named gives a probe that sets several fields its printed name.
func named(field string, pr probe) probe {
	pr.field = field
	return pr
}

var mpiV1alpha2 = &format{name: "Kubeflow MPIJob (kubeflow.org/v1alpha2)", base: mpiJob("v1alpha2"),
	probes: mpiProbes()}

var mpiV1 = &format{name: "Kubeflow MPIJob (kubeflow.org/v1)", base: mpiJob("v1"),
	probes: mpiProbes(p("", "spec.mainContainer", "launcher"))}

var mpiV2beta1 = &format{name: "Kubeflow MPIJob (kubeflow.org/v2beta1)", base: mpiJob("v2beta1"),
	probes: mpiProbes(
		p("", "spec.mpiImplementation", "MPICH"),
		p("", "spec.sshAuthMountPath", "/home/mpiuser/.ssh"),
		p("", "spec.launcherCreationPolicy", "WaitForWorkersReady"),
	)}

var xgboostJob = &format{name: "Kubeflow XGBoostJob (kubeflow.org/v1)",
	base:   kubeflow("XGBoostJob", "xgbReplicaSpecs", "xgboost", "Master", "Worker"),
	probes: append(append([]probe{}, runPolicyProbes...), relabel("Worker", podProbes("spec.xgbReplicaSpecs.Worker"))...)}

var paddleJob = &format{name: "Kubeflow PaddleJob (kubeflow.org/v1)",
	base: kubeflow("PaddleJob", "paddleReplicaSpecs", "paddle", "Worker"),
	probes: append(append(append([]probe{}, runPolicyProbes...),
		p("", "spec.elasticPolicy", obj("minReplicas", 1, "maxReplicas", 3)),
	), relabel("Worker", podProbes("spec.paddleReplicaSpecs.Worker"))...)}

var jaxJob = &format{name: "Kubeflow JAXJob (kubeflow.org/v1)",
	base:   kubeflow("JAXJob", "jaxReplicaSpecs", "jax", "Worker"),
	probes: append(append([]probe{}, runPolicyProbes...), relabel("Worker", podProbes("spec.jaxReplicaSpecs.Worker"))...)}

var mxJob = &format{name: "Kubeflow MXJob (kubeflow.org/v1, training-operator v1.8.1)",
	base: func() any {
		j := kubeflow("MXJob", "mxReplicaSpecs", "mxnet", "Scheduler", "Server", "Worker")().(map[string]any)
		j["spec"].(map[string]any)["jobMode"] = "MXTrain"
		return j
	},
	probes: append(append(append([]probe{}, runPolicyProbes...),
		p("", "spec.jobMode", "MXTune"),
	), append(relabel("Server", []probe{p("spec.mxReplicaSpecs.Server", "template.metadata.annotations", obj("tuner-server-key", "k"))}),
		relabel("Worker", podProbes("spec.mxReplicaSpecs.Worker"))...)...)}
