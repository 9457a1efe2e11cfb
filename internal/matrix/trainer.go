package matrix

// trainJob: a Kubeflow Trainer v2 TrainJob on the built-in
// torch-distributed runtime (its pod fields come from the runtime; the
// TrainJob's own fields and its overrides are probed).
var trainJob = &format{name: "Kubeflow Trainer TrainJob (trainer.kubeflow.org/v1alpha1)",
	base: func() any {
		return obj("apiVersion", "trainer.kubeflow.org/v1alpha1", "kind", "TrainJob", "metadata", obj("name", "t"),
			"spec", obj("runtimeRef", obj("name", "torch-distributed"),
				"trainer", obj("numNodes", 2, "command", list("torchrun", "train.py"),
					"resourcesPerNode", obj("limits", obj("cpu", "1", "memory", "1Gi")))))
	},
	probes: []probe{
		p("", "metadata.namespace", "team"),
		p("", "spec.runtimeRef.kind", "ClusterTrainingRuntime"),
		p("", "spec.trainer.numNodes", 3),
		p("", "spec.trainer.numProcPerNode", 2),
		p("", "spec.trainer.image", "python:3.11"),
		p("", "spec.trainer.command", list("python", "other.py")),
		p("", "spec.trainer.args", list("--lr", "0.1")),
		p("", "spec.trainer.env", list(obj("name", "A", "value", "b"))),
		p("", "spec.trainer.env", list(obj("name", "PET_NNODES", "value", "9"))),
		p("", "spec.trainer.resourcesPerNode.limits.cpu", "4"),
		p("", "spec.trainer.resourcesPerNode.limits.[nvidia.com/gpu]", 1),
		p("", "spec.activeDeadlineSeconds", 3600),
		p("", "spec.suspend", true),
		p("", "spec.managedBy", "kueue.x-k8s.io/multikueue"),
		p("", "spec.initializer.dataset.storageUri", "hf://org/data"),
		p("", "spec.podTemplateOverrides", list(obj("targetJobs", list(obj("name", "node")),
			"spec", obj("volumes", list(obj("name", "data", "hostPath", obj("path", "/data"))),
				"containers", list(obj("name", "node", "volumeMounts", list(obj("name", "data", "mountPath", "/data")))))))),
		p("", "spec.podTemplateOverrides", list(obj("targetJobs", list(obj("name", "node")),
			"spec", obj("containers", list(obj("name", "node", "env", list(obj("name", "B", "value", "c")))))))),
		p("", "spec.podTemplateOverrides", list(obj("targetJobs", list(obj("name", "node")),
			"spec", obj("nodeSelector", obj("gpu", "a100"))))),
		p("", "spec.runtimePatches", list(obj("manager", "example.com/tool", "trainingRuntimeSpec", obj("template", obj("spec",
			obj("replicatedJobs", list(obj("name", "node", "template", obj("spec", obj("template", obj("spec",
				obj("nodeSelector", obj("gpu", "a100"))))))))))))),
		p("", "spec.runtimePatches", list(obj("manager", "example.com/tool", "trainingRuntimeSpec", obj("template", obj("spec",
			obj("replicatedJobs", list(obj("name", "node", "template", obj("spec", obj("template", obj("spec",
				obj("containers", list(obj("name", "node", "env", list(obj("name", "C", "value", "d")))))))))))))))),
	}}

func init() { formats = append(formats, trainJob) }
