package matrix

// volcanoJob is a Volcano Job (batch.volcano.sh/v1alpha1) with a master
// and a worker task.
var volcanoJob = &format{name: "Volcano Job (batch.volcano.sh/v1alpha1)",
	base: func() any {
		task := func(name string) any {
			return obj("name", name, "replicas", 1, "template", obj("spec", obj("restartPolicy", "Never", "containers", list(
				obj("name", name, "image", "busybox", "command", list("python", "train.py"),
					"resources", obj("limits", obj("cpu", "1", "memory", "1Gi")))))))
		}
		return obj("apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", obj("name", "m"),
			"spec", obj("tasks", list(task("master"), task("worker"))))
	},
}

func init() {
	w := "spec.tasks.1"
	volcanoJob.probes = append([]probe{
		p("", "metadata.namespace", "team"),
		p("", "spec.minAvailable", 1),
		p("", "spec.minSuccess", 1),
		p("", "spec.maxRetry", 5),
		p("", "spec.queue", "q"),
		p("", "spec.schedulerName", "volcano"),
		p("", "spec.ttlSecondsAfterFinished", 60),
		p("", "spec.policies", list(obj("event", "PodFailed", "action", "RestartJob"))),
		p("", "spec.policies", list(obj("exitCode", 3, "action", "AbortJob"))),
		p("", "spec.plugins", obj("env", list())),
		p("", "spec.plugins", obj("svc", list())),
		p("", "spec.plugins", obj("svc", list("--inject-hosts-env=false"))),
		p("", "spec.plugins", obj("ssh", list())),
		p("", "spec.plugins", obj("pytorch", list("--master=master", "--worker=worker", "--port=23456"))),
		p("", "spec.plugins", obj("tensorflow", list("--ps=master", "--worker=worker"))),
		p("", "spec.plugins", obj("mpi", list("--master=master", "--worker=worker"))),
		p("", "spec.plugins", obj("ray", list())),
		p("", "spec.volumes", list(obj("mountPath", "/data", "volumeClaimName", "pvc"))),
		p(w, "minAvailable", 0),
		p(w, "maxRetry", 1),
		p(w, "policies", list(obj("event", "TaskCompleted", "action", "CompleteJob"))),
		p(w, "dependsOn", obj("name", list("master"))),
		p(w, "topologyPolicy", "best-effort"),
	}, relabel("worker", podProbes(w))...)
	formats = append(formats, volcanoJob)
}
