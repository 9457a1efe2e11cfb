package plugin

import (
	"time"

	"github.com/jobshift/jobshift/drivers"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"github.com/jobshift/jobshift/translate/completion"
)

func statusToPB(s *drivers.Status) *pb.Status {
	out := &pb.Status{Handle: s.Handle, Name: s.Name, User: s.User, Phase: string(s.Phase), ExitCode: int32(s.ExitCode),
		Reason: s.Reason, Attempt: int32(s.Attempt)}
	if !s.Submitted.IsZero() {
		out.SubmittedUnixNano = s.Submitted.UnixNano()
	}
	for _, t := range s.Tasks {
		out.Tasks = append(out.Tasks, &pb.TaskStatus{Task: &pb.TaskRef{Role: t.Role, Index: int32(t.Index)},
			State: string(t.State), ExitCode: int32(t.ExitCode), Message: t.Message})
	}
	return out
}

func statusFromPB(in *pb.Status) *drivers.Status {
	out := &drivers.Status{Handle: in.Handle, Name: in.Name, User: in.User, Phase: completion.Phase(in.Phase),
		ExitCode: int(in.ExitCode), Reason: in.Reason, Attempt: int(in.Attempt), Tasks: []drivers.TaskStatus{}}
	if in.SubmittedUnixNano != 0 {
		out.Submitted = time.Unix(0, in.SubmittedUnixNano)
	}
	for _, t := range in.Tasks {
		ts := drivers.TaskStatus{State: completion.State(t.State), ExitCode: int(t.ExitCode), Message: t.Message}
		if t.Task != nil {
			ts.Role, ts.Index = t.Task.Role, int(t.Task.Index)
		}
		out.Tasks = append(out.Tasks, ts)
	}
	return out
}
