package matrix

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/conversion-matrix.md from the code")

var docPath = filepath.Join("..", "..", "docs", "conversion-matrix.md")

// TestMatrixUpToDate: the committed matrix is what the code does now
// (go generate ./internal/matrix rewrites it; review the diff).
func TestMatrixUpToDate(t *testing.T) {
	rows, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got := Markdown(rows)
	if *update {
		if err := os.MkdirAll(filepath.Dir(docPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(docPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("%v (run go generate ./internal/matrix)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s no longer matches the code; run go generate ./internal/matrix and review (-committed +code):\n%s", docPath, d)
	}
}

// TestProbesValid: every probe changes the document it is applied to (a
// path typo would silently probe nothing) and the base jobs convert.
func TestProbesValid(t *testing.T) {
	for _, f := range formats {
		base, err := f.encode(f.base())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range f.probes {
			doc := f.base()
			set(doc, p.path, p.value)
			src, _ := f.encode(doc)
			if string(src) == string(base) {
				t.Errorf("%s: probe %s changes nothing", f.name, p.field)
			}
		}
	}
}
