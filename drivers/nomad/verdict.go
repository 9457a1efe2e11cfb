package nomad

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/hashicorp/nomad/api"
)

// Who wrote a verdict. Three kinds of writer record one: `jobshift run`
// (the user's token), the controller, and the finishers inside the job,
// which act through the job's workload identity. Nomad records no author
// of a Variable, so a finisher's verdict names its allocation and task
// (items "alloc" and "task"), and a reader takes it only when that
// allocation is one of this job's, of the version the verdict is for, the
// task is one that judges (the poststop finisher, the UAI judge, or the
// main task's in-task finisher) and had started before the verdict was
// written. A verdict naming a made-up allocation, another job's, an
// earlier version's, or a task that does not judge is ignored, and the
// watchers judge the job from its allocations.
//
// This is attribution, not proof: whoever may write the job's result
// path can still copy a real allocation ID of the job into a verdict, or
// write one naming none, which reads as run's or the controller's. Who
// may write that path is what keeps a verdict honest (per-user
// namespaces, the finisher policy limited to its job: acl.go,
// docs/operators.md).

// verdictWriter is the allocation and task of an in-job finisher.
type verdictWriter struct{ alloc, task string }

// judgeTasks are the tasks whose finishers record verdicts.
var judgeTasks = []string{FinisherTask, JudgeTask, MainTask}

// taskWriter is the finisher running in task fallback of allocation self
// (NOMAD_TASK_NAME when Nomad set it).
func taskWriter(self, fallback string) verdictWriter {
	task := os.Getenv("NOMAD_TASK_NAME")
	if task == "" {
		task = fallback
	}
	return verdictWriter{alloc: self, task: task}
}

// sign adds the writer's allocation and task to a verdict's items.
func (wr verdictWriter) sign(items api.VariableItems) {
	if wr.alloc != "" {
		items["alloc"], items["task"] = wr.alloc, wr.task
	}
}

// unattributable says why verdict v cannot be this job's finisher's, or
// "" when it can (or names no finisher).
func (w *watcher) unattributable(ctx context.Context, v *api.Variable) string {
	alloc, task := v.Items["alloc"], v.Items["task"]
	if alloc == "" && task == "" {
		return ""
	}
	if alloc == "" {
		return fmt.Sprintf("it names a writer task %q but no allocation", task)
	}
	if !slices.Contains(judgeTasks, task) {
		return fmt.Sprintf("its writer, task %q, is no task that judges a job", task)
	}
	// the stub (a prefix query in the job's namespace), not the
	// allocation with its whole job: every finisher reads the verdict
	a, err := w.ownAlloc(ctx, alloc)
	if err != nil {
		return fmt.Sprintf("its writer's allocation %s could not be read: %v", alloc, err)
	}
	if a == nil {
		return fmt.Sprintf("its writer's allocation %s is not in this job's namespace", alloc)
	}
	if a.JobID != w.id || a.JobVersion != w.version {
		return fmt.Sprintf("its writer's allocation %s belongs to job %s version %d, not to this one (%s version %d)", alloc, a.JobID, a.JobVersion, w.id, w.version)
	}
	ts := a.TaskStates[task]
	if ts == nil || ts.StartedAt.IsZero() {
		return fmt.Sprintf("its writer, task %q of allocation %s, never started", task, alloc)
	}
	if v.ModifyTime != 0 && v.ModifyTime < ts.StartedAt.UnixNano() {
		return fmt.Sprintf("it was written before its writer, task %q of allocation %s, started", task, alloc)
	}
	return ""
}
