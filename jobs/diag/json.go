package diag

import (
	"encoding/json"
	"io"

	"github.com/hashicorp/hcl/v2"
)

// Report is the JSON form of a set of diagnostics, shaped like
// `terraform validate -json` so that tools that read one read the other.
type Report struct {
	Valid        bool         `json:"valid"`
	ErrorCount   int          `json:"error_count"`
	WarningCount int          `json:"warning_count"`
	Diagnostics  []Diagnostic `json:"diagnostics"`
}

// Diagnostic is one diagnostic in JSON.
type Diagnostic struct {
	Severity string `json:"severity"` // "error" or "warning"
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
	Range    *Range `json:"range,omitempty"`
}

// Range is a subject in JSON; lines and columns are 1-based, byte is the
// 0-based offset (0 when the reader only knew the line and column).
type Range struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// Pos is one end of a Range.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// NewReport converts diags (every one, in order). With src, byte offsets
// the readers did not record are computed from line and column.
func NewReport(diags hcl.Diagnostics, src Sources) Report {
	rep := Report{Diagnostics: From(diags, src)}
	rep.ErrorCount, rep.WarningCount = Counts(diags)
	rep.Valid = rep.ErrorCount == 0
	return rep
}

// From converts diags for JSON; never nil (an empty list encodes as []).
// A diagnostic without a file (a bad flag value) has no range; a range
// without an end is a point.
func From(diags hcl.Diagnostics, src Sources) []Diagnostic {
	out := make([]Diagnostic, 0, len(diags))
	files := newFileCache(src)
	for _, d := range diags {
		jd := Diagnostic{Severity: severity(d), Summary: d.Summary, Detail: d.Detail}
		if r := d.Subject; r != nil && r.Filename != "" {
			if f := files.get(r); f != nil {
				if _, _, ok := f.line(r.Start.Line); ok {
					rr := f.withBytes(*r)
					r = &rr
				}
			}
			jd.Range = &Range{Filename: r.Filename,
				Start: Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:   Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte}}
			if jd.Range.End.Line == 0 && jd.Range.Start.Line > 0 {
				jd.Range.End = jd.Range.Start
			}
		}
		out = append(out, jd)
	}
	return out
}

// Counts returns the number of errors and warnings.
func Counts(diags hcl.Diagnostics) (errs, warns int) {
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			warns++
		} else {
			errs++
		}
	}
	return errs, warns
}

// JSON writes diags as one Report document; src may be nil.
func JSON(w io.Writer, diags hcl.Diagnostics, src Sources) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(NewReport(diags, src))
}
