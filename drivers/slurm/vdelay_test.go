package slurm

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestVolcanoDelayMatchesGo: js_vdelay (after js_backoff, in the Slurm
// and Nomad restart loops) waits the longer of the back-off and
// completion.VolcanoRestartDelay, a RestartPod/RestartTask policy's
// timeout (job_controller.go AddDelayActionForJob, @v1.16.0-alpha.1),
// for task and job policies, an exit code and an event, fractions of a
// second, and restartPolicies the kubelet restarts (no delay).
func TestVolcanoDelayMatchesGo(t *testing.T) {
	three := 3
	pols := map[string][]jobs.VolcanoPolicy{
		"exitCode 3 RestartPod 2.5s": {{ExitCode: &three, Action: completion.ActionRestartPod, TimeoutSeconds: 2.5}},
		"PodFailed RestartTask 30s":  {{Events: []string{completion.EventPodFailed}, Action: completion.ActionRestartTask, TimeoutSeconds: 30}},
		"PodFailed RestartPod":       {{Events: []string{completion.EventPodFailed}, Action: completion.ActionRestartPod}},
		"* AbortJob 5s":              {{Events: []string{"*"}, Action: completion.ActionAbortJob, TimeoutSeconds: 5}},
	}
	for pname, ps := range pols {
		for _, rp := range []string{"Never", "OnFailure"} {
			for _, onTask := range []bool{false, true} {
				v := &jobs.Volcano{MaxRetry: 3, Tasks: []jobs.VolcanoTask{{Name: "x", MaxRetry: 3}, {Name: "w", MaxRetry: 3}}}
				if onTask {
					v.Tasks[1].Policies = ps
				} else {
					v.Policies = ps
				}
				job := &jobs.Job{Source: jobs.Source{Format: jobs.FormatVolcano}, Completion: jobs.Completion{Kind: jobs.CompletionVolcano},
					Extras: jobs.Extras{Volcano: v}, Roles: []*jobs.Role{{Name: "x", Instances: 1, RestartPolicy: rp}, {Name: "w", Instances: 1, RestartPolicy: rp}}}
				var args, want []string
				for _, code := range []int{1, 2, 3, 137, 255} {
					for _, bo := range []int64{0, 10000, 60000} {
						args = append(args, fmt.Sprintf("%d:%d", code, bo))
						want = append(want, fmt.Sprintf("%d:%d %d", code, bo, max(bo, completion.VolcanoRestartDelay(job, "w", code).Milliseconds())))
					}
				}
				script := restartData(job, completion.KubeletBackoff) + `
for a in "$@"; do
	_b_wait=${a#*:}
	js_vdelay 1 "${a%:*}"
	echo "$a $_b_wait"
done`
				for _, sh := range shells {
					out, status := runSh(t, sh, shRestart, script, args...)
					if status != 0 {
						t.Fatalf("%s exited %d", sh, status)
					}
					if d := cmp.Diff(want, lines(out)); d != "" {
						t.Errorf("%s: %s %s task=%v (-go +sh):\n%s", sh, pname, rp, onTask, d)
					}
				}
			}
		}
	}
}
