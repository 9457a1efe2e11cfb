package jobs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Pos is a position in a source file. Line and Col are 1-based; the zero Pos
// means "no position" (a value that came from a default, not from the file).
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// IsZero reports whether p carries no position.
func (p Pos) IsZero() bool { return p.Line == 0 }

func (p Pos) String() string {
	if p.IsZero() {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Range turns p into an hcl.Range so that diagnostics can be hcl.Diagnostics,
// the one diagnostics type used across jobshift.
func (p Pos) Range() *hcl.Range {
	if p.File == "" && p.IsZero() {
		return nil
	}
	start := hcl.Pos{Line: p.Line, Column: p.Col}
	end := hcl.Pos{Line: p.Line, Column: p.Col + 1}
	return &hcl.Range{Filename: p.File, Start: start, End: end}
}

// Errorf builds an error diagnostic at p.
func Errorf(p Pos, summary, detailFormat string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detailFormat, args...), Subject: p.Range()}
}

// Warnf builds a warning diagnostic at p.
func Warnf(p Pos, summary, detailFormat string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(detailFormat, args...), Subject: p.Range()}
}
