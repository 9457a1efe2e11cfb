package diag

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// Collector gathers a reader's diagnostics. Lossyf is the -lossy rule in
// one place and one wording for every reader: content jobshift cannot
// carry and whose loss changes what the job does is an error, or a
// warning when the user chose -lossy.
type Collector struct {
	Lossy bool // jobs.ReadOptions.Lossy
	Diags hcl.Diagnostics
}

// Errorf records an error at p.
func (c *Collector) Errorf(p jobs.Pos, summary, format string, args ...any) {
	c.Diags = append(c.Diags, jobs.Errorf(p, summary, format, args...))
}

// Warnf records a warning at p.
func (c *Collector) Warnf(p jobs.Pos, summary, format string, args ...any) {
	c.Diags = append(c.Diags, jobs.Warnf(p, summary, format, args...))
}

// Lossy wording, appended to the detail.
const (
	LossyError   = " Re-run with -lossy to convert the job without it."
	LossyWarning = " (accepted because of -lossy)"
)

// Lossyf records an error at p, or a warning with -lossy.
func (c *Collector) Lossyf(p jobs.Pos, summary, format string, args ...any) {
	if c.Lossy {
		c.Warnf(p, summary, format+LossyWarning, args...)
		return
	}
	c.Errorf(p, summary, format+LossyError, args...)
}
