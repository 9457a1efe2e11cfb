package plugin

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// PlanToPB converts a plan to its wire form.
func PlanToPB(p *translate.Plan) (*pb.Plan, error) {
	if p == nil {
		return nil, fmt.Errorf("nil plan")
	}
	job, err := JobToPB(p.Job)
	if err != nil {
		return nil, err
	}
	out := &pb.Plan{Job: job, Contracts: p.Contracts, User: p.User, Options: p.Options, ContractsExact: p.ContractsExact()}
	if p.Site != nil {
		if p.Site.Source != nil {
			out.SiteConfigHcl, out.SiteConfigPath = p.Site.Source, p.Site.Path
		} else if out.SiteConfigJson, err = json.Marshal(p.Site); err != nil {
			return nil, fmt.Errorf("encoding site config: %w", err)
		}
	}
	return out, nil
}

// PlanFromPB converts the wire form back to a plan. Site is never nil.
func PlanFromPB(in *pb.Plan) (*translate.Plan, error) {
	if in == nil {
		return nil, fmt.Errorf("request carries no plan")
	}
	job, err := JobFromPB(in.Job)
	if err != nil {
		return nil, err
	}
	p := &translate.Plan{Job: job, Contracts: in.Contracts, User: in.User, Options: in.Options, Site: &siteconfig.Config{}}
	if in.ContractsExact {
		p.SetContractsExact()
	}
	if in.SiteConfigHcl != nil {
		site, diags := siteconfig.ParseConfig(in.SiteConfigHcl, in.SiteConfigPath)
		if diags.HasErrors() {
			return nil, diags
		}
		p.Site = site
	} else if len(in.SiteConfigJson) > 0 {
		if err := json.Unmarshal(in.SiteConfigJson, p.Site); err != nil {
			return nil, fmt.Errorf("decoding site config: %w", err)
		}
	}
	return p, nil
}

func artifactToPB(a *drivers.Artifact) *pb.RenderResponse {
	if a == nil {
		return &pb.RenderResponse{}
	}
	out := &pb.RenderResponse{MediaType: a.MediaType}
	for _, f := range a.Files {
		out.Files = append(out.Files, &pb.File{Name: f.Name, Mode: f.Mode, Data: f.Data})
	}
	return out
}

func artifactFromPB(in *pb.RenderResponse) *drivers.Artifact {
	a := &drivers.Artifact{MediaType: in.MediaType}
	for _, f := range in.Files {
		a.Files = append(a.Files, drivers.File{Name: f.Name, Mode: f.Mode, Data: f.Data})
	}
	return a
}

func handleToPB(h drivers.Handle) *pb.Handle {
	return &pb.Handle{Driver: h.Driver, Id: h.ID, Meta: h.Meta}
}

func handleFromPB(h *pb.Handle) drivers.Handle {
	if h == nil {
		return drivers.Handle{}
	}
	return drivers.Handle{Driver: h.Driver, ID: h.Id, Meta: h.Meta}
}

func taskRefToPB(t *jobs.TaskRef) *pb.TaskRef {
	if t == nil {
		return nil
	}
	return &pb.TaskRef{Role: t.Role, Index: int32(t.Index)}
}

func taskRefFromPB(t *pb.TaskRef) *jobs.TaskRef {
	if t == nil {
		return nil
	}
	return &jobs.TaskRef{Role: t.Role, Index: int(t.Index)}
}

func eventToPB(e drivers.Event) *pb.Event {
	out := &pb.Event{Attempt: int32(e.Attempt), Task: taskRefToPB(e.Task), State: string(e.State),
		ExitCode: int32(e.ExitCode), Message: e.Message}
	if !e.Time.IsZero() {
		out.TimeUnixNano = e.Time.UnixNano()
	}
	if r := e.Final; r != nil {
		out.Final = &pb.Result{Phase: string(r.Phase), ExitCode: int32(r.ExitCode), Reason: r.Reason, Attempts: int32(r.Attempts)}
	}
	return out
}

func eventFromPB(in *pb.Event) drivers.Event {
	e := drivers.Event{Attempt: int(in.Attempt), Task: taskRefFromPB(in.Task), State: completion.State(in.State),
		ExitCode: int(in.ExitCode), Message: in.Message}
	if in.TimeUnixNano != 0 {
		e.Time = time.Unix(0, in.TimeUnixNano)
	}
	if r := in.Final; r != nil {
		e.Final = &drivers.Result{Phase: completion.Phase(r.Phase), ExitCode: int(r.ExitCode), Reason: r.Reason, Attempts: int(r.Attempts)}
	}
	return e
}
