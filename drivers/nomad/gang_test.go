package nomad

import (
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// A job's own pod-group schedule timeout (a TrainJob runtime's
// coscheduling scheduleTimeoutSeconds) is the barrier's and the watcher's
// gang timeout; without one the site's nomad.barrier_timeout is.
func TestGangTimeoutOfJob(t *testing.T) {
	cases := []struct {
		name    string
		seconds int
		want    time.Duration
		barrier []string // in the rendered barrier task
	}{
		{"site", 0, 2 * time.Minute, []string{`-gt 1200 `, `after 2m0s `, `nomad.barrier_timeout in the site config`}},
		{"job", 90, 90 * time.Second, []string{`-gt 900 `, `after 1m30s `, `pod-group schedule timeout (scheduleTimeoutSeconds)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := psWorker("gang", "true")
			j.Completion.GangTimeoutSeconds = c.seconds
			set, _ := newSettings(rawExecSite())
			if got := set.gangTimeout(j.Completion); got != c.want {
				t.Errorf("gangTimeout = %s, want %s", got, c.want)
			}
			hcl := string(render(t, false, plan(j, rawExecSite())))
			for _, w := range c.barrier {
				if !strings.Contains(hcl, w) {
					t.Errorf("barrier task lacks %q", w)
				}
			}
		})
	}
	// Without a site nomad block the job's own timeout still wins.
	j := psWorker("gang", "true")
	j.Completion = jobs.Completion{Kind: jobs.CompletionJobSet, GangTimeoutSeconds: 7}
	set, _ := newSettings(nil)
	if got := set.gangTimeout(j.Completion); got != 7*time.Second {
		t.Errorf("gangTimeout = %s, want 7s", got)
	}
}
