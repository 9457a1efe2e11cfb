package nomad

import (
	"bufio"
	"context"
	"io"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// Volcano's one RetryCount on Nomad. Volcano counts RestartPod,
// RestartTask and RestartJob in one status.retryCount that no job restart
// resets (state/running.go, restarting.go @v1.16.0-alpha.1;
// completion.VolcanoRetryCount). A RestartJob is the watcher's (it
// registers the next attempt with the count in the job's meta,
// jobshift_retries, which every task reads back as
// NOMAD_META_jobshift_retries); a policy's restart in place is the
// restart loop's, inside the task (restart-loop.sh), where Nomad keeps no
// count. The loop records each such restart in its task directory, which
// the watcher reads while the attempt runs (vrestarts.go), and prints
// vcRetryLine to the task's stderr: where the token may not read the
// tasks' files, the watcher counts those lines before it decides a
// RestartJob, on raw_exec and Docker alike, on any client.

// vcRetryLine starts the line restart-loop.sh prints.
const vcRetryLine = "jobshift: Volcano RetryCount +1"

// countPolicyRestarts adds the policy restarts of the attempt's tasks that
// the machine does not hold yet to its RetryCount, when the attempt's
// verdict is a RestartJob that they may turn into Failed: from the
// records (the last ones, written after the last read), else from the
// logs. A log that cannot be read counts nothing: the job may then run
// once more than on Volcano.
func (w *watcher) countPolicyRestarts(ctx context.Context, out chan<- drivers.Event, allocs []*api.AllocationListStub) {
	v, ok := w.m.Verdict()
	if !ok || v.PolicyAction != completion.ActionRestartJob || w.lr == nil {
		return
	}
	n := 0
	if !w.lr.refused && w.readRecords(ctx, out, allocs, true) {
		n = len(w.lr.all())
	} else {
		for _, a := range allocs {
			if a.JobVersion == w.version {
				n += w.retryLines(ctx, a.ID)
			}
		}
	}
	if n > w.lr.added {
		w.m.AddPolicyRestarts(n - w.lr.added)
		w.lr.added = n
	}
}

// policyRestartsPossible: some task of job can be restarted in place by a
// RestartPod or RestartTask policy (VolcanoRestartCounter "": counted in
// RetryCount) for some exit code.
func policyRestartsPossible(job *jobs.Job) bool {
	if completion.KindOf(job) != jobs.CompletionVolcano {
		return false
	}
	for _, r := range job.Roles {
		for code := 1; code < 256; code++ {
			if completion.VolcanoRestartCounter(r, code) == "" && completion.TaskRestartDecision(job, r.Name, code, 0).Retry {
				return true
			}
		}
	}
	return false
}

// retryLines counts vcRetryLine in the stderr of allocation id's main
// task.
func (w *watcher) retryLines(ctx context.Context, id string) int {
	alloc, _, err := w.c.Allocations().Info(id, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return 0
	}
	pr := logStream(ctx, w.c, alloc, "stderr", false)
	defer pr.Close()
	return countRetryLines(pr)
}

// countRetryLines counts the lines of r that begin with vcRetryLine.
func countRetryLines(r io.Reader) int {
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), vcRetryLine) {
			n++
		}
	}
	return n
}
