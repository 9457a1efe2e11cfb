package completion

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// RestartShell is TaskRestartDecision and Backoff.Next ported to POSIX sh
// (js_restart, js_backoff; restart.sh documents the data it reads): the
// in-place restarts that run inside a task on Slurm and Nomad, where no
// jobshift process sits beside the task. drivers/slurm tests it against
// the Go functions under dash and bash.
//
//go:embed restart.sh
var RestartShell string

// RestartShellData renders the data RestartShell reads for job (see the
// header of restart.sh): the job's restart rules, one line per role k
// (its index in job.Roles), and the back-off in milliseconds.
func RestartShellData(job *jobs.Job, bo Backoff) string {
	var b strings.Builder
	kind := "none"
	switch KindOf(job) {
	case jobs.CompletionPAI:
		kind = "pai"
	case jobs.CompletionTF:
		kind = "tf"
	case jobs.CompletionPyTorch:
		kind = "pytorch"
	case jobs.CompletionVolcano:
		if job.Extras.Volcano != nil {
			kind = "volcano"
		}
	}
	bl := -1
	if job.Retry.BackoffLimit != nil {
		bl = *job.Retry.BackoffLimit
	}
	gang := 0
	if job.Retry.GangAllocation {
		gang = 1
	}
	fmt.Fprintf(&b, "_t_kind=%s\n_t_gang=%d\n_t_bl=%d\n_t_classes=%s\n", kind, gang, bl, ExitClasses(job))
	fmt.Fprintf(&b, "_t_bo_init=%d _t_bo_max=%d\n", bo.Initial.Milliseconds(), bo.Max.Milliseconds())
	for k, r := range job.Roles {
		fmt.Fprintf(&b, "_t_tretry_%d=%d\n", k, r.TaskRetryCount)
		if kind == "tf" || kind == "pytorch" {
			fmt.Fprintf(&b, "_t_rs_%d=%s\n", k, RestartTable(job, r))
		}
		if kind == "volcano" {
			kt, pt, max := volcanoRestartTables(job, r)
			fmt.Fprintf(&b, "_t_vk_%d=%s _t_vp_%d=%s _t_vtmax_%d=%d\n", k, kt, k, pt, k, max)
			fmt.Fprintf(&b, "_t_vd_%d=%s\n", k, volcanoDelayList(job, r))
		}
	}
	if kind == "volcano" {
		fmt.Fprintf(&b, "_t_vmax=%d\n", job.Extras.Volcano.MaxRetry)
	}
	return b.String()
}

// volcanoRestartTables are volcanoRestart's rules for role r as data, one
// character per exit code 0..255: kt, the kubelet's restart of the pod's
// restartPolicy (1 = restart, limited by the task's maxRetry tmax); pt,
// the PodFailed policy's restart in place (VolcanoRestartTarget: p
// RestartPod, t RestartTask, 0 none; limited by the job's maxRetry).
func volcanoRestartTables(job *jobs.Job, r *jobs.Role) (kt, pt string, tmax int) {
	v := job.Extras.Volcano
	tmax = DefaultVolcanoTaskMaxRetry
	for _, t := range v.Tasks {
		if t.Name == r.Name {
			tmax = t.MaxRetry
		}
	}
	var k, p strings.Builder
	for code := range 256 {
		k.WriteByte("01"[b2i(volcanoKubelet(r, code))])
		switch VolcanoRestartTarget(job, r.Name, code) {
		case ActionRestartPod:
			p.WriteByte('p')
		case ActionRestartTask:
			p.WriteByte('t')
		default:
			p.WriteByte('0')
		}
	}
	return k.String(), p.String(), tmax
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// RestartTable is Restartable for every exit code 0..255 of role r, one
// character each (1 = restart in place): the generation's restart policy
// (jobs.KubeflowGen) as data, so the shell port never re-derives it.
func RestartTable(job *jobs.Job, r *jobs.Role) string {
	var b strings.Builder
	for code := range 256 {
		if Restartable(job, r.Name, code) {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// ExitClasses is the OpenPAI class of every raw exit code 0..255 in the
// job's era, one letter each (t transient, p permanent, u unknown): the
// shell ports' table of ClassifyPAIExit(PAIExitCode(code)).
func ExitClasses(job *jobs.Job) string {
	var cls strings.Builder
	era := PAIEra(job)
	for c := 0; c < 256; c++ {
		switch ClassifyPAIExit(PAIExitCode(c, era), era) {
		case Transient:
			cls.WriteByte('t')
		case Permanent:
			cls.WriteByte('p')
		default:
			cls.WriteByte('u')
		}
	}
	return cls.String()
}

// RestartsPossible reports whether a task of role could ever be restarted
// in place (TaskRestartDecision can say yes for some exit code): drivers
// that restart inside the task wrap only such tasks. The codes tried stand
// for every class: success, plain failure (255 as PAI reports it), the
// signal deaths, and 130 (SIGINT), which OpenPAI's tables keep transient,
// i.e. restarted whatever taskRetryCount says.
func RestartsPossible(job *jobs.Job, role string) bool {
	codes := []int{0, 1, 130, 137, 143, 255}
	if KindOf(job) == jobs.CompletionVolcano {
		// a policy names any exit code (exitCode: 3 → RestartPod)
		codes = make([]int, 256)
		for c := range codes {
			codes[c] = c
		}
	}
	for _, code := range codes {
		if TaskRestartDecision(job, role, code, 0).Retry {
			return true
		}
	}
	return false
}
