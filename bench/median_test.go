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
