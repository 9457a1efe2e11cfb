package bench

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	tests := map[string]struct {
		in   []time.Duration
		want time.Duration
	}{
		"empty":            {nil, 0},
		"odd, unsorted":    {ms(700, 370, 380), 380 * time.Millisecond},
		"even: mid mean":   {ms(700, 370, 380, 710), 540 * time.Millisecond},
		"one":              {ms(5), 5 * time.Millisecond},
		"bimodal majority": {ms(370, 700, 371, 702, 369), 371 * time.Millisecond},
	}
	for name, tc := range tests {
		if got := median(tc.in); got != tc.want {
			t.Errorf("%s: median = %v, want %v", name, got, tc.want)
		}
	}
}

func TestParseTimes(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		"a task's shell":       {"0m0.003s 0m0.002s\n0m0.001s 0m0.000s\n", 5 * time.Millisecond, false},
		"minutes count":        {"1m2.500s 0m0.250s\n0m0.000s 0m0.000s\n", 62750 * time.Millisecond, false},
		"still being written":  {"0m0.003s 0m0.002s\n", 0, true},
		"empty":                {"", 0, true},
		"not times":            {"1785275\nx\n", 0, true},
		"seconds without unit": {"0m0.003 0m0.002s\n0m0.001s 0m0.000s\n", 0, true},
	}
	for name, tc := range tests {
		got, err := parseTimes(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: parseTimes(%q) = %v, %v; want %v, error %v", name, tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestBusyOf: the host's busy time counts user, nice, system, irq,
// softirq and steal ticks (10 ms each), never idle, iowait or guest time.
func TestBusyOf(t *testing.T) {
	tests := map[string]struct {
		line string
		want time.Duration
	}{
		"every field":   {"cpu  100 2 30 5000 7 1 4 3 50 0", 140 * 10 * time.Millisecond},
		"idle only":     {"cpu  0 0 0 123456 0 0 0 0 0 0", 0},
		"iowait, guest": {"cpu  0 0 0 0 900 0 0 0 800 700", 0},
		"old kernel":    {"cpu  1 1 1 1 1 1 1 1", 6 * 10 * time.Millisecond},
		"not cpu line":  {"cpu0 1 1 1 1 1 1 1 1 1 1", 0},
		"too short":     {"cpu 1 2 3", 0},
		"empty":         {"", 0},
	}
	for name, tc := range tests {
		if got := busyOf(tc.line); got != tc.want {
			t.Errorf("%s: busyOf(%q) = %v, want %v", name, tc.line, got, tc.want)
		}
	}
}
