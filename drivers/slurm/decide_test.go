package slurm

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

func intp(n int) *int { return &n }

// decideJobs are job shapes covering every rule family of the engine.
func decideJobs() map[string]*jobs.Job {
	role := func(name, rt string, n int) *jobs.Role {
		return &jobs.Role{Name: name, ReplicaType: rt, Instances: n}
	}
	pai := func(roles ...*jobs.Role) *jobs.Job {
		return &jobs.Job{Name: "p", Source: jobs.Source{Format: jobs.FormatPAIv2}, Completion: jobs.Completion{Kind: jobs.CompletionPAI}, Roles: roles}
	}
	withMin := func(r *jobs.Role, f, s *int) *jobs.Role { r.MinFailed, r.MinSucceeded = f, s; return r }
	tf := func(mod func(*jobs.Job), roles ...*jobs.Role) *jobs.Job {
		j := &jobs.Job{Name: "t", Source: jobs.Source{Format: jobs.FormatTFJob}, Completion: jobs.Completion{Kind: jobs.CompletionTF}, Roles: roles}
		if mod != nil {
			mod(j)
		}
		return j
	}
	pt := func(mod func(*jobs.Job), roles ...*jobs.Role) *jobs.Job {
		j := &jobs.Job{Name: "y", Source: jobs.Source{Format: jobs.FormatPyTorchJob}, Completion: jobs.Completion{Kind: jobs.CompletionPyTorch}, Roles: roles}
		if mod != nil {
			mod(j)
		}
		return j
	}
	return map[string]*jobs.Job{
		"pai ps/worker default": pai(withMin(role("ps", "", 2), intp(1), nil), withMin(role("worker", "", 2), intp(1), intp(2))),
		"pai minSucceeded 1":    pai(withMin(role("ps", "", 1), intp(1), nil), withMin(role("worker", "", 3), intp(2), intp(1))),
		"pai disabled rules":    pai(withMin(role("a", "", 2), nil, nil), withMin(role("b", "", 1), intp(-1), intp(-1))),
		"tf chief":              tf(nil, role("chief", "chief", 1), role("ps", "ps", 1), role("worker", "worker", 2), role("evaluator", "evaluator", 1)),
		"tf workers":            tf(nil, role("ps", "ps", 2), role("worker", "worker", 3)),
		"tf all workers":        tf(func(j *jobs.Job) { j.Completion.SuccessPolicy = "AllWorkers" }, role("ps", "ps", 1), role("worker", "worker", 3)),
		"tf dynamic":            tf(func(j *jobs.Job) { j.Completion.EnableDynamicWorker = true }, role("chief", "chief", 1), role("worker", "worker", 2)),
		"tf backoff always": tf(func(j *jobs.Job) { j.Retry.BackoffLimit = intp(3) }, role("ps", "ps", 1),
			&jobs.Role{Name: "worker", ReplicaType: "worker", Instances: 2, RestartPolicy: "Always"}),
		"tf backoff exitcode": tf(func(j *jobs.Job) { j.Retry.BackoffLimit = intp(1) },
			&jobs.Role{Name: "Worker", ReplicaType: "worker", Instances: 3, RestartPolicy: "ExitCode"}),
		"pytorch master":  pt(nil, role("master", "master", 1), role("worker", "worker", 3)),
		"pytorch workers": pt(nil, role("worker", "worker", 3)),
		"pytorch elastic": pt(func(j *jobs.Job) { j.Extras.ElasticPolicy = map[string]any{"minReplicas": 1} }, role("worker", "worker", 3)),
		"pytorch backoff": pt(func(j *jobs.Job) { j.Retry.BackoffLimit = intp(2) }, role("master", "master", 1), role("worker", "worker", 2)),
		"generic":         {Name: "g", Roles: []*jobs.Role{role("a", "", 2), role("b", "", 1)}},
		"xgboost master":  pt(func(j *jobs.Job) { j.Source.Format = jobs.FormatXGBoostJob }, role("master", "master", 1), role("worker", "worker", 2)),
		"jax workers":     pt(func(j *jobs.Job) { j.Source.Format = jobs.FormatJAXJob }, role("worker", "worker", 3)),
		"mxnet scheduler": pt(func(j *jobs.Job) { j.Source.Format, j.Completion.Decider = jobs.FormatMXJob, "scheduler" },
			role("scheduler", "scheduler", 1), role("server", "server", 1), role("worker", "worker", 2)),
		"mxnet workers without scheduler": pt(func(j *jobs.Job) { j.Source.Format, j.Completion.Decider = jobs.FormatMXJob, "scheduler" },
			role("server", "server", 1), role("worker", "worker", 2)),
		"mxnet single worker": pt(func(j *jobs.Job) { j.Source.Format, j.Completion.Decider = jobs.FormatMXJob, "scheduler" }, role("worker", "worker", 1)),
		"mpi launcher": {Name: "m", Source: jobs.Source{Format: jobs.FormatMPIJob, Version: "kubeflow.org/v2beta1"}, Completion: jobs.Completion{Kind: jobs.CompletionMPI},
			Roles: []*jobs.Role{{Name: "launcher", ReplicaType: "launcher", Instances: 1, RestartPolicy: "Never"}, role("worker", "worker", 3)}},
		"mpi backoff": {Name: "m", Source: jobs.Source{Format: jobs.FormatMPIJob, Version: "kubeflow.org/v1alpha2"}, Completion: jobs.Completion{Kind: jobs.CompletionMPI},
			Retry: jobs.Retry{BackoffLimit: intp(2)},
			Roles: []*jobs.Role{{Name: "launcher", ReplicaType: "launcher", Instances: 1, RestartPolicy: "OnFailure"}, {Name: "worker", ReplicaType: "worker", Instances: 2, RestartPolicy: "Always"}}},
		// Kubeflow Trainer TrainJobs (completion jobset.go)
		"trainjob all": {Name: "tj", Source: jobs.Source{Format: jobs.FormatTrainJob}, Completion: jobs.Completion{Kind: jobs.CompletionJobSet},
			Roles: []*jobs.Role{role("dataset-initializer", "dataset-initializer", 1), role("node", "trainer", 3)}},
		"trainjob launcher": {Name: "tj", Source: jobs.Source{Format: jobs.FormatTrainJob}, Completion: jobs.Completion{Kind: jobs.CompletionJobSet, SuccessRoles: []string{"launcher"}},
			Roles: []*jobs.Role{role("node", "node", 2), role("launcher", "trainer", 1)}},
		"trainjob any": {Name: "tj", Source: jobs.Source{Format: jobs.FormatTrainJob}, Completion: jobs.Completion{Kind: jobs.CompletionJobSet, SuccessRoles: []string{"a", "b"}, SuccessAny: true},
			Roles: []*jobs.Role{role("a", "a", 2), role("b", "b", 1), role("c", "c", 1)}},
		// Volcano Jobs (completion volcano.go): event and exit-code
		// policies of tasks and job, minSuccess, the tasks' minAvailable
		"volcano mpi": volcanoJob(3, nil, nil,
			vtask("mpimaster", 1, 1, "OnFailure", vpol("TaskCompleted", 0, "CompleteJob")), vtask("mpiworker", 2, 2, "OnFailure")),
		"volcano exit codes": volcanoJob(4, nil, []jobs.VolcanoPolicy{vpol("TaskCompleted", 0, "CompleteJob"), vpol("", 143, "AbortJob")},
			vtask("ps", 1, 1, "Never", vpol("PodFailed", 0, "AbortJob")),
			vtask("worker", 3, 3, "Never", vpol("", 137, "TerminateJob"), vpol("", 2, "CompleteJob"), vpol("PodEvicted", 0, "RestartJob"))),
		"volcano task failed": volcanoJob(2, nil, []jobs.VolcanoPolicy{vpol("*", 0, "TerminateJob")},
			vtask("a", 1, 1, "OnFailure", vpol("TaskFailed", 0, "AbortJob")), vtask("b", 2, 1, "Always")),
		"volcano minSuccess":        volcanoJob(3, intp(2), nil, vtask("worker", 4, 3, "Never")),
		"volcano gang below tasks":  volcanoJob(2, nil, nil, vtask("a", 2, 2, "Never"), vtask("b", 2, 2, "OnFailure")),
		"volcano task minAvailable": volcanoJob(2, nil, nil, vtask("a", 2, 1, "Never"), vtask("b", 2, 1, "Never")),
		"volcano no policy":         volcanoJob(3, intp(5), nil, vtask("a", 2, 1, "Never"), vtask("b", 3, 2, "OnFailure")),
		"volcano restarts": volcanoJob(3, nil, []jobs.VolcanoPolicy{vpol("", 143, "RestartJob")},
			vtask("a", 1, 1, "Never", vpol("", 2, "RestartPod"), vpol("TaskCompleted", 0, "CompleteJob")), vtask("b", 2, 2, "Never", vpol("PodFailed", 0, "RestartTask")), vtask("c", 1, 1, "OnFailure", vpol("TaskFailed", 0, "RestartJob"))),
		// policies with a timeout hold their action (completion delayed.go)
		"volcano timeouts": volcanoJob(1, nil, []jobs.VolcanoPolicy{vtimed(vpol("", 3, "AbortJob"), 5)},
			vtask("a", 1, 1, "Never", vtimed(vpol("PodFailed", 0, "RestartJob"), 2), vpol("TaskCompleted", 0, "CompleteJob")),
			vtask("b", 2, 1, "Never", vtimed(vpol("TaskCompleted", 0, "CompleteJob"), 3)), vtask("c", 1, 1, "OnFailure", vtimed(vpol("TaskFailed", 0, "TerminateJob"), 1))),
		// generations (completion chiefRules, retryableExitCode)
		"tf v1alpha1 master": tf(func(j *jobs.Job) { j.Source.Version = "kubeflow.org/v1alpha1" },
			&jobs.Role{Name: "master", ReplicaType: "master", Instances: 1, RestartPolicy: "OnFailure"}, role("ps", "ps", 1), role("worker", "worker", 2)),
		"tf v1alpha1 never": tf(func(j *jobs.Job) { j.Source.Version = "kubeflow.org/v1alpha1" },
			role("master", "master", 1), role("worker", "worker", 2)),
		"pytorch v1alpha1": pt(func(j *jobs.Job) { j.Source.Version = "kubeflow.org/v1alpha1" }, role("master", "master", 1), role("worker", "worker", 2)),
		"tf v1beta2 exitcode backoff": tf(func(j *jobs.Job) { j.Source.Version = "kubeflow.org/v1beta2"; j.Retry.BackoffLimit = intp(1) },
			&jobs.Role{Name: "Worker", ReplicaType: "worker", Instances: 3, RestartPolicy: "ExitCode"}),
	}
}

