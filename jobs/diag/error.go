package diag

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Error carries diagnostics through APIs that return error (the Driver
// interface, the contract oracle). errors.Is matches Kind, a package's
// sentinel (slurm.ErrJob, contract.ErrTopology, ...); errors.As with a
// *hcl.Diagnostics target finds the diagnostics, every one of them.
type Error struct {
	Kind  error
	Diags hcl.Diagnostics
}

// Errors wraps diags (nil when they hold no error) so a function returning
// error can return them; kind may be nil.
func Errors(kind error, diags hcl.Diagnostics) error {
	if !diags.HasErrors() {
		return nil
	}
	return &Error{Kind: kind, Diags: diags}
}

// Error is the diagnostics on one line each, joined by "; ": for logs and
// wrapped errors. Users see them through Text.
func (e *Error) Error() string {
	var b strings.Builder
	for i, d := range e.Diags {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(OneLine(d))
	}
	return b.String()
}

// Unwrap gives errors.Is the kind and errors.As the diagnostics. Diags
// come first: errors.As stops at the first match, and a Kind may itself
// wrap errors with fewer diagnostics (a driver merging refusals).
func (e *Error) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Diags}
	}
	return []error{e.Diags, e.Kind}
}

// Of returns the diagnostics err carries (an *Error, a bare
// hcl.Diagnostics, or either wrapped), and whether it carries any.
func Of(err error) (hcl.Diagnostics, bool) {
	var diags hcl.Diagnostics
	if errors.As(err, &diags) && len(diags) > 0 {
		return diags, true
	}
	return nil, false
}

// OneLine is d as `file:line:col: summary: detail` (the position only when
// d has one).
func OneLine(d *hcl.Diagnostic) string {
	s := Where(d.Subject) + d.Summary
	if d.Detail != "" {
		s += ": " + d.Detail
	}
	return s
}

// Where is the `file:line:col: ` prefix of a subject: `file: ` when it has
// no line, "" when it has no file.
func Where(r *hcl.Range) string {
	switch {
	case r == nil || r.Filename == "":
		return ""
	case r.Start.Line <= 0:
		return r.Filename + ": "
	}
	return fmt.Sprintf("%s:%d:%d: ", r.Filename, r.Start.Line, r.Start.Column)
}
