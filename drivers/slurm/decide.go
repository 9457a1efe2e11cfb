package slurm

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// decideData renders the static data sh/decide.sh reads: the completion
// rules of job as shell assignments (see the header of decide.sh).
func decideData(job *jobs.Job) string {
	var b strings.Builder
	kind := job.Completion.Kind
	if kind == "" {
		switch job.Source.Format {
		case jobs.FormatPAIv1, jobs.FormatPAIv2:
			kind = jobs.CompletionPAI
		case jobs.FormatTFJob:
			kind = jobs.CompletionTF
		case jobs.FormatPyTorchJob:
			kind = jobs.CompletionPyTorch
		}
	}
	k := "generic"
	switch kind {
	case jobs.CompletionPAI, jobs.CompletionTF, jobs.CompletionPyTorch:
		k = string(kind)
	}
	if (kind == jobs.CompletionTF || kind == jobs.CompletionPyTorch) && job.KubeflowGen() == jobs.KubeflowGenV1Alpha1 {
		k += "1" // the v1alpha1 chief rule (completion chiefRules)
	}
	fmt.Fprintf(&b, "_jsh_kind=%s\n_jsh_nroles=%d\n", k, len(job.Roles))
	fmt.Fprintf(&b, "_jsh_bl=%d\n_jsh_dynworker=%d\n_jsh_allworkers=%d\n_jsh_elastic=%d\n",
		b2i(job.Retry.BackoffLimit != nil), b2i(job.Completion.EnableDynamicWorker),
		b2i(strings.EqualFold(job.Completion.SuccessPolicy, "AllWorkers")), b2i(job.Extras.ElasticPolicy != nil))
	for i, r := range job.Roles {
		rt := strings.ToLower(r.ReplicaType)
		if rt == "" {
			rt = strings.ToLower(r.Name)
		}
		fmt.Fprintf(&b, "_jsh_n_%d=%d _jsh_rt_%d=%s _jsh_minf_%d=%d _jsh_mins_%d=%d\n",
			i, r.Instances, i, shQuote(rt), i, thresholdOf(r.MinFailed), i, thresholdOf(r.MinSucceeded))
		if kind == jobs.CompletionTF || kind == jobs.CompletionPyTorch {
			fmt.Fprintf(&b, "_jsh_rs_%d=%s\n", i, completion.RestartTable(job, r))
		}
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

// shQuote quotes s for POSIX sh so that the shell reads back exactly s:
// single quotes, each ' written as '\”. Every byte but NUL survives; callers
// reject NUL first (checkNUL).
func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:/=+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
