// Package local runs a translated job on this machine: every task is a
// process (or, with -docker, a container) on loopback, with the full
// environment contract of its source platform, supervised until the
// completion rules of that platform end the job.
package local

import (
	"context"
	"errors"
	"fmt"
	"github.com/jobshift/jobshift/drivers/taskns"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// Name is the driver's name for -to.
const Name = "local"

// DefaultGrace is how long a stopped task gets between SIGTERM and SIGKILL
// (Kubernetes' default terminationGracePeriodSeconds is 30s; a tried job
// should end faster, and the flag changes it).
const DefaultGrace = 10 * time.Second

// Options configure the local driver.
type Options struct {
	// RunDir is the run directory; "" = ./.jobshift/runs/<job>-<timestamp>
	// (relative to Dir).
	RunDir string
	// Dir is the working directory of the tasks; "" = jobshift's current
	// directory (the stand-in for the image WORKDIR that held the job's code).
	Dir string
	// Grace is the time between SIGTERM and SIGKILL when a task is stopped.
	Grace time.Duration
	// Docker runs each task in its image (docker run --network host).
	Docker bool
	// Env is the base environment of every task; nil = jobshift's own.
	Env []string
	// Output receives every task's output, each line prefixed "[role-i] ";
	// nil discards it (the per-task files are always written).
	Output io.Writer
	// Warnings receives non-fatal notes; nil discards them.
	Warnings io.Writer

	// RestartBackoff is the wait before in-place restarts; zero = the
	// kubelet's (completion.KubeletBackoff), or the test-only scale in
	// $JOBSHIFT_TEST_RESTART_BACKOFF.
	RestartBackoff completion.Backoff

	// work forces the private-directory mode (tests); "" = probe.
	work workMode
	// taskns forces the task namespace mode (tests); "" = probe.
	taskns taskns.Mode

	// ports overrides the free-port source (tests); the argument is the
	// address to find ports on.
	ports func(host string) portSource
}

// Driver is the local driver. A Driver can run several jobs; each Submit
// gets its own run directory.
type Driver struct {
	opts  Options
	mu    sync.Mutex
	runs  map[string]*run
	modes map[string]workMode // per shared+run directory (workModeFor)
	// nsMode is how tasks get their platform view, nsWhy why not (viewMode).
	nsMode taskns.Mode
	nsWhy  error
}

// New returns a local driver.
func New(opts Options) (*Driver, error) {
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("local driver: current directory: %w", err)
		}
		opts.Dir = wd
	}
	if opts.Output == nil {
		opts.Output = io.Discard
	}
	if opts.Warnings == nil {
		opts.Warnings = io.Discard
	}
	if opts.RestartBackoff == (completion.Backoff{}) {
		b, err := completion.ParseBackoff(os.Getenv(completion.BackoffEnv))
		if err != nil {
			return nil, fmt.Errorf("local driver: %w", err)
		}
		opts.RestartBackoff = b
	}
	if opts.ports == nil {
		opts.ports = func(host string) portSource { return &bandPorts{host: host} }
	}
	return &Driver{opts: opts, runs: map[string]*run{}}, nil
}

// Option keys accepted through drivers.Config.Options.
const (
	OptRunDir = "run-dir" // directory
	OptGrace  = "grace"   // Go duration, e.g. 10s
	OptDocker = "docker"  // true/false
	OptDir    = "dir"     // working directory of the tasks
)

func init() {
	drivers.Register(Name, func(c drivers.Config) (drivers.Driver, error) {
		o := Options{Output: c.Output, Warnings: c.Warnings, RunDir: c.Options[OptRunDir], Dir: c.Options[OptDir]}
		if g := c.Options[OptGrace]; g != "" {
			d, err := time.ParseDuration(g)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("local driver: -grace %q: want a duration like 10s", g)
			}
			o.Grace = d
		}
		if v := c.Options[OptDocker]; v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("local driver: -docker %q: want true or false", v)
			}
			o.Docker = b
		}
		return New(o)
	})
}

