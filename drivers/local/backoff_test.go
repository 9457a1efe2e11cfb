package local

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// restartGaps returns, for each in-place restart of task, the announced
// back-off (from the event's message, "" = immediate) and the time from
// the end of the previous run to the next start, from the events' times.
func restartGaps(evs []drivers.Event, task string) (announced []string, gaps []time.Duration) {
	var ended time.Time
	for _, e := range evs {
		if e.Task == nil || refString(*e.Task) != task {
			continue
		}
		switch {
		case strings.Contains(e.Message, "restarting in place"):
			ended = e.Time
			b := ""
			if _, after, ok := strings.Cut(e.Message, "after a back-off of "); ok {
				b, _, _ = strings.Cut(after, ",")
			}
			announced = append(announced, b)
		case e.State == completion.Running && !ended.IsZero():
			gaps = append(gaps, e.Time.Sub(ended))
			ended = time.Time{}
		}
	}
	return announced, gaps
}

// A crash-looping task waits as under the kubelet: the first restart at
// once, then Initial, doubling, capped at Max (scaled down: 100ms … 1.2s,
// the last wait capped).
// The schedule is checked exactly from what the driver announced, and the
// recorded end/start times show each wait was applied (lower bounds only:
// a loaded machine may be slower, never faster). Max is large beside what
// a run of `exit 3` can last on a loaded machine: a run longer than 2 × Max
// resets the streak (the kubelet's rule); with a 400ms Max this 2-core
// machine under load did that in 2 runs of 13.
func TestRestartBackoffSchedule(t *testing.T) {
	b := completion.Backoff{Initial: 100 * time.Millisecond, Max: 1200 * time.Millisecond}
	job := kube(jobs.FormatPyTorchJob, "crashloop", intp(7),
		kubeRole("master", "Master", 1, "OnFailure", "sh", "-c", "exit 3"))
	res, dir, evs := runJob(t, job, Options{RestartBackoff: b})
	if res.Phase != completion.PhaseFailed || res.ExitCode != 3 {
		t.Errorf("result = %+v, want failed with 3 (backoffLimit 7: 6 restarts)", res)
	}
	if n := len(starts(t, dir)); n != 7 {
		t.Errorf("%d starts, want 7", n)
	}
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1200 * time.Millisecond}
	var wantAnnounced []string
	for _, d := range want {
		s := ""
		if d > 0 {
			s = d.String()
		}
		wantAnnounced = append(wantAnnounced, s)
	}
	announced, gaps := restartGaps(evs, "master-0")
	if diff := cmp.Diff(wantAnnounced, announced); diff != "" {
		t.Errorf("announced back-offs (-want +got):\n%s", diff)
	}
	if len(gaps) != len(want) {
		t.Fatalf("%d restarts seen in the events, want %d", len(gaps), len(want))
	}
	for i, g := range gaps {
		if g < want[i] {
			t.Errorf("restart %d came %s after the crash, before its back-off of %s", i+1, g, want[i])
		}
	}
}

// A run longer than 2 × Max resets the streak (flowcontrol hasExpired):
// every restart of a task that runs long enough is immediate.
func TestRestartBackoffResetsAfterLongRun(t *testing.T) {
	b := completion.Backoff{Initial: 50 * time.Millisecond, Max: 100 * time.Millisecond}
	job := kube(jobs.FormatPyTorchJob, "longrun", intp(4),
		kubeRole("master", "Master", 1, "OnFailure", "sh", "-c", "sleep 0.4; exit 3"))
	res, _, evs := runJob(t, job, Options{RestartBackoff: b})
	if res.Phase != completion.PhaseFailed {
		t.Errorf("result = %+v, want failed", res)
	}
	announced, _ := restartGaps(evs, "master-0")
	if diff := cmp.Diff([]string{"", "", ""}, announced); diff != "" {
		t.Errorf("announced back-offs (-want +got):\n%s", diff)
	}
}

// Stopping a job whose task waits for its restart ends it at once: the
// waiting task is stopped, nothing is started again.
func TestStopDuringBackoff(t *testing.T) {
	b := completion.Backoff{Initial: time.Hour, Max: 2 * time.Hour}
	job := kube(jobs.FormatPyTorchJob, "stopwait", nil,
		kubeRole("master", "Master", 1, "OnFailure", "sh", "-c", "exit 3"))
	d, err := New(Options{RunDir: filepath.Join(t.TempDir(), "run"), RestartBackoff: b, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	h, err := d.Submit(ctx, planOf(job))
	if err != nil {
		t.Fatal(err)
	}
	evc, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	var evs []drivers.Event
	for e := range evc {
		evs = append(evs, e)
		if strings.Contains(e.Message, "after a back-off of 1h0m0s") {
			go func() { _ = d.Stop(ctx, h) }()
		}
	}
	res, err := d.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if res.Phase != completion.PhaseStopped {
		t.Errorf("result = %+v, want stopped", res)
	}
	if diff := cmp.Diff([]string{"master-0/attempt-1", "master-0/attempt-1-restart-1"}, starts(t, h.ID)); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
	if got := taskStates(evs)["master-0"]; got != completion.Stopped {
		t.Errorf("master-0 ended %s, want stopped", got)
	}
}
