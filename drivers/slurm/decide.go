package slurm

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// decideData renders the static data sh/decide.sh reads: the completion
// rules of the job's policy as shell assignments (see the header of
// decide.sh). The same Policy drives the Go attempt machine, and
// TestShellDecideMatchesGo holds the two to the same verdicts.
func decideData(pol completion.Policy) string {
	var b strings.Builder
	kind := pol.Kind
	k := "generic"
	switch kind {
	case jobs.CompletionPAI, jobs.CompletionTF, jobs.CompletionPyTorch, jobs.CompletionMPI, jobs.CompletionJobSet, jobs.CompletionVolcano:
		k = string(kind)
	}
	if kind == jobs.CompletionVolcano && pol.Job().Extras.Volcano == nil {
		k = "generic" // no lifecycle read: the generic rule, as Decide
	}
	if (kind == jobs.CompletionTF || kind == jobs.CompletionPyTorch) && pol.Generation() == jobs.KubeflowGenV1Alpha1 {
		k += "1" // the v1alpha1 chief rule (completion chiefRules)
	}
	fmt.Fprintf(&b, "_jsh_kind=%s\n_jsh_nroles=%d\n", k, len(pol.Roles))
	fmt.Fprintf(&b, "_jsh_bl=%d\n_jsh_dynworker=%d\n_jsh_allworkers=%d\n_jsh_elastic=%d\n",
		b2i(pol.Retry.BackoffLimit != nil), b2i(pol.Completion.EnableDynamicWorker),
		b2i(strings.EqualFold(pol.Completion.SuccessPolicy, "AllWorkers")), b2i(pol.Elastic))
	job := pol.Job()
	if d := completion.Decider(job); kind == jobs.CompletionPyTorch && (d != "master" || !completion.WorkersDecide(job)) {
		fmt.Fprintf(&b, "_jsh_decider=%s\n_jsh_workers=%d\n", shQuote(d), b2i(completion.WorkersDecide(job)))
	}
	for i, r := range job.Roles {
		rt := strings.ToLower(r.ReplicaType)
		if rt == "" {
			rt = strings.ToLower(r.Name)
		}
		fmt.Fprintf(&b, "_jsh_n_%d=%d _jsh_rt_%d=%s _jsh_minf_%d=%d _jsh_mins_%d=%d\n",
			i, r.Instances, i, shQuote(rt), i, thresholdOf(r.MinFailed), i, thresholdOf(r.MinSucceeded))
		if kind == jobs.CompletionTF || kind == jobs.CompletionPyTorch || kind == jobs.CompletionMPI {
			fmt.Fprintf(&b, "_jsh_rs_%d=%s\n", i, completion.RestartTable(job, r))
		}
		if kind == jobs.CompletionJobSet && jobsetTarget(job, r.Name) {
			fmt.Fprintf(&b, "_jsh_tgt_%d=1\n", i)
		}
	}
	if k == "volcano" {
		b.WriteString(volcanoData(job))
	}
	if kind == jobs.CompletionJobSet && job.Completion.SuccessAny {
		b.WriteString("_jsh_any=1\n")
	}
	return b.String()
}

func thresholdOf(p *int) int {
	if p == nil || *p < 1 {
		return 0
	}
	return *p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shQuote and writeShQuoted quote s for POSIX sh so that the shell reads
// back exactly s (every byte but NUL; callers reject NUL first: checkNUL),
// leaving plain words bare.
var (
	shQuote       = shquote.Word
	writeShQuoted = shquote.WriteWord
)

// jobsetTarget: role is a target of the TrainJob's success policy (every
// role when it names none).
func jobsetTarget(job *jobs.Job, role string) bool {
	if len(job.Completion.SuccessRoles) == 0 {
		return true
	}
	for _, r := range job.Completion.SuccessRoles {
		if r == role {
			return true
		}
	}
	return false
}
