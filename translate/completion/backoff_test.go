package completion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The schedule a crash-looping container sees under the kubelet
// (kubelet.go backOffPeriod 10s, MaxContainerBackOff 300s; flowcontrol
// Next/IsInBackOffSince/hasExpired), written out by hand.
func TestKubeletBackoffSchedule(t *testing.T) {
	const quick = time.Second // every run crashes after 1 s
	want := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 300 * time.Second, 300 * time.Second, 300 * time.Second}
	var got []time.Duration
	streak := 0
	for range want {
		var d time.Duration
		d, streak = KubeletBackoff.Next(streak, quick)
		got = append(got, d)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays before restarts 1..%d (-want +got):\n%s", len(want), diff)
	}
}

func TestBackoffNext(t *testing.T) {
	b := KubeletBackoff
	cases := map[string]struct {
		streak     int
		ran        time.Duration
		wantDelay  time.Duration
		wantStreak int
	}{
		// doBackOff: no flowcontrol entry yet ⇒ not in backoff, Next, start.
		"first restart is immediate":   {0, time.Second, 0, 1},
		"second waits the initial 10s": {1, time.Second, 10 * time.Second, 2},
		"third doubles":                {2, time.Second, 20 * time.Second, 3},
		"sixth: 160s":                  {5, time.Second, 160 * time.Second, 6},
		"seventh capped at 300s":       {6, time.Second, 300 * time.Second, 7},
		"far into the streak: 300s":    {40, time.Second, 300 * time.Second, 41},
		// hasExpired: eventTime − lastUpdate > 2 × maxDuration (600 s).
		"ran exactly 10 min: not reset": {6, 600 * time.Second, 300 * time.Second, 7},
		"ran over 10 min: reset":        {6, 600*time.Second + time.Millisecond, 0, 1},
		"reset after a short streak":    {1, 11 * time.Minute, 0, 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			d, s := b.Next(c.streak, c.ran)
			if d != c.wantDelay || s != c.wantStreak {
				t.Errorf("Next(%d, %s) = %s, %d; want %s, %d", c.streak, c.ran, d, s, c.wantDelay, c.wantStreak)
			}
		})
	}
}

func TestParseBackoff(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Backoff
		wantErr bool
	}{
		"unset: the kubelet's": {"", Backoff{10 * time.Second, 300 * time.Second}, false},
		"scaled, ratios kept":  {"200ms", Backoff{200 * time.Millisecond, 6 * time.Second}, false},
		"not a duration":       {"fast", Backoff{}, true},
		"zero is refused":      {"0s", Backoff{}, true},
		"negative is refused":  {"-1s", Backoff{}, true},
		"spaces around are ok": {" 1s ", Backoff{time.Second, 30 * time.Second}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseBackoff(c.in)
			if (err != nil) != c.wantErr {
				t.Fatalf("ParseBackoff(%q) error = %v, want error %v", c.in, err, c.wantErr)
			}
			if got != c.want {
				t.Errorf("ParseBackoff(%q) = %+v, want %+v", c.in, got, c.want)
			}
		})
	}
}

func TestBackoffMillis(t *testing.T) {
	if got, want := KubeletBackoff.Millis(), "10000 300000"; got != want {
		t.Errorf("Millis() = %q, want %q", got, want)
	}
}
