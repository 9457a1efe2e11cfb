package drivertest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// VolcanoWant is the outcome a Volcano policy job of examples/testdata
// (volcano-policy-*.yaml) declares in its "# want:" comment line, written
// by hand from upstream's rule that the file's comment cites:
//
//	# want: phase=failed exit=5 attempts=1 runs=2 stopped=ps-0,ps-1
//
// Runs ("" = not checked) is what the tasks wrote to $VC_RUNS/count, the
// number of times the counting task started; Stopped lists the tasks
// (role-index) the job's end must have stopped.
type VolcanoWant struct {
	File     string // base name
	Phase    string
	Exit     int
	Attempts int
	Runs     string
	Stopped  []string
}

// VolcanoWants reads the want line of every volcano-policy-*.yaml in dir.
// A file without one, or with a field the test does not know, fails the
// test: a row that checks nothing must not pass silently.
func VolcanoWants(t *testing.T, dir string) []VolcanoWant {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "volcano-policy-*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no volcano-policy-*.yaml in %s (%v)", dir, err)
	}
	var out []VolcanoWant
	for _, f := range files {
		out = append(out, volcanoWant(t, f))
	}
	return out
}

func volcanoWant(t *testing.T, file string) VolcanoWant {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	w := VolcanoWant{File: filepath.Base(file), Exit: -1}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "# want:")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			n, nerr := strconv.Atoi(v)
			switch {
			case k == "phase":
				w.Phase = v
			case k == "runs":
				w.Runs = v
			case k == "stopped":
				w.Stopped = strings.Split(v, ",")
			case k == "exit" && nerr == nil:
				w.Exit = n
			case k == "attempts" && nerr == nil:
				w.Attempts = n
			default:
				t.Fatalf("%s: want field %q", file, kv)
			}
		}
	}
	if w.Phase == "" || w.Exit < 0 || w.Attempts == 0 {
		t.Fatalf("%s: no complete '# want: phase=... exit=... attempts=...' line", file)
	}
	return w
}
