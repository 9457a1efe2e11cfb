package translate

import (
	"sync"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// Plan is a job ready for a driver: the job and every target-independent
// decision about it.
//
// A Plan is not copied by value (it holds the lock of its compiled part).
type Plan struct {
	Job *jobs.Job
	// Contracts to render, in order (the job's defaults, or -contract).
	// In a plan made by Build the list is exact: empty means no contract
	// (-contract =); in a plan put together by hand empty means the job's
	// defaults.
	Contracts []string
	// User is the submitting user (PAI's <user>~<job> naming); default $USER.
	User string
	// Site is the site config (never nil; zero value = defaults).
	Site *siteconfig.Config
	// Options are driver-specific choices from the command line
	// (e.g. "layout" = "packed" for Slurm), already validated by the driver.
	Options map[string]string

	resolved bool // made by Build (or received as such): Contracts is exact

	mu       sync.Mutex
	compiled *Compiled // see Compiled
	sum      fingerprint
	held     int // Hold: Compiled is kept as it is
}

// ContractsExact: Contracts is the whole list even when empty (a plan made
// by Build, where `-contract =` asked for none), not "the job's defaults".
func (p *Plan) ContractsExact() bool { return p.resolved }

// SetContractsExact marks a plan rebuilt from its wire form as Build's
// (plugin hosts): without it an empty Contracts falls back to the job's
// defaults, and `-contract =` would render them anyway.
func (p *Plan) SetContractsExact() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resolved, p.compiled = true, nil
}
