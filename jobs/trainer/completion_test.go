package trainer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// completionJob is a TrainJob on its own two-job TrainingRuntime (node,
// launcher), with extra lines in the TrainJob's spec (tj), the runtime's
// spec (rt), the JobSet's spec (js) and the launcher Job's spec (launcher).
func completionJob(tj, rt, js, launcher string) string {
	return `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: c
spec:
  runtimeRef:
    name: rt
    kind: TrainingRuntime
` + tj + `---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: rt
spec:
` + rt + `  template:
    spec:
` + js + `      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: busybox
                      command: [sh, -c, "true"]
        - name: launcher
          template:
            spec:
` + launcher + `              template:
                spec:
                  containers:
                    - name: launcher
                      image: busybox
                      command: [sh, -c, "true"]
`
}

// TestCompletionRules: what decides a TrainJob's end, read from the
// TrainJob and its runtime as Trainer and JobSet read them (the rules
// themselves: translate/completion jobset.go and its tests).
func TestCompletionRules(t *testing.T) {
	six, two := 6, 2
	deadline := int64(600)
	cases := []struct {
		name, src string
		want      jobs.Completion
		retry     jobs.Retry
		backoff   map[string]*int
		warning   string
	}{
		{"successPolicy absent: operator All of every replicated job (jobset api/jobset/v1alpha2/jobset_types.go SuccessPolicy, as vendored by kubeflow/trainer v2.3.0)",
			completionJob("", "", "", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet}, jobs.Retry{}, map[string]*int{"node": &six, "launcher": &six}, ""},
		{"successPolicy targetReplicatedJobs [launcher]: the MPI runtimes' (manifests/base/runtimes/deepspeed_distributed.yaml @v2.3.0)",
			completionJob("", "", "      successPolicy:\n        operator: All\n        targetReplicatedJobs: [launcher]\n", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet, SuccessRoles: []string{"launcher"}}, jobs.Retry{}, nil, ""},
		{"successPolicy operator Any (jobset_types.go OperatorAny)",
			completionJob("", "", "      successPolicy:\n        operator: Any\n", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet, SuccessAny: true}, jobs.Retry{}, nil, ""},
		{"failurePolicy.maxRestarts recreates the JobSet (jobset_types.go FailurePolicy; jobset_controller.go executeRestartPolicy)",
			completionJob("", "", "      failurePolicy:\n        maxRestarts: 3\n", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet}, jobs.Retry{JobRetryCount: 3}, nil, ""},
		{"a replicated Job's backoffLimit (batch/v1 JobSpec, default 6)",
			completionJob("", "", "", "              backoffLimit: 2\n"),
			jobs.Completion{Kind: jobs.CompletionJobSet}, jobs.Retry{}, map[string]*int{"node": &six, "launcher": &two}, ""},
		{"TrainJob activeDeadlineSeconds is the deadline (pkg/apis/trainer/v1alpha1/trainjob_types.go @v2.3.0)",
			completionJob("  activeDeadlineSeconds: 600\n", "", "", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet}, jobs.Retry{ActiveDeadlineSeconds: &deadline}, nil, ""},
		{"coscheduling scheduleTimeoutSeconds is the gang timeout (trainingruntime_types.go CoschedulingPodGroupPolicySource @v2.3.0)",
			completionJob("", "  podGroupPolicy:\n    coscheduling:\n      scheduleTimeoutSeconds: 120\n", "", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet, GangTimeoutSeconds: 120}, jobs.Retry{}, nil, "Pod-group timeout is the gang timeout"},
		{"coscheduling without a timeout: its default 60 (trainingruntime_types.go +kubebuilder:default=60 @v2.3.0)",
			completionJob("", "  podGroupPolicy:\n    coscheduling: {}\n", "", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet, GangTimeoutSeconds: 60}, jobs.Retry{}, nil, "Pod-group timeout is the gang timeout"},
		{"Volcano pod-group policy: a warning, no gang timeout (trainingruntime_types.go VolcanoPodGroupPolicySource @v2.3.0)",
			completionJob("", "  podGroupPolicy:\n    volcano:\n      networkTopology:\n        mode: hard\n", "", ""),
			jobs.Completion{Kind: jobs.CompletionJobSet}, jobs.Retry{}, nil, "Volcano pod-group policy ignored"},
	}
	for _, c := range cases {
		if _, d := Read([]byte(c.src), jobs.ReadOptions{Path: "job.yaml"}); d.HasErrors() {
			t.Fatalf("%s: %v", c.name, d)
		}
		job, diags := read(t, c.src)
		got := job.Completion
		got.Pos = jobs.Pos{}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s: completion (-want +got):\n%s", c.name, d)
		}
		retry := jobs.Retry{JobRetryCount: job.Retry.JobRetryCount, ActiveDeadlineSeconds: job.Retry.ActiveDeadlineSeconds}
		if d := cmp.Diff(c.retry, retry); d != "" {
			t.Errorf("%s: retry (-want +got):\n%s", c.name, d)
		}
		for role, want := range c.backoff {
			if r := job.Role(role); r == nil || r.BackoffLimit == nil || *r.BackoffLimit != *want {
				t.Errorf("%s: role %s backoffLimit %v, want %d", c.name, role, r, *want)
			}
		}
		if c.warning != "" && !strings.Contains(diags, c.warning) {
			t.Errorf("%s: diagnostics %q, want %q", c.name, diags, c.warning)
		}
	}
}
