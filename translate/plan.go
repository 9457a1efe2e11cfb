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

	resolved bool // made by Build: Contracts is exact

	mu       sync.Mutex
	compiled *Compiled // see Compiled
	sum      fingerprint
}
