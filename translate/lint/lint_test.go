package lint_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/testcorpus"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/lint"
)

// lintFile reads path as jobshift validate does and returns the lint's
// diagnostics as "line:col summary | detail"; ok is false when the file
// does not read or translate (nothing to lint).
func lintFile(t *testing.T, path string, contracts []string) ([]string, bool) {
	t.Helper()
	job, diags := load.Load(path, jobs.ReadOptions{})
	if diags.HasErrors() {
		return nil, false
	}
	p, diags := translate.Build(job, nil, contracts, "tester")
	if diags.HasErrors() {
		return nil, false
	}
	var out []string
	for _, d := range lint.Contract(p.Job, p.Compiled().Contract, translate.Contracts) {
		out = append(out, fmt.Sprintf("%d:%d %s | %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
	}
	return out, true
}

// The cases of issue 42, written as users write them. Positions are the
// `$` of each reference in the files; the suggestions come from the
// platforms' rules (OpenPAI's role-name conversion, a 2-instance role has
// indexes 0 and 1, TF_CONFIG belongs to the tf contract, MASTER_ADDR to
// torch), not from the lint's output.
func TestLintFindsTheIssueCases(t *testing.T) {
	for file, want := range map[string][]string{
		"testdata/pai-v2-mistakes.yaml": {
			"15:50 Role name spelt as the runtime does not | $PAI_TASK_ROLE_ps_server_HOST_LIST … Did you mean $PAI_TASK_ROLE_psserver_HOST_LIST?",
			"21:24 Unknown platform variable | $PAI_TASK_ROLE_wroker_HOST_LIST … Did you mean $PAI_TASK_ROLE_worker_HOST_LIST?",
			"22:30 Variable of a contract the job does not use | $TF_CONFIG … -contract tf",
			"23:64 Task index out of range | $PAI_HOST_IP_worker_5 … $PAI_HOST_IP_worker_0 … $PAI_HOST_IP_worker_1",
		},
		"testdata/tfjob-master-addr.yaml": {
			"19:49 Variable of a contract the job does not use | $MASTER_ADDR … -contract torch",
		},
	} {
		got, ok := lintFile(t, file, nil)
		if !ok {
			t.Fatalf("%s does not read", file)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d warnings, want %d:\n%s", file, len(got), len(want), strings.Join(got, "\n"))
			continue
		}
		for i, w := range want {
			head, rest, _ := strings.Cut(w, " | ")
			if !strings.HasPrefix(got[i], head+" | ") {
				t.Errorf("%s: warning %d = %q, want it to start %q", file, i, got[i], head)
			}
			for _, part := range strings.Split(rest, " … ") {
				if !strings.Contains(got[i], part) {
					t.Errorf("%s: warning %d = %q lacks %q", file, i, got[i], part)
				}
			}
		}
	}
}

// With the contract added, the TF_CONFIG reference is fine.
func TestLintContractAdded(t *testing.T) {
	got, _ := lintFile(t, "testdata/pai-v2-mistakes.yaml", []string{"pai", "tf"})
	for _, g := range got {
		if strings.Contains(g, "TF_CONFIG") {
			t.Errorf("with -contract tf: %s", g)
		}
	}
}

// No false warning: every example and every corpus file that reads is a
// real job whose authors ran it; the lint must not flag any of them.
func TestLintNoWarningOnRealJobs(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.json")
	yamls, _ := filepath.Glob("../../examples/*.yaml")
	files = append(files, yamls...)
	if dir := testcorpus.Path(); dir != "" {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(".json.yaml.yml", filepath.Ext(p)) && filepath.Ext(p) != "" {
				files = append(files, p)
			}
			return nil
		})
	} else {
		t.Log("corpus absent: examples only")
	}
	linted := 0
	for _, f := range files {
		got, ok := lintFile(t, f, nil)
		if ok {
			linted++
		}
		for _, g := range got {
			t.Errorf("%s:%s", f, g)
		}
	}
	if linted < len(yamls) {
		t.Fatalf("only %d of %d files read: the examples must", linted, len(files))
	}
	t.Logf("%d of %d files linted", linted, len(files))
}

// What a script defines itself, reads with a default or through
// indirection, or keeps in single quotes is no missing variable.
func TestLintShellForms(t *testing.T) {
	job := `{"jobName": "forms", "image": "ubuntu", "taskRoles": [{"name": "worker", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512,
  "command": "export PAI_MINE=1; for PAI_I in a b; do echo $PAI_I; done; read PAI_IN < /dev/null; echo $PAI_MINE ${PAI_OPT:-none} ${!PAI_REF} '$PAI_QUOTED' $PAI_TYPO_X"}]}`
	dir := t.TempDir()
	f := filepath.Join(dir, "forms.json")
	if err := writeFile(f, job); err != nil {
		t.Fatal(err)
	}
	got, ok := lintFile(t, f, nil)
	if !ok || len(got) != 1 || !strings.Contains(got[0], "$PAI_TYPO_X") || !strings.HasPrefix(got[0], "2:157 ") {
		t.Errorf("want one warning, for $PAI_TYPO_X at 2:157; got %q", got)
	}
}
