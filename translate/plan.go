package translate

import (
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// Plan is a job ready for a driver: the job and every target-independent
// decision about it.
type Plan struct {
	Job *jobs.Job
	// Contracts to render, in order (the job's defaults, or -contract).
	Contracts []string
	// User is the submitting user (PAI's <user>~<job> naming); default $USER.
	User string
	// Site is the site config (never nil; zero value = defaults).
	Site *siteconfig.Config
	// Options are driver-specific choices from the command line
	// (e.g. "layout" = "packed" for Slurm), already validated by the driver.
	Options map[string]string

	compiled *Compiled // see Compiled
}
