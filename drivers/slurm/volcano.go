package slurm

import (
	"fmt"
	"math"
	"strings"

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
	completion.ActionRestartJob: 'R', completion.ActionRestartPod: 'P', completion.ActionRestartTask: 'P',
}

// volcanoAction is the letter of the policy that event (with code) of
// role matches; lower case when the policy has a timeout (its action
// waits: translate/completion delayed.go).
func volcanoAction(v *jobs.Volcano, role, event string, code int) byte {
	if p, ok := completion.VolcanoMatch(v, role, event, code); ok {
		if c, ok := volcanoLetter[p.Action]; ok {
			if p.TimeoutSeconds > 0 {
				c += 'a' - 'A'
			}
			return c
		}
	}
	return '-'
}

// volcanoTimeout is the timeout, in whole seconds rounded up, of the
// policy that event (with code) of role matches (0: none, or no match).
func volcanoTimeout(v *jobs.Volcano, role, event string, code int) int {
	if p, ok := completion.VolcanoMatch(v, role, event, code); ok && p.TimeoutSeconds > 0 {
		return int(math.Ceil(p.TimeoutSeconds))
	}
	return 0
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
		tf, pf, tft, pft := "", "", 0, ""
		if r.RestartPolicy == "Never" {
			var t strings.Builder
			var secs []string
			held := false
			for code := range 256 {
				c := volcanoAction(v, r.Name, completion.EventPodFailed, code)
				t.WriteByte(c)
				s := volcanoTimeout(v, r.Name, completion.EventPodFailed, code)
				held = held || s > 0
				secs = append(secs, fmt.Sprint(s))
			}
			pf = t.String()
			if held {
				pft = strings.Join(secs, " ")
			}
		} else {
			tf = string(volcanoAction(v, r.Name, completion.EventTaskFailed, 0))
			tft = volcanoTimeout(v, r.Name, completion.EventTaskFailed, 0)
		}
		fmt.Fprintf(&b, "_jsh_vtmin_%d=%d _jsh_vtc_%d=%c _jsh_vtf_%d=%s _jsh_vpf_%d=%s\n", i, tmin[r.Name], i,
			volcanoAction(v, r.Name, completion.EventTaskCompleted, 0), i, shQuote(tf), i, shQuote(pf))
		fmt.Fprintf(&b, "_jsh_vtct_%d=%d _jsh_vtft_%d=%d _jsh_vpft_%d=%s\n", i,
			volcanoTimeout(v, r.Name, completion.EventTaskCompleted, 0), i, tft, i, shQuote(pft))
	}
	return b.String()
}