// Name implements drivers.Driver.
func (d *Driver) Name() string { return Name }

// runDir picks the run directory of a new run.
func (d *Driver) runDir(jobName string, now time.Time) string {
	dir := d.opts.RunDir
	if dir == "" {
		dir = filepath.Join(".jobshift", "runs", fmt.Sprintf("%s-%s", pathPart(jobName), now.UTC().Format("20060102T150405.000")))
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(d.opts.Dir, dir)
	}
	return dir
}

func (d *Driver) lookup(h drivers.Handle) (*run, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.runs[h.ID]
	if !ok || h.Driver != Name {
		return nil, fmt.Errorf("local run %q: %w (local runs exist only inside the jobshift process that started them)",
			h.ID, drivers.ErrNotFound)
	}
	return r, nil
}

// Submit implements drivers.Driver: it prepares the run directory and starts
// the job in the background; the job runs as long as this process does.
func (d *Driver) Submit(ctx context.Context, p *translate.Plan) (drivers.Handle, error) {
	if p == nil || p.Job == nil {
		return drivers.Handle{}, fmt.Errorf("local driver: no job")
	}
	if d.opts.Docker {
		if err := checkDocker(ctx); err != nil {
			return drivers.Handle{}, err
		}
	}
	dir := d.runDir(p.Job.Name, time.Now())
	// Everything that can be wrong with the job is found before anything
	// starts: the first attempt's specs are built (and thrown away) now.
	// (The specs' directories are computed again per attempt, under the
	// directory claimed below.)
	if _, err := d.prepare(p, dir, 0); err != nil {
		return drivers.Handle{}, err
	}
	d.warnImages(p)
	d.warnView(p)
	dir, err := claimRunDir(dir, d.opts.RunDir != "")
	if err != nil {
		return drivers.Handle{}, err
	}
	writeRunInfo(dir, p.Job.Name, p.User)
	r := newRun(d, p, dir)
	h := drivers.Handle{Driver: Name, ID: dir}
	d.mu.Lock()
	if _, dup := d.runs[dir]; dup {
		d.mu.Unlock()
		return drivers.Handle{}, fmt.Errorf("local driver: run directory %s is in use", dir)
	}
	d.runs[dir] = r
	d.mu.Unlock()
	go r.loop()
	return h, nil
}

// warnImages says once that images are not run, when the job names any.
func (d *Driver) warnImages(p *translate.Plan) {
	if d.opts.Docker {
		return
	}
	var withImage []string
	var at jobs.Pos
	for _, r := range p.Job.Roles {
		if r.Image != "" {
			withImage = append(withImage, r.Name)
			if at.IsZero() {
				at = r.ImagePos
			}
		}
	}
	if len(withImage) > 0 {
		diag.Text(d.opts.Warnings, hcl.Diagnostics{jobs.Warnf(at, "Images are not run",
			"The tasks of %v run on this machine with its own programs (use -docker to run each task in its image).", withImage)}, nil)
	}
}

// Watch implements drivers.Driver.
func (d *Driver) Watch(ctx context.Context, h drivers.Handle) (<-chan drivers.Event, error) {
	r, err := d.lookup(h)
	if err != nil {
		return nil, err
	}
	return r.events.subscribe(ctx), nil
}

// Stop implements drivers.Driver: every task gets SIGTERM, then SIGKILL
// after the grace period. A second Stop skips the rest of the grace period.
// Stop returns once the job has ended or ctx is done.
func (d *Driver) Stop(ctx context.Context, h drivers.Handle) error {
	r, err := d.lookup(h)
	if errors.Is(err, drivers.ErrNotFound) && h.Driver == Name {
		return stopElsewhere(ctx, h.ID)
	}
	if err != nil {
		return err
	}
	r.requestStop()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait blocks until the run ends and returns how it ended.
func (d *Driver) Wait(ctx context.Context, h drivers.Handle) (*drivers.Result, error) {
	r, err := d.lookup(h)
	if err != nil {
		return nil, err
	}
	select {
	case <-r.done:
		return r.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
