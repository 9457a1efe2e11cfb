package local

import (
	"bytes"
	"fmt"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// The step order (jobs.Role.DependsOn): the tasks of a role with
// dependencies stay Pending until completion.MayStart says their
// dependencies hold; a dependency that can no longer hold ends the attempt
// through the machine (completion.Blocked, Machine.Block), which the job's
// retry rules then judge. Every task's contract was bound before the
// attempt began, so a late role knows its peers as the early ones do.

// startWaiting starts every waiting role whose dependencies now hold, and
// ends the attempt when one never can.
func (at *attempt) startWaiting() {
	if _, decided := at.m.Verdict(); decided || at.stopping {
		return
	}
	job := at.r.plan.Job
	for _, s := range at.slots {
		if s.p != nil || s.state != completion.Pending {
			continue
		}
		if d, _ := completion.MayStart(job, job.Role(s.ref.Role), at.m.Tasks()); d == completion.StartNow {
			at.r.emit(drivers.Event{Attempt: at.a, Message: fmt.Sprintf("role %s: its dependencies hold; starting %s", s.ref.Role, refString(s.ref))})
			at.launch(s)
		}
	}
	if _, why, blocked := completion.Blocked(job, at.m.Tasks()); blocked {
		at.r.emit(drivers.Event{Attempt: at.a, Message: why})
		at.do(at.m.Block(why))
	}
}

// stopWaiting ends a task that never started: it is Stopped at once, as a
// verdict stops a pod the JobSet never created.
func (at *attempt) stopWaiting(s *slot) {
	s.state = completion.Stopped
	ref := s.ref
	at.r.emit(drivers.Event{Attempt: at.a, Task: &ref, State: s.state, Message: "never started: its role waited for its dependencies"})
	at.do(at.m.Observe(completion.TaskEvent{TaskRef: ref, State: completion.Stopped}))
}

// renderOrder says when a role with dependencies starts.
func renderOrder(b *bytes.Buffer, r *jobs.Role) {
	for _, d := range r.DependsOn {
		fmt.Fprintf(b, "  starts once role %s is %s\n", d.Role, d.Status)
	}
}
