package completion

import (
	"fmt"
	"strings"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// VolcanoRestartDelay is how long the in-place restart of role's task
// that ended with exitCode waits for its policy's timeout: a PodFailed
// matched by a RestartPod or RestartTask policy with a timeout has its
// action delayed by that timeout (job_controller_util.go applyPolicies
// sets delayAct.delay; job_controller.go AddDelayActionForJob runs the
// action when the timer expires, @v1.16.0-alpha.1). The delayed action
// is cancelled only when the same pod reports PodRunning
// (CleanPodDelayActionsIfNeed), which a Failed pod never does, so the
// restart always comes, after the timeout. Zero for the kubelet's
// restarts (the pod's restartPolicy: no policy sees them), a success,
// and a policy without a timeout. Drivers wait for the longer of this
// and the back-off (Backoff). One difference: on Volcano the Failed pod
// counts as ended while its restart waits, so a job whose other pods all
// end meanwhile ends (running.go SyncJob); jobshift's task waiting to
// restart is not ended, and the job waits for its restart.
func VolcanoRestartDelay(job *jobs.Job, role string, exitCode int) time.Duration {
	if job == nil || job.Extras.Volcano == nil || KindOf(job) != jobs.CompletionVolcano || exitCode == 0 {
		return 0
	}
	r := job.Role(role)
	if r == nil || volcanoKubelet(r, exitCode) {
		return 0
	}
	p, ok := VolcanoMatch(job.Extras.Volcano, role, EventPodFailed, exitCode)
	if !ok || p.Action != ActionRestartPod && p.Action != ActionRestartTask || p.TimeoutSeconds <= 0 {
		return 0
	}
	return time.Duration(p.TimeoutSeconds * float64(time.Second))
}

// volcanoDelayList is VolcanoRestartDelay for role r as shell data, a
// word that needs no quoting: CODE_MS pairs joined by "_" (3_2500_7_1000)
// for the exit codes 1..255 whose restart waits ("" when none does);
// restart.sh js_vdelay reads it.
func volcanoDelayList(job *jobs.Job, r *jobs.Role) string {
	var pairs []string
	for code := 1; code < 256; code++ {
		if d := VolcanoRestartDelay(job, r.Name, code); d > 0 {
			pairs = append(pairs, fmt.Sprintf("%d_%d", code, d.Milliseconds()))
		}
	}
	return strings.Join(pairs, "_")
}