// volcanoTask is one Volcano task: its role and its lifecycle fields.
type volcanoTask struct {
	role *jobs.Role
	task jobs.VolcanoTask
}

// vtask is a task of replicas pods with its minAvailable, the pods'
// restartPolicy and its policies.
func vtask(name string, replicas, minAvailable int, restart string, ps ...jobs.VolcanoPolicy) volcanoTask {
	return volcanoTask{&jobs.Role{Name: name, Instances: replicas, RestartPolicy: restart},
		jobs.VolcanoTask{Name: name, MinAvailable: minAvailable, MaxRetry: 3, Policies: ps}}
}

// vpol is a policy on event (with "": on exit code code) doing action.
func vpol(event string, code int, action string) jobs.VolcanoPolicy {
	if event == "" {
		return jobs.VolcanoPolicy{ExitCode: intp(code), Action: action}
	}
	return jobs.VolcanoPolicy{Events: []string{event}, Action: action}
}

// vtimed is p with a timeout of secs.
func vtimed(p jobs.VolcanoPolicy, secs float64) jobs.VolcanoPolicy {
	p.TimeoutSeconds = secs
	return p
}

// volcanoJob is a Volcano Job of the tasks with the gang minAvailable,
// minSuccess and job-level policies.
func volcanoJob(minAvailable int, minSuccess *int, ps []jobs.VolcanoPolicy, tasks ...volcanoTask) *jobs.Job {
	j := &jobs.Job{Name: "v", Source: jobs.Source{Format: jobs.FormatVolcano}, Completion: jobs.Completion{Kind: jobs.CompletionVolcano}}
	v := &jobs.Volcano{MinAvailable: minAvailable, MinSuccess: minSuccess, MaxRetry: 3, Policies: ps}
	for _, t := range tasks {
		j.Roles = append(j.Roles, t.role)
		v.Tasks = append(v.Tasks, t.task)
	}
	j.Extras.Volcano = v
	return j
}

