package nomad

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/translate/completion"
)

// End markers: how a task that judges its own job before it has ended
// (the in-task finisher, FinishEnded) still lets some judge see every end.
//
// A task's end reaches the server only after its process has exited, so
// two tasks ending together, each judging from inside, would each see the
// other still running, and a rule that needs both ends (every worker
// succeeded) would fire for neither. So each one first writes a marker
// Variable, <ResultPath>/ended/<alloc ID>/<exit code>, and then lists the
// markers: the server's state only moves forward and reads go to the
// leader, so of two writers the one that lists second sees both markers —
// the last to write sees every end, its own and all earlier ones, as the
// poststop finisher's last reader saw every dead task. A marker stands for
// the allocation's main task ended with that code until the server shows
// the task dead itself.
//
// The exit code is in the path, so one list call (metadata only, which
// every Variable read would cost per task) gives every end. The markers
// live as long as the attempt: whoever records the verdict with the right
// to destroy Variables (run's watcher, the controller) deletes them with
// the topology snapshot, and so does the next submit of the job ID.

// endsFit reports whether the markers of job jobID are valid Variable
// paths for any allocation ID (36 characters) and exit code.
func endsFit(jobID string) bool {
	return validVariablePath.MatchString(endPath(jobID, strings.Repeat("0", 36), -2147483648))
}

// endMark is one marker: the exit code and when it was written.
type endMark struct {
	code int
	at   time.Time
}

// writeEnd writes allocation alloc's marker.
func writeEnd(ctx context.Context, c *api.Client, jobID, alloc string, code int) error {
	v := &api.Variable{Path: endPath(jobID, alloc, code), Items: api.VariableItems{"exitCode": strconv.Itoa(code)}}
	if _, _, err := c.Variables().Create(v, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		return fmt.Errorf("writing the end marker %s: %w", v.Path, unavailable(err))
	}
	return nil
}

// readEnds lists job jobID's markers by allocation ID.
func readEnds(ctx context.Context, c *api.Client, jobID string) (map[string]endMark, error) {
	prefix := endsPrefix(jobID)
	list, _, err := c.Variables().PrefixList(prefix, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("listing the end markers %s: %w", prefix, unavailable(err))
	}
	return parseEnds(prefix, list), nil
}

// parseEnds reads the markers of a list under prefix; a path that is not
// <prefix><alloc>/<code> is not one.
func parseEnds(prefix string, list []*api.VariableMetadata) map[string]endMark {
	out := map[string]endMark{}
	for _, m := range list {
		alloc, code, ok := strings.Cut(strings.TrimPrefix(m.Path, prefix), "/")
		n, err := strconv.Atoi(code)
		if !ok || err != nil || alloc == "" || !strings.HasPrefix(m.Path, prefix) {
			continue
		}
		out[alloc] = endMark{code: n, at: time.Unix(0, m.CreateTime)}
	}
	return out
}

// deleteEnds deletes job jobID's markers (best effort: a marker left
// behind names an allocation no later attempt has).
func deleteEnds(ctx context.Context, c *api.Client, jobID string) error {
	ends, err := readEnds(ctx, c, jobID)
	if err != nil {
		return err
	}
	for alloc, m := range ends {
		path := endPath(jobID, alloc, m.code)
		if _, err := c.Variables().Delete(path, (&api.WriteOptions{}).WithContext(ctx)); err != nil && !strings.Contains(err.Error(), "404") {
			return fmt.Errorf("deleting the end marker %s: %w", path, unavailable(err))
		}
	}
	return nil
}

// withEnds is obs as it will be once every marked task's end has
// reached the server: a task of an allocation with a marker that obs does
// not show ended has ended with the marker's code at its time, which is
// the task's own end (a stopped task's wrapper writes no marker). obs is
// not changed.
func withEnds(obs []observed, ends map[string]endMark) []observed {
	out := make([]observed, len(obs))
	for i, o := range obs {
		out[i] = o
		m, ok := ends[o.AllocID]
		if !ok || o.State.Terminal() {
			continue
		}
		// a marker written before the task started is not its end (left
		// by an earlier job of the ID, or forged by a writer of the
		// namespace): the server's own state decides that task
		if !o.Started.IsZero() && m.at.Before(o.Started) {
			continue
		}
		out[i] = endedAt(o, m, "jobshift end marker")
	}
	return out
}

// endedAt is o ended by itself with marker m's code at its time.
func endedAt(o observed, m endMark, why string) observed {
	o.State, o.ExitCode, o.Seq = completion.Succeeded, m.code, m.at.UnixNano()
	if m.code != 0 {
		o.State = completion.Failed
	}
	o.Message = fmt.Sprintf("Exit Code: %d (%s)", m.code, why)
	return o
}

// ownEnds is obs with each task that a stop reached after its command had
// ended by itself shown as that end. The in-task finisher (FinishEnded)
// runs in the main task once the command has ended, and writes the
// allocation's marker first; when its verdict stops the job, Nomad kills
// the finisher, so the task's events read Killing, Terminated (the
// finisher's exit), Killed, and observe calls it stopped, though its
// command had ended with the marker's code before the kill. A marker
// written after the kill began, or before the task started, is not such
// an end. obs is not changed.
func ownEnds(obs []observed, ends map[string]endMark) []observed {
	out := make([]observed, len(obs))
	for i, o := range obs {
		out[i] = o
		m, ok := ends[o.AllocID]
		if !ok || o.State != completion.Stopped || o.Killed.IsZero() || !m.at.Before(o.Killed) || !o.Started.IsZero() && m.at.Before(o.Started) {
			continue
		}
		out[i] = endedAt(o, m, "jobshift end marker, written before the job was stopped")
	}
	return out
}

// The markers outlive their deletion in the verdict: the watcher that
// sees the verdict deletes them, and a task the verdict's stop killed
// after its command had ended by itself would then read as stopped to
// every later status (ownEnds needs its marker). So a judge keeps, in
// the verdict's item "ends", the markers of the tasks the server did not
// yet show ended when it judged (the judging task itself among them):
// those are the only ones a stop can still reach, so the item stays as
// small as the tasks that ended together, not the job.

// unseenEnds is the part of ends whose task obs does not show ended.
func unseenEnds(obs []observed, ends map[string]endMark) map[string]endMark {
	out := map[string]endMark{}
	for _, o := range obs {
		if m, ok := ends[o.AllocID]; ok && !o.State.Terminal() {
			out[o.AllocID] = m
		}
	}
	return out
}

// formatEnds writes markers as the verdict's "ends" item:
// <alloc>:<exit code>:<marker CreateTime, unix ns>, comma-separated, in
// allocation order.
func formatEnds(ends map[string]endMark) string {
	allocs := make([]string, 0, len(ends))
	for a := range ends {
		allocs = append(allocs, a)
	}
	sort.Strings(allocs)
	parts := make([]string, len(allocs))
	for i, a := range allocs {
		parts[i] = fmt.Sprintf("%s:%d:%d", a, ends[a].code, ends[a].at.UnixNano())
	}
	return strings.Join(parts, ",")
}

// parseVerdictEnds reads a verdict's "ends" item; a part that is not
// <alloc>:<code>:<ns> is none.
func parseVerdictEnds(item string) map[string]endMark {
	out := map[string]endMark{}
	for _, p := range strings.Split(item, ",") {
		f := strings.Split(p, ":")
		if len(f) != 3 || f[0] == "" {
			continue
		}
		code, err1 := strconv.Atoi(f[1])
		at, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out[f[0]] = endMark{code: code, at: time.Unix(0, at)}
	}
	return out
}
