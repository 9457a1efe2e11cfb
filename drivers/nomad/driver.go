package nomad

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad/jobhcl"
	"github.com/jobshift/jobshift/jobs/diag"
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
	// base is the configuration client was built from, and clients the
	// client of each other namespace made from it (clientIn); mu guards
	// the three.
	base    *api.Config
	clients map[string]*api.Client
	mu      sync.Mutex
	// inTask: a finisher inside a task of the job, whose workload
	// identity may read and write Variables but not destroy them.
	inTask bool
}

// New builds the driver; the connection is made lazily (Render needs none).
func New(c drivers.Config, asJSON bool) (*Driver, error) {
	return &Driver{cfg: c, json: asJSON}, nil // contract nil: BuildJob compiles one per render
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

// Render returns the job as HCL2 (or API JSON), exactly what Submit sends
// for the same plan: both build it from the shape Decide gives for the
// plan's OptWatched (unwatched unless it says "true") and OptOneClient
// (several clients unless it says "true": Render counts no clients, which
// Submit does where the plan leaves it unset).
func (d *Driver) Render(ctx context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	job, shape, diags := buildJob(p, d.contract)
	if diags.HasErrors() {
		return nil, &diag.Error{Diags: diags}
	}
	d.warn(diags)
	if d.json {
		b, err := JobJSON(job)
		if err != nil {
			return nil, err
		}
		return &drivers.Artifact{MediaType: "application/json", Files: []drivers.File{{Name: *job.ID + ".nomad.json", Data: b}}}, nil
	}
	b, err := jobHCL(job, shape)
	if err != nil {
		return nil, err
	}
	return &drivers.Artifact{MediaType: "application/hcl", Files: []drivers.File{{Name: *job.ID + ".nomad.hcl", Data: b}}}, nil
}

// jobHCL is the job as HCL2 under a header of comments saying its shape
// and how to get the other one: what Render writes and what Submit
// registers as the job's submission (`nomad job inspect -hcl`). A JSON
// document has no comments: its job meta MetaShape says the same.
func jobHCL(job *api.Job, shape *Shape) ([]byte, error) {
	var h bytes.Buffer
	h.WriteString("# jobshift: " + shapeLabel(shape) + "\n#\n")
	for line := range strings.Lines(shape.String()) {
		h.WriteString("# " + line)
	}
	h.WriteString("\n")
	return jobhcl.AppendMarshal(h.Bytes(), job)
}

// JobJSON is the {"Job": ...} document `nomad job run -json` and
// `PUT /v1/jobs` accept, indented by two spaces. A job of N roles has N
// groups whose env templates each name every role, so the document grows
// with N² (about 290 MB at 300 roles): encoding/json's indenting Encoder
// held it three times over (the compact encoding, its indented copy and
// the buffer written to). The groups are encoded one at a time into the
// document, so only one group is ever held twice.
func JobJSON(job *api.Job) ([]byte, error) {
	if len(job.TaskGroups) == 0 {
		return encodeJSON(map[string]*api.Job{"Job": job})
	}
	bare := *job
	bare.TaskGroups = nil
	head, err := encodeJSON(map[string]*api.Job{"Job": &bare})
	if err != nil {
		return nil, err
	}
	// the only unescaped "TaskGroups": null at the job's depth (keys of
	// the job's own maps are deeper, strings escape their quotes)
	const slot = "\n    \"TaskGroups\": null"
	at := bytes.Index(head, []byte(slot))
	if at < 0 {
		return nil, fmt.Errorf("encoding job: no TaskGroups in its JSON")
	}
	at += len(slot) - len("null")
	out := make([]byte, 0, len(head)+jsonGroupsSize(job))
	out = append(out, head[:at]...)
	out = append(out, "[\n"...)
	// one Encoder for every group: it keeps its indenting buffer
	var group bytes.Buffer
	enc := json.NewEncoder(&group)
	enc.SetEscapeHTML(false)
	enc.SetIndent("      ", "  ")
	for i, g := range job.TaskGroups {
		if i > 0 {
			out = append(out, ",\n"...)
		}
		group.Reset()
		if err := enc.Encode(g); err != nil {
			return nil, fmt.Errorf("encoding job: %w", err)
		}
		out = append(append(out, "      "...), bytes.TrimSuffix(group.Bytes(), []byte("\n"))...)
	}
	out = append(out, "\n    ]"...)
	return append(out, head[at+len("null"):]...), nil
}

// encodeJSON is v indented by two spaces, and a newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding job: %w", err)
	}
	return buf.Bytes(), nil
}

// jsonGroupsSize is about the size of the job's groups in JSON, a little
// more rather than less: mostly their templates, whose quotes and
// newlines gain a backslash.
func jsonGroupsSize(job *api.Job) int {
	n := 0
	for _, g := range job.TaskGroups {
		n += 8 << 10
		for _, t := range g.Tasks {
			n += 4 << 10
			for _, tp := range t.Templates {
				if tp.EmbeddedTmpl != nil {
					n += len(*tp.EmbeddedTmpl) * 5 / 4
				}
			}
		}
	}
	return n
}

// warn prints warning diagnostics to the configured writer.
func (d *Driver) warn(diags hcl.Diagnostics) { d.cfg.Report(diags) }