// machineVerdict is the Go attempt machine's verdict on the task ends of s,
// observed one at a time as a target reports them (on Slurm a task ends
// only after its in-place restarts, so the machine restarts nothing): the
// first verdict, or running.
func machineVerdict(job *jobs.Job, s []endEvent) completion.Verdict {
	m := completion.NewMachine(completion.PolicyOf(job), completion.MachineConfig{})
	for _, e := range s {
		st := completion.Failed
		if e.ok {
			st = completion.Succeeded
		}
		ref := jobs.TaskRef{Role: job.Roles[e.role].Name, Index: e.index}
		for _, a := range m.Observe(completion.TaskEvent{TaskRef: ref, State: st, ExitCode: e.code}) {
			if a.Kind == completion.ActVerdict {
				return a.Verdict
			}
		}
	}
	return completion.Verdict{Phase: completion.PhaseRunning}
}

type endEvent struct {
	role, index int
	ok          bool
	code        int
}

// TestShellDecideMatchesGo runs decide.sh under dash and bash on random
// sequences of task ends and requires the Go engine's phase, exit code and
// triggering task.
func TestShellDecideMatchesGo(t *testing.T) {
	codes := []int{1, 2, 137, 143, 255}
	for name, job := range decideJobs() {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(len(name))))
			var seqs [][]endEvent
			for n := 0; n < 40; n++ {
				var all []endEvent
				for ri, role := range job.Roles {
					for i := 0; i < role.Instances; i++ {
						ev := endEvent{role: ri, index: i, ok: r.Intn(3) != 0}
						if !ev.ok {
							ev.code = codes[r.Intn(len(codes))]
						}
						all = append(all, ev)
					}
				}
				r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
				seqs = append(seqs, all[:r.Intn(len(all)+1)])
			}
			// one shell run per shell: each sequence as one argument
			var args []string
			for _, s := range seqs {
				var parts []string
				for _, e := range s {
					st := "f"
					if e.ok {
						st = "s"
					}
					parts = append(parts, fmt.Sprintf("%d:%d:%s:%d", e.role, e.index, st, e.code))
				}
				args = append(args, strings.Join(parts, " "))
			}
			script := decideData(completion.PolicyOf(job)) + `
for seq in "$@"; do
	js_decide_init
	for ev in $seq; do
		IFS=: read -r R I S C <<EOF2
$ev
EOF2
		js_end "$R" "$I" "$S" "$C"
	done
	echo "$_jsh_phase $_jsh_vcode $_jsh_vtrig"
done`
			for _, sh := range shells {
				out, code := runSh(t, sh, shDecide, script, args...)
				if code != 0 {
					t.Fatalf("%s exited %d", sh, code)
				}
				got := lines(out)
				if len(got) != len(seqs) {
					t.Fatalf("%s: %d results for %d sequences:\n%s", sh, len(got), len(seqs), out)
				}
				for k, s := range seqs {
					v := machineVerdict(job, s)
					want := fmt.Sprintf("%s %d", v.Phase, v.ExitCode)
					if v.Trigger != nil && v.Phase != completion.PhaseRunning {
						ri := -1
						for x, role := range job.Roles {
							if role.Name == v.Trigger.Role {
								ri = x
							}
						}
						want += fmt.Sprintf(" %d %d", ri, v.Trigger.Index)
					} else {
						want += " "
					}
					if d := cmp.Diff(want, got[k]); d != "" {
						t.Errorf("%s: sequence %q (-go +sh):\n%s\nGo reason: %s", sh, args[k], d, v.Reason)
					}
				}
			}
		})
	}
}
