package completion

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMachineReplayIsDecide: the machine replays only the new ends of each
// event (machine_inc.go); its verdict must be the one Decide gives on the
// machine's tasks right then, which is what the machine computed before it
// kept any state. Random jobs get random event streams that also take the
// slow paths: snapshots of several ends (ObserveAll), a driver's Seq out of
// order, a task reported Running again after it ended, a second end of the
// same task. Checked after every call: no verdict while Decide says the
// attempt runs, and the same phase, exit code, reason and trigger once it
// is in.
func TestMachineReplayIsDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(seedFor(t, 2026), 77))
	paths := map[string]int{}
	for iter := 0; iter < 3000; iter++ {
		job := randomJob(r)
		m := NewMachine(PolicyOf(job), MachineConfig{Start: t0, RestartInPlace: r.IntN(3) == 0,
			Backoff: Backoff{Initial: time.Second, Max: 4 * time.Second}})
		now, seq := t0, int64(0)
		var log []string
		for step := 0; step < 60 && !m.ending(); step++ {
			now = now.Add(time.Duration(r.IntN(2000)) * time.Millisecond)
			var batch []TaskEvent
			for n := 1 + r.IntN(3); n > 0 && len(m.order) > 0; n-- {
				ref := m.order[r.IntN(len(m.order))]
				e := TaskEvent{TaskRef: ref, Time: now, State: []State{Running, Succeeded, Failed, Failed, Stopped}[r.IntN(5)]}
				if e.State == Failed {
					e.ExitCode = []int{1, 2, 137, 143}[r.IntN(4)]
				}
				if e.State.Terminal() && r.IntN(2) == 0 {
					// a driver's own order: mostly growing, sometimes not
					seq += int64(r.IntN(5)) - 1
					e.Seq = seq
					if e.Seq < 1 {
						e.Seq, seq = 1, 1
					}
				}
				batch = append(batch, e)
			}
			log = append(log, fmt.Sprint(batch))
			if len(batch) == 1 {
				paths["observe"]++
				m.Observe(batch[0])
			} else {
				paths["snapshot"]++
				m.ObserveAll(batch)
			}
			m.Tick(now)
			if m.rp.a == nil {
				paths["rebuilt"]++
			} else {
				paths["incremental"]++
			}
			if m.user || m.dlDone {
				break
			}
			want := Decide(m.job, m.Tasks())
			got, ok := m.Verdict()
			if !ok {
				if want.Phase.Done() && !m.ending() {
					t.Fatalf("iter %d: no verdict, Decide says %+v\n%v", iter, want, log)
				}
				continue
			}
			got.Stop, got.Keep, want.Stop, want.Keep = nil, nil, nil, nil
			if got.Phase == PhaseStopped {
				break // stopped from outside: UserStopped, not Decide
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("iter %d: verdict differs from Decide (-Decide +machine):\n%s\n%v", iter, d, log)
			}
			paths["verdict"]++
		}
	}
	for _, p := range []string{"observe", "snapshot", "rebuilt", "incremental", "verdict"} {
		if paths[p] == 0 {
			t.Errorf("no random run took the %s path", p)
		}
	}
	t.Logf("paths: %v", paths)
}
