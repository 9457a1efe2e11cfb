package slurm

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// Volcano's lifecycle on Slurm (translate/completion volcano.go, after
// volcano-sh/volcano @v1.16.0-alpha.1 applyPolicies and state/running.go):
// the batch script sees a task end once, after any in-place restart, so
// the events it raises are those of completion.volcanoEvent: TaskCompleted
// when a role's last task succeeds, and for a failure PodFailed with its
// exit code (restartPolicy Never) or TaskFailed (OnFailure, Always). Which
// policy each of them matches is known from the job alone, so it is data:
// one action letter per event (volcanoLetter), and for PodFailed one per
// exit code 0..255.

// volcanoLetter is the letter sh/decide.sh reads for a matched action
// ("-": no policy matched, or an action with no effect on the verdict).
var volcanoLetter = map[string]byte{
	completion.ActionCompleteJob: 'C', completion.ActionAbortJob: 'A', completion.ActionTerminateJob: 'T',
}

// volcanoAction is the letter of the policy that event (with code) of
// role matches.
func volcanoAction(v *jobs.Volcano, role, event string, code int) byte {
	if p, ok := completion.VolcanoMatch(v, role, event, code); ok {
		if c, ok := volcanoLetter[p.Action]; ok {
			return c
		}
	}
	return '-'
}

// volcanoData renders the Volcano rules of decide.sh: the gang
// (_jsh_vmin), minSuccess (_jsh_vminsucc, -1 = unset), whether the tasks'
// minAvailable are checked once every pod ended (_jsh_vtaskmin: the job's
// minAvailable is at least their sum), and per role its minAvailable
// (_jsh_vtmin_R) and the actions of its TaskCompleted (_jsh_vtc_R), its
// TaskFailed (_jsh_vtf_R, "" under restartPolicy Never) and its PodFailed
// by exit code (_jsh_vpf_R, 256 letters, "" unless Never).
func volcanoData(job *jobs.Job) string {
	v := job.Extras.Volcano
	var b strings.Builder
	minSucc, sum := -1, 0
	if v.MinSuccess != nil {
		minSucc = *v.MinSuccess
	}
	tmin := map[string]int{}
	for _, t := range v.Tasks {
		sum += t.MinAvailable
		tmin[t.Name] = t.MinAvailable
	}
	fmt.Fprintf(&b, "_jsh_vmin=%d _jsh_vminsucc=%d _jsh_vtaskmin=%d\n", v.MinAvailable, minSucc, b2i(v.MinAvailable >= sum))
	for i, r := range job.Roles {
		tf, pf := "", ""
		if r.RestartPolicy == "Never" {
			var t strings.Builder
			for code := range 256 {
				t.WriteByte(volcanoAction(v, r.Name, completion.EventPodFailed, code))
			}
			pf = t.String()
		} else {
			tf = string(volcanoAction(v, r.Name, completion.EventTaskFailed, 0))
		}
		fmt.Fprintf(&b, "_jsh_vtmin_%d=%d _jsh_vtc_%d=%c _jsh_vtf_%d=%s _jsh_vpf_%d=%s\n", i, tmin[r.Name], i,
			volcanoAction(v, r.Name, completion.EventTaskCompleted, 0), i, shQuote(tf), i, shQuote(pf))
	}
	return b.String()
}

// checkVolcano refuses the lifecycle policies a task end on Slurm can
// match whose action the batch script cannot carry out: RestartJob (the
// script never runs a Volcano Job again), RestartTask and RestartPod (no
// in-place restart of a Volcano task). Policies on events Slurm never
// raises (PodEvicted, Unknown, ...) cannot fire and are kept.
func checkVolcano(job *jobs.Job) hcl.Diagnostics {
	v := job.Extras.Volcano
	if v == nil || job.Completion.Kind != jobs.CompletionVolcano {
		return nil
	}
	var diags hcl.Diagnostics
	seen := map[jobs.Pos]bool{}
	bad := func(r *jobs.Role, event string, code int) {
		p, ok := completion.VolcanoMatch(v, r.Name, event, code)
		if !ok || seen[p.Pos] {
			return
		}
		switch p.Action {
		case completion.ActionRestartJob, completion.ActionRestartTask, completion.ActionRestartPod:
			seen[p.Pos] = true
			pos := p.Pos
			if pos.IsZero() {
				pos = r.Pos
			}
			diags = append(diags, jobs.Errorf(pos, refused, "Task %s: its %s would take the lifecycle action %s, which is not supported on Slurm (the batch script neither restarts a Volcano task in place nor runs the job again); run the job on Nomad or locally, or use CompleteJob, AbortJob or TerminateJob.", r.Name, event, p.Action))
		}
	}
	for _, r := range job.Roles {
		bad(r, completion.EventTaskCompleted, 0)
		if r.RestartPolicy != "Never" {
			bad(r, completion.EventTaskFailed, 0)
			continue
		}
		for code := 1; code < 256; code++ {
			bad(r, completion.EventPodFailed, code)
		}
	}
	return diags
}
