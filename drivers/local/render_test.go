package local

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// seqPorts hands out 30000, 30001, ...: deterministic plans for goldens.
type seqPorts struct{ next int }

func (s *seqPorts) Free(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		out[i] = s.next
		s.next++
	}
	return out, nil
}
func (s *seqPorts) Release() {}

// loadPlan reads an example job the way the CLI does.
func loadPlan(t *testing.T, path string, contracts ...string) *translate.Plan {
	t.Helper()
	job, diags := load.Load(path, jobs.ReadOptions{Path: filepath.Base(path)})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	plan, diags := translate.Build(job, nil, contracts, "alice")
	if diags.HasErrors() {
		t.Fatalf("plan %s: %v", path, diags)
	}
	return plan
}

func TestRenderGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		file     string
		docker   bool
		path     string   // a job outside examples/
		contract []string // -contract values
	}{
		"pai-v1-ps-worker":  {file: "pai-v1-ps-worker.json"},
		"pai-v2-ddp":        {file: "pai-v2-ddp.yaml"},
		"tfjob-mesh":        {file: "tfjob-mesh.yaml"},
		"pytorchjob-ddp":    {file: "pytorchjob-ddp.yaml"},
		"trainjob-torch":    {file: "trainjob-torch.yaml"},
		"trainjob-mpi":      {file: "trainjob-mpi.yaml"},
		"pai-v2-ddp-docker": {file: "pai-v2-ddp.yaml", docker: true},
		"tfjob-mesh-docker": {file: "tfjob-mesh.yaml", docker: true},
		// the other training-operator kinds: each task's operator variables
		"xgboostjob-iris":      {file: "xgboostjob-iris.yaml"},
		"paddlejob-collective": {file: "paddlejob-collective.yaml"},
		"jaxjob-coordinator":   {file: "jaxjob-coordinator.yaml"},
		"mxjob-ps":             {file: "mxjob-ps.yaml"},
		// every task shows its parameter-server process too
		"uai-probe": {path: filepath.Join("testdata", "uai", "uai-probe.json"), contract: []string{"=uai"}},
	} {
		t.Run(name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = filepath.Join("..", "..", "examples", tc.file)
			}
			plan := loadPlan(t, path, tc.contract...)
			d, err := New(Options{RunDir: "/runs/r1", Dir: "/work", Docker: tc.docker, Env: []string{"PATH=/nonexistent"},
				ports: func(string) portSource { return &seqPorts{next: 30000} }})
			if err != nil {
				t.Fatal(err)
			}
			art, err := d.Render(context.Background(), plan)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			got := string(art.Files[0].Data)
			golden := filepath.Join("testdata", "render", name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
			if _, err := os.Stat("/runs/r1"); err == nil || !strings.HasPrefix(art.MediaType, "text/plain") {
				t.Errorf("Render must not create the run directory, and is text/plain (got %q)", art.MediaType)
			}
		})
	}
}

// Every corpus job either renders or fails with an error, never a panic;
// the errors are the documented ones (no entrypoint, Leinao, fixed ports).
func TestRenderCorpus(t *testing.T) {
	dir := corpus(t, "")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	rendered, refused := 0, map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, ".md") {
			continue
		}
		job, diags := load.Load(f, jobs.ReadOptions{Path: filepath.Base(f), Lossy: true})
		if job == nil || diags.HasErrors() {
			continue
		}
		plan, diags := translate.Build(job, nil, nil, "alice")
		if diags.HasErrors() {
			continue
		}
		d, _ := New(Options{RunDir: "/runs/r1", Dir: "/work", ports: func(string) portSource { return &seqPorts{next: 30000} }})
		art, err := d.Render(context.Background(), plan)
		if err == nil && len(art.Files) == 1 && len(art.Files[0].Data) > 0 {
			rendered++
			continue
		}
		known := false
		for _, want := range []error{ErrNoEntrypoint, ErrLeinaoLocal, ErrPortConflict, ErrUnsupportedContract} {
			if errors.Is(err, want) {
				refused[want.Error()]++
				known = true
				break
			}
		}
		if !known {
			t.Errorf("%s: Render = %v", filepath.Base(f), err)
		}
	}
	t.Logf("rendered %d corpus jobs; refused: %v", rendered, refused)
	if rendered == 0 {
		t.Error("no corpus job rendered")
	}
}
