package diag

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// BenchmarkText: warnings on every 10th line of a large job file, each
// quoted with its source line.
func BenchmarkText(b *testing.B) {
	for _, lines := range []int{1000, 100000} {
		var src strings.Builder
		for i := range lines {
			fmt.Fprintf(&src, "  key%d: value number %d\n", i, i)
		}
		text := []byte(src.String())
		var diags hcl.Diagnostics
		for l := 1; l <= lines; l += 10 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Unknown field ignored", Subject: at("big.yaml", l, 3)})
		}
		srcs := sources(map[string][]byte{"big.yaml": text})
		b.Run(fmt.Sprintf("%dlines-%ddiags", lines, len(diags)), func(b *testing.B) {
			for b.Loop() {
				Text(io.Discard, diags, srcs)
			}
		})
	}
}
