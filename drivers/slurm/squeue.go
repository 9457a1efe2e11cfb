package slurm

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"sync/atomic"
)

// squeueJob is the part of one `squeue --json` job record jobshift reads
// (Slurm 22.05: openapi/v0.0.38; later releases keep these names).
type squeueJob struct {
	JobID        int64  `json:"job_id"`
	State        string `json:"job_state"`
	Reason       string `json:"state_reason"`
	ExitCode     int    `json:"exit_code"` // a wait(2) status: code << 8 | signal
	RestartCnt   int    `json:"restart_cnt"`
	WorkDir      string `json:"current_working_directory"`
	Command      string `json:"command"`
	StdOut       string `json:"standard_output"`
	HetJobID     int64  `json:"het_job_id"`
	HetJobOffset int64  `json:"het_job_offset"`
	Name         string `json:"name"`
	UserName     string `json:"user_name"`
}

// parseSqueueJSON picks job id out of `squeue --json` output: the job
// itself, or for a het job its leader (component 0), whose state and exit
// code are the batch script's. found is false when squeue does not list
// it; filtered is false when the output holds other jobs too.
func parseSqueueJSON(out []byte, id string) (j squeueJob, found, filtered bool) {
	var doc struct {
		Jobs []squeueJob `json:"jobs"`
	}
	want, err := strconv.ParseInt(id, 10, 64)
	if err != nil || json.Unmarshal(out, &doc) != nil {
		return squeueJob{}, false, false
	}
	filtered = true
	for _, x := range doc.Jobs {
		mine := x.JobID == want || x.HetJobID == want
		filtered = filtered && mine
		if x.JobID == want || x.HetJobID == want && x.HetJobOffset == 0 {
			j, found = x, true
		}
	}
	return j, found, filtered
}

// squeueUnfiltered is set once squeue answered `-j ID` with every job it
// holds: Slurm 22.05's squeue --json ignores -j and --states (measured on
// 22.05.8: 21 jobs for -j 20). Polling that every second would make the
// controller serialise every job of a busy site, so from then on this
// process asks scontrol (one job, text) instead.
var squeueUnfiltered atomic.Bool

func (j squeueJob) state() jobState {
	code := j.ExitCode >> 8 & 0xff
	return jobState{State: j.State, Reason: j.Reason, ExitCode: code, Restarts: j.RestartCnt, Name: j.Name, User: j.UserName, Found: true}
}

// squeueJSON asks squeue about one job, completed ones included (squeue
// keeps them for MinJobAge, like scontrol). ok is false when squeue has no
// JSON output (a Slurm built without the serializer plugins), does not
// know the job, or is known to ignore -j (then poll says not to ask).
func squeueJSON(ctx context.Context, id string, poll bool) (squeueJob, bool) {
	if poll && squeueUnfiltered.Load() {
		return squeueJob{}, false
	}
	out, err := exec.CommandContext(ctx, "squeue", "--json", "--states=all", "-j", id).Output()
	if err != nil {
		return squeueJob{}, false
	}
	j, found, filtered := parseSqueueJSON(out, id)
	if !filtered {
		squeueUnfiltered.Store(true)
	}
	return j, found
}
