package faults_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// record is one process of one task, from the record file testdata/task.sh
// wrote (one file per process: an in-place restart is a new file).
type record struct {
	task    string // role-index
	host    string
	pid     int
	attempt int
	job     string
	start   time.Time
	end     time.Time // the end line, or the file's last heartbeat (SIGKILLed, host lost)
	ended   bool      // the task wrote its end line itself
	rc      int
	term    string // TERM or INT when a stop signal reached it
	termAt  time.Time
	ckpt    bool // it finished its checkpoint after the signal
}

func (r record) String() string {
	return fmt.Sprintf("%s on %s pid %d attempt %d [%s .. %s] rc %d term %q",
		r.task, r.host, r.pid, r.attempt, r.start.Format("15:04:05.000"), r.end.Format("15:04:05.000"), r.rc, r.term)
}

func ns(s string) time.Time {
	n, _ := strconv.ParseInt(s, 10, 64)
	return time.Unix(0, n)
}

// readRecords reads every record file of dir, ordered by start.
func readRecords(t *testing.T, dir string) []record {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*-*.*.*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		r := record{task: strings.SplitN(filepath.Base(f), ".", 2)[0], end: st.ModTime(), rc: -1}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			x := strings.Fields(sc.Text())
			switch {
			case len(x) >= 5 && x[0] == "start":
				r.start, r.host = ns(x[1]), x[2]
				r.pid, _ = strconv.Atoi(x[3])
				r.attempt, _ = strconv.Atoi(x[4])
				if len(x) > 5 {
					r.job = x[5]
				}
			case len(x) == 3 && x[0] == "term":
				r.term, r.termAt = x[2], ns(x[1])
			case len(x) == 2 && x[0] == "ckpt":
				r.ckpt = true
			case len(x) == 3 && x[0] == "end":
				r.end, r.ended = ns(x[1]), true
				r.rc, _ = strconv.Atoi(x[2])
			}
		}
		fh.Close()
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

// attempts groups records by attempt.
func attempts(recs []record) map[int][]record {
	m := map[int][]record{}
	for _, r := range recs {
		m[r.attempt] = append(m[r.attempt], r)
	}
	return m
}

// checkNoOverlap: no attempt overlapped another (every process of attempt
// a+1 started after every process of attempt a had ended), and no two
// processes of one task overlapped (in-place restarts: at most one instance
// of a task at any time, FrameworkController's promise).
func checkNoOverlap(t *testing.T, recs []record) {
	t.Helper()
	byAttempt := attempts(recs)
	var nums []int
	for a := range byAttempt {
		nums = append(nums, a)
	}
	sort.Ints(nums)
	for k := 1; k < len(nums); k++ {
		for _, old := range byAttempt[nums[k-1]] {
			for _, nw := range byAttempt[nums[k]] {
				if !nw.start.After(old.end) {
					t.Errorf("attempts overlapped: %v started before %v ended", nw, old)
				}
			}
		}
	}
	byTask := map[string][]record{}
	for _, r := range recs {
		byTask[r.task] = append(byTask[r.task], r)
	}
	for task, rs := range byTask {
		for i := 1; i < len(rs); i++ {
			if !rs[i].start.After(rs[i-1].end) {
				t.Errorf("two instances of %s at once: %v and %v", task, rs[i-1], rs[i])
			}
		}
	}
}

// lastEnd is the latest end among recs.
func lastEnd(recs []record) time.Time {
	var last time.Time
	for _, r := range recs {
		if r.end.After(last) {
			last = r.end
		}
	}
	return last
}

// checkNoProcess: no process whose command line names the case's record
// directory is left on any host (the hosts are network namespaces of this
// machine, so /proc sees every host's tasks), waiting up to 15 s for
// processes being stopped.
func checkNoProcess(t *testing.T, dir string) {
	t.Helper()
	var left []string
	for try := 0; try < 30; try++ {
		left = left[:0]
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), dir) {
				continue
			}
			left = append(left, filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Errorf("processes of the job still running on the hosts:\n%s", strings.Join(left, "\n"))
}
