package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassifyPAIExit(t *testing.T) {
	// Every code listed in spec/pai.md §4.2, by era; 137 and 143 are Unknown
	// here, not Transient as listed (issue 13; see exitcodes.go).
	want := map[string]map[int]ExitClass{
		EraK8s: {
			-100: Transient, -101: Transient, -110: Transient, -111: Transient, -120: Transient,
			-1000: Transient, -1001: Transient, -1002: Transient, -1003: Transient, -1006: Transient,
			-1205: Transient, -1300: Transient, 130: Transient, 131: Transient, 137: Unknown,
			143: Unknown, 223: Transient, 250: Transient, 253: Transient, 251: Transient,

			-200: Permanent, -210: Permanent, -220: Permanent, -230: Permanent, -1004: Permanent,
			-1005: Permanent, -1100: Permanent, -1200: Permanent, -1202: Permanent, -1203: Permanent,
			132: Permanent, 135: Permanent, 136: Permanent, 141: Permanent, 220: Permanent,
			221: Permanent, 222: Permanent, 224: Permanent, 225: Permanent, 226: Permanent,
			228: Permanent, 229: Permanent, 230: Permanent, 231: Permanent, 232: Permanent,
			233: Permanent, 234: Permanent, 235: Permanent, 249: Permanent, 252: Permanent, 254: Permanent,

			255: Unknown, 256: Unknown, 128: Unknown, 134: Unknown, 139: Unknown, -300: Unknown,
			-310: Unknown, -1201: Unknown, -1204: Unknown, -8000: Unknown,
			// not listed ⇒ Unknown (FC: no attribute)
			1: Unknown, 227: Unknown, 0: Unknown,
		},
		EraYARN: {
			130: Transient, 137: Unknown, 143: Unknown, 154: Transient, 193: Transient,
			-7100: Transient, -7150: Transient, -7199: Transient,
			196: Permanent, 198: Permanent,
			134: Unknown, 255: Unknown, 256: Unknown, -8000: Unknown, -7200: Unknown, 132: Unknown,
		},
	}
	for era, codes := range want {
		got := map[int]ExitClass{}
		for code := range codes {
			got[code] = ClassifyPAIExit(code, era)
		}
		if diff := cmp.Diff(codes, got); diff != "" {
			t.Errorf("era %s (-want +got):\n%s", era, diff)
		}
	}
	// Unknown era strings read as k8s.
	if got := ClassifyPAIExit(132, "v9"); got != Permanent {
		t.Errorf("ClassifyPAIExit(132, v9) = %s, want permanent (k8s table)", got)
	}
}

func TestPAIExitCode(t *testing.T) {
	want := map[string]map[int]int{
		// §3.1.5: kept when the exit spec has the code, else 255.
		EraK8s: {0: 0, 1: 255, 2: 255, 126: 255, 127: 255, 128: 128, 130: 130, 134: 134,
			137: 137, 139: 139, 141: 141, 143: 143, 129: 255, 200: 255, 255: 255, -1200: -1200},
		// §1 "Reported exit code": 1–127 → 255, signal deaths kept.
		EraYARN: {0: 0, 1: 255, 127: 255, 128: 128, 137: 137, 200: 200, 255: 255, -7351: -7351},
	}
	for era, codes := range want {
		got := map[int]int{}
		for code := range codes {
			got[code] = PAIExitCode(code, era)
		}
		if diff := cmp.Diff(codes, got); diff != "" {
			t.Errorf("era %s (-want +got):\n%s", era, diff)
		}
	}
}
