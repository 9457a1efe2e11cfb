package completion

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Backoff is the wait before an in-place restart: the kubelet's
// CrashLoopBackOff, which every jobshift target applies to every in-place
// restart. For Kubeflow restartPolicy it is the platform's own rule (the
// kubelet restarts the container in its pod). PAI taskRetryCount (without
// gang) is a deviation asked for by issue 10 item 8: FrameworkController
// recreated the task's pod with no delay (its RetryDelaySec is non-zero
// only for a whole framework's Transient Conflict failures, between
// frameworkMin/MaxRetryDelaySecForTransientConflictFailed), and a new pod
// starts without CrashLoopBackOff; jobshift waits anyway, so that a task
// that cannot start does not spin.
//
// Source (kubernetes v1.9 … v1.31, unchanged):
//   - pkg/kubelet/kubelet.go: backOffPeriod = 10 * time.Second,
//     MaxContainerBackOff = 300 * time.Second,
//     klet.backOff = flowcontrol.NewBackOff(backOffPeriod, MaxContainerBackOff)
//     (no jitter).
//   - pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff: with
//     ts = the exited container's FinishedAt, if backOff.IsInBackOffSince(key, ts)
//     the container is not started ("Back-off restarting failed
//     container"); else backOff.Next(key, ts) and it is started.
//   - client-go util/flowcontrol/backoff.go: Next starts an entry at the
//     initial period (or doubles it, capped at the maximum) and sets
//     lastUpdate = now; IsInBackOffSince is false without an entry, false
//     when hasExpired (eventTime − lastUpdate > 2 × maxDuration), else
//     Since(ts) < backoff.
//
// So the first restart is immediate, the next ones wait 10 s, 20 s, 40 s …
// 300 s after the crash, and a container that ran longer than 2 × 300 s =
// 10 minutes since its last (re)start starts a new streak (an immediate
// restart). Kubernetes 1.32+ can change these under the feature gates
// KubeletCrashLoopBackOffMax / ReduceDefaultCrashLoopBackOffDecay (KEP-4603,
// off by default); jobshift follows the defaults.
type Backoff struct {
	// Initial is the first non-zero wait (kubelet: 10 s).
	Initial time.Duration
	// Max caps the wait (kubelet: 300 s); a run longer than 2×Max resets
	// the streak.
	Max time.Duration
}

// KubeletBackoff is the kubelet's default container restart backoff.
var KubeletBackoff = Backoff{Initial: 10 * time.Second, Max: 300 * time.Second}

// BackoffEnv names the test-only variable that scales the backoff down so
// that tests can watch a whole schedule: its value is the initial period
// (a Go duration, e.g. 200ms); Max becomes 30 × that, keeping the kubelet's
// ratios (and the 2 × Max reset). Drivers read it from jobshift's own
// environment; it is not meant for real jobs.
const BackoffEnv = "JOBSHIFT_TEST_RESTART_BACKOFF"

// ParseBackoff reads BackoffEnv's value; "" is KubeletBackoff.
func ParseBackoff(s string) (Backoff, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return KubeletBackoff, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Backoff{}, fmt.Errorf("%s=%q: want a positive Go duration like 200ms", BackoffEnv, s)
	}
	return Backoff{Initial: d, Max: 30 * d}, nil
}

// ResetAfter is how long a task must have run since its last (re)start for
// its next crash to restart it at once (flowcontrol hasExpired: 2 × Max).
func (b Backoff) ResetAfter() time.Duration { return 2 * b.Max }

// Next is the wait before restarting a task that just ended. streak counts
// the restarts since the last reset (0: this task was never restarted, or
// its streak was reset); ran is how long the run that just ended lasted,
// from its start to its end. It returns the wait and the new streak.
//
// kubelet: no entry ⇒ start now, entry = Initial; ran > 2×Max ⇒ expired,
// start now, entry = Initial; else wait entry, then entry = min(2×entry,
// Max). The wait before restart k (k ≥ 1) of a streak is therefore
// min(Initial × 2^(k−2), Max) for k ≥ 2, and 0 for k = 1.
func (b Backoff) Next(streak int, ran time.Duration) (time.Duration, int) {
	if streak <= 0 || ran > b.ResetAfter() {
		return 0, 1
	}
	return b.wait(streak), streak + 1
}

// wait is the entry's period after streak calls of Next: Initial doubled
// streak−1 times, capped at Max.
func (b Backoff) wait(streak int) time.Duration {
	d := b.Initial
	for i := 1; i < streak; i++ {
		d *= 2
		if d >= b.Max {
			return b.Max
		}
	}
	if d > b.Max {
		return b.Max
	}
	return d
}

// Millis renders the backoff for the Slurm task script (sh arithmetic in
// milliseconds): "INITIAL_MS MAX_MS".
func (b Backoff) Millis() string {
	return strconv.FormatInt(b.Initial.Milliseconds(), 10) + " " + strconv.FormatInt(b.Max.Milliseconds(), 10)
}
