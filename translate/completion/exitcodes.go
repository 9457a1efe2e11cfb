package completion

import "github.com/jobshift/jobshift/jobs"

// The OpenPAI exit-code tables, spec/pai.md §4.2. k8s:
// pai:src/k8s-job-exit-spec/config/k8s-job-exit-spec.yaml as rendered into
// FrameworkController's podFailureSpec; YARN:
// pai@v0.14.0:src/job-exit-spec/config/job-exit-spec.yaml. Codes not listed
// are Unknown (FC: a code without an attribute is Unknown).
//
// One deliberate departure, from issue 13 ("a worker killed with SIGKILL
// mid-run → PAI minFailed: failed; with jobRetryCount: a new attempt"): both
// tables list 137 (SIGKILL) and 143 (SIGTERM) as transient, so OpenPAI
// retried such a job forever whatever its jobRetryCount (microsoft/pai#5615,
// reported there as a bug). Here they are Unknown: retried while
// jobRetryCount allows, counted, then the job fails.
var (
	k8sTransient = codeSet(-100, -101, -110, -111, -120, -1000, -1001, -1002, -1003, -1006,
		-1205, -1300, 130, 131, 223, 250, 251, 253)
	k8sPermanent = codeSet(-200, -210, -220, -230, -1004, -1005, -1100, -1200, -1202, -1203,
		132, 135, 136, 141, 220, 221, 222, 224, 225, 226,
		228, 229, 230, 231, 232, 233, 234, 235, 249, 252, 254)
	// k8sKept are the non-zero user exit codes the k8s runtime's exithandler
	// passes through (they have entries of their own in the table); any
	// other non-zero user code is reported as 255 (§3.1.5).
	k8sKept = codeSet(128, 130, 131, 132, 134, 135, 136, 137, 139, 141, 143)

	yarnTransient = codeSet(130, 154, 193)
	yarnPermanent = codeSet(196, 198)
)

func codeSet(codes ...int) map[int]bool {
	m := make(map[int]bool, len(codes))
	for _, c := range codes {
		m[c] = true
	}
	return m
}

// ClassifyPAIExit classifies code — as OpenPAI reported it (see PAIExitCode)
// — by the era's table (EraK8s, EraYARN; anything else reads as EraK8s).
func ClassifyPAIExit(code int, era string) ExitClass {
	if era == EraYARN {
		switch {
		case yarnTransient[code], code <= -7100 && code >= -7199: // -71xx: container/node lost
			return Transient
		case yarnPermanent[code]:
			return Permanent
		}
		return Unknown
	}
	switch {
	case k8sTransient[code]:
		return Transient
	case k8sPermanent[code]:
		return Permanent
	}
	return Unknown
}

// PAIExitCode is the exit code OpenPAI would have reported for a user
// process that exited with raw. YARN (v1 JSON, §1 "Reported exit code"): a
// plain non-zero exit (1–127) becomes 255, signal deaths (≥128) are kept.
// k8s (§3.1.5): codes with their own entry in the exit spec are kept, any
// other non-zero exit becomes 255. 0 and negative (platform) codes are kept
// in both. The log-pattern matches of the exit spec (e.g. 127 + "command not
// found" → 220) cannot be reproduced without the log and are not attempted.
func PAIExitCode(raw int, era string) int {
	if raw <= 0 {
		return raw
	}
	if era == EraYARN {
		if raw < 128 {
			return 255
		}
		return raw
	}
	if k8sKept[raw] {
		return raw
	}
	return 255
}

// PAIEra is the era whose tables apply to job: YARN for v1 JSON jobs, k8s
// otherwise (spec/pai.md §0, §7).
func PAIEra(job *jobs.Job) string {
	if job != nil && job.Source.Format == jobs.FormatPAIv1 {
		return EraYARN
	}
	return EraK8s
}
