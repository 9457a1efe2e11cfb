package nomad

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	hcl2 "github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	jhcl "github.com/jobshift/jobshift/hcl"
	"github.com/jobshift/jobshift/translate"
)

// Target names: "nomad" renders HCL2, "nomad-json" API JSON (the form
// `nomad job run -json` reads). Both submit the same job.
const (
	TargetHCL  = "nomad"
	TargetJSON = "nomad-json"
)

func init() {
	drivers.Register(TargetHCL, func(c drivers.Config) (drivers.Driver, error) { return New(c, false) })
	drivers.Register(TargetJSON, func(c drivers.Config) (drivers.Driver, error) { return New(c, true) })
}

// Driver runs jobs on a Nomad cluster. The API client is built from the
// site config's address and the NOMAD_* environment, like the nomad CLI.
type Driver struct {
	cfg      drivers.Config
	json     bool
	contract Contract
	client   *api.Client
}

// New builds the driver; the connection is made lazily (Render needs none).
func New(c drivers.Config, asJSON bool) (*Driver, error) {
	return &Driver{cfg: c, json: asJSON, contract: contractImpl{}}, nil
}

// WithContract replaces the contract rendering (tests of Render only).
func (d *Driver) WithContract(c Contract) *Driver { d.contract = c; return d }

// Name implements drivers.Driver.
func (d *Driver) Name() string {
	if d.json {
		return TargetJSON
	}
	return TargetHCL
}

// DiagError carries diagnostics through the error-returning Driver API.
type DiagError struct{ Diags hcl2.Diagnostics }

func (e *DiagError) Error() string { return e.Diags.Error() }

// Unwrap exposes the diagnostics, so that errors.As(err, &hcl.Diagnostics)
// finds them (the CLI prints them located; the plugin transport carries
// them whole).
func (e *DiagError) Unwrap() error { return e.Diags }

// Render returns the job as HCL2 (or API JSON), exactly what Submit sends.
func (d *Driver) Render(ctx context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	job, diags := BuildJob(p, d.contract)
	if diags.HasErrors() {
		return nil, &DiagError{diags}
	}
	d.warn(diags)
	if d.json {
		b, err := JobJSON(job)
		if err != nil {
			return nil, err
		}
		return &drivers.Artifact{MediaType: "application/json", Files: []drivers.File{{Name: *job.ID + ".nomad.json", Data: b}}}, nil
	}
	b, err := jhcl.NomadJobHCL(job)
	if err != nil {
		return nil, err
	}
	return &drivers.Artifact{MediaType: "application/hcl", Files: []drivers.File{{Name: *job.ID + ".nomad.hcl", Data: b}}}, nil
}

// JobJSON is the {"Job": ...} document `nomad job run -json` and
// `PUT /v1/jobs` accept.
func JobJSON(job *api.Job) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]*api.Job{"Job": job}); err != nil {
		return nil, fmt.Errorf("encoding job: %w", err)
	}
	return buf.Bytes(), nil
}

// DiagList formats the diagnostics, one per line, file:line:col first.
func (e *DiagError) DiagList() []string {
	var out []string
	for _, d := range e.Diags {
		sev := "error"
		if d.Severity == hcl2.DiagWarning {
			sev = "warning"
		}
		at := ""
		if d.Subject != nil {
			at = fmt.Sprintf("%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		out = append(out, fmt.Sprintf("%s%s: %s: %s", at, sev, d.Summary, d.Detail))
	}
	return out
}

// warn prints warning diagnostics to the configured writer.
func (d *Driver) warn(diags hcl2.Diagnostics) {
	if d.cfg.Warnings == nil {
		return
	}
	for _, l := range (&DiagError{diags}).DiagList() {
		fmt.Fprintln(d.cfg.Warnings, l)
	}
}
