package completion

import (
	"flag"
	"fmt"
	"github.com/jobshift/jobshift/internal/testcorpus"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus.golden")

// profile is what the engine makes of one real job: its rules as read, and
// three scripted runs.
//   - succeed: every task exits 0, in file order (role order, then index);
//   - fail: the first task of the last role exits 1 first, all others run;
//   - the retry/restart answers for that failure.
func profile(job *jobs.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind=%s deciding=%v cleanPodPolicy=%q backoffLimit=%s retry=%d gang=%v\n",
		KindOf(job), DecidingRoles(job), job.Retry.CleanPodPolicy, intp(job.Retry.BackoffLimit),
		job.Retry.JobRetryCount, job.Retry.GangAllocation)
	for _, r := range job.Roles {
		fmt.Fprintf(&b, "  role %s type=%q n=%d minFailed=%s minSucceeded=%s policy=%s taskRetry=%d\n",
			r.Name, r.ReplicaType, r.Instances, intp(r.MinFailed), intp(r.MinSucceeded), RestartPolicyOf(job, r), r.TaskRetryCount)
	}
	var all []Task
	for _, r := range job.Roles {
		for i := 0; i < r.Instances; i++ {
			all = append(all, Task{TaskRef: ref(r.Name, i), State: Running})
		}
	}
	// succeed: end tasks one by one; report the first final verdict.
	tasks := append([]Task(nil), all...)
	for i := range tasks {
		tasks[i].State, tasks[i].Seq = Succeeded, int64(i+1)
		if v := Decide(job, tasks); v.Phase.Done() {
			fmt.Fprintf(&b, "  succeed: after %d of %d: %s\n", i+1, len(tasks), verdictLine(v))
			break
		} else if i == len(tasks)-1 {
			fmt.Fprintf(&b, "  succeed: never final: %s\n", verdictLine(v))
		}
	}
	if len(job.Roles) > 0 && job.Roles[len(job.Roles)-1].Instances > 0 {
		last := job.Roles[len(job.Roles)-1].Name
		tasks = append([]Task(nil), all...)
		for i := range tasks {
			if tasks[i].TaskRef == ref(last, 0) {
				tasks[i].State, tasks[i].ExitCode, tasks[i].Seq = Failed, 1, 1
			}
		}
		v := Decide(job, tasks)
		fmt.Fprintf(&b, "  fail %s-0 exit 1: %s\n", last, verdictLine(v))
		rd := TaskRestartDecision(job, last, 1, 0)
		fmt.Fprintf(&b, "    restart in place: %v (%s)\n", rd.Retry, rd.Reason)
		if v.Phase.Done() {
			jr := JobRetry(job, v, 0)
			fmt.Fprintf(&b, "    job retry: %v counted=%v (%s)\n", jr.Retry, jr.Counted, jr.Reason)
		}
	}
	return b.String()
}

func intp(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func verdictLine(v Verdict) string {
	trig := "-"
	if v.Trigger != nil {
		trig = fmt.Sprintf("%s-%d", v.Trigger.Role, v.Trigger.Index)
	}
	refs := func(rs []TaskRef) string {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprintf("%s-%d", r.Role, r.Index))
		}
		return strings.Join(s, ",")
	}
	return fmt.Sprintf("%s exit=%d trigger=%s stop=[%s] keep=[%s] %q", v.Phase, v.ExitCode, trig, refs(v.Stop), refs(v.Keep), v.Reason)
}

// TestCorpusGolden runs every readable job of the shared corpus through
// profile and compares with testdata/corpus.golden (go test -update
// rewrites it; review the diff against README.md's rules before committing).
func TestCorpusGolden(t *testing.T) {
	root := testcorpus.Dir(t)
	if root == "" {
		t.Skip("corpus not found at <repo root>/../shared/corpus")
	}
	var rels []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Dir(p) != root {
			rel, _ := filepath.Rel(root, p)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rels)
	var b strings.Builder
	for _, rel := range rels {
		job, diags := load.Load(filepath.Join(root, rel), jobs.ReadOptions{})
		if diags.HasErrors() || job == nil {
			continue // the readers' tests cover unreadable files
		}
		fmt.Fprintf(&b, "== %s\n%s", rel, profile(job))
	}
	got := b.String()
	golden := filepath.Join("testdata", "corpus.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("corpus profiles changed (-golden +now); if intended, go test -update and review:\n%s", diff)
	}
}
