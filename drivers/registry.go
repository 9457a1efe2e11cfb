package drivers

import (
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/siteconfig"
)

// Config is what a driver constructor gets. Everything job-specific travels
// in the translate.Plan instead; Config only carries what belongs to the
// process running jobshift.
type Config struct {
	// Site is the site config (never nil when built by the CLI).
	Site *siteconfig.Config
	// Options are driver flags from the command line (e.g. "grace" = "10s"
	// for local). Each driver documents and validates its own keys.
	Options map[string]string
	// Output receives task output a driver streams itself (local prints
	// every task's lines, prefixed); nil discards it.
	Output io.Writer
	// Warnings receives non-fatal notes (e.g. "images are not run"); nil
	// discards them.
	Warnings io.Writer
	// Warn, when set, receives the warnings as diagnostics instead of
	// Warnings (validate -to counts and prints them with the job's own).
	Warn func(hcl.Diagnostics)
}

// Report hands warnings to Warn, or writes them to Warnings (diag.Text,
// which quotes the job file's lines).
func (c Config) Report(ws hcl.Diagnostics) {
	switch {
	case len(ws) == 0:
	case c.Warn != nil:
		c.Warn(ws)
	case c.Warnings != nil:
		_ = diag.Text(c.Warnings, ws, nil)
	}
}

// Constructor builds a driver.
type Constructor func(Config) (Driver, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Constructor{}
)

// Register makes a built-in driver available under name. Driver packages call
// it from init(); the CLI and the plugin host look drivers up by name, so a
// binary contains exactly the drivers it imports. Registering a name twice
// is a programming error and panics at start-up, never later.
func Register(name string, c Constructor) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("drivers: %q registered twice", name))
	}
	registry[name] = c
}

// Lookup returns the constructor registered under name.
func Lookup(name string) (Constructor, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	c, ok := registry[name]
	return c, ok
}

// External, when set, is asked for drivers that are not built in. The CLI
// sets it to package plugin's loader of jobshift-driver-<name> executables
// (drivers cannot import plugin: plugin imports drivers).
var External func(name string, cfg Config) (Driver, error)

// New builds the driver registered under name. An unknown name yields an
// error wrapping ErrUnavailable that lists the known drivers.
func New(name string, cfg Config) (Driver, error) {
	c, ok := Lookup(name)
	if !ok && External != nil {
		return External(name, cfg)
	}
	if !ok {
		return nil, fmt.Errorf("driver %q is not available (built-in drivers: %v): %w", name, Names(), ErrUnavailable)
	}
	return c(cfg)
}

// Names lists the registered drivers, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
