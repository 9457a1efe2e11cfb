package nomad

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// ErrPlacement: the cluster cannot place every task of the job now.
var ErrPlacement = errors.New("the job cannot be placed")

// Submit plans the job (placement failures are reported before anything
// is submitted: Nomad would otherwise place part of it and queue the rest),
// stores PAI v2 secrets as a Nomad Variable, and registers the job with its
// HCL as the job submission (shown by `nomad job inspect -hcl` and the UI).
func (d *Driver) Submit(ctx context.Context, p *translate.Plan) (drivers.Handle, error) {
	job, shape, diags := buildJob(p, d.contract)
	if diags.HasErrors() {
		return drivers.Handle{}, &diag.Error{Diags: diags}
	}
	d.warn(diags)
	if err := checkDriverMounts(p, shape); err != nil {
		return drivers.Handle{}, err
	}
	c, err := d.clientIn(ptrOr(job.Namespace, ""))
	if err != nil {
		return drivers.Handle{}, err
	}
	wo := (&api.WriteOptions{}).WithContext(ctx)
	// Checked before the plan: a running job's plan says nothing useful.
	reg, err := d.registerOptions(ctx, c, job)
	if err != nil {
		return drivers.Handle{}, err
	}
	note, err := fitSpread(ctx, c, job)
	if err != nil {
		return drivers.Handle{}, err
	}
	if note != "" {
		d.warn(hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Spread loosened", Detail: note + " (nomad.spread_nodes)."}})
	}
	if err := d.plan(ctx, c, job, p); err != nil {
		return drivers.Handle{}, err
	}
	if err := d.putSecrets(ctx, c, job, p); err != nil {
		return drivers.Handle{}, err
	}
	if shape.Rendezvous == RendezvousSnap {
		// A snapshot left by an earlier job of this ID is not this one's.
		if err := deleteTopology(ctx, c, job); err != nil {
			return drivers.Handle{}, err
		}
	}
	// nor are its tasks' end markers (ends.go)
	if err := deleteEnds(ctx, c, *job.ID); err != nil {
		return drivers.Handle{}, err
	}
	src, err := jobHCL(job, shape)
	if err != nil {
		return drivers.Handle{}, err
	}
	reg.Submission = &api.JobSubmission{Source: string(src), Format: "hcl2"}
	_, _, err = c.Jobs().RegisterOpts(job, reg, wo)
	if err != nil {
		if strings.Contains(err.Error(), "modify index") {
			// Registered by someone else between our check and now.
			return drivers.Handle{}, fmt.Errorf("%w: job %s was registered by someone else meanwhile (%v); look at it with jobshift status nomad:%s, or replace it with -force",
				ErrJobExists, *job.ID, err, *job.ID)
		}
		return drivers.Handle{}, fmt.Errorf("registering job %s: %w", *job.ID, unavailable(err))
	}
	return d.handle(job), nil
}

// ErrJobExists: a job of the same ID is running; Submit never replaces it
// unless forced.
var ErrJobExists = errors.New("a job of that ID is already running")

// OptForce ("true") lets Submit replace a running job of the same ID (the
// run -force flag), as a plain `nomad job run` would.
const OptForce = "force"

// registerOptions enforces the job's modify index, so that a submit never
// silently replaces a job someone runs under the same ID: a new ID
// registers only if still absent (index 0); an ended job (stopped, or
// dead) is replaced only if nobody changed it since we looked. -force
// registers unconditionally.
func (d *Driver) registerOptions(ctx context.Context, c *api.Client, job *api.Job) (*api.RegisterOptions, error) {
	if d.cfg.Options[OptForce] == "true" {
		return &api.RegisterOptions{}, nil
	}
	old, _, err := c.Jobs().Info(*job.ID, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		if strings.Contains(err.Error(), "404") {
			return &api.RegisterOptions{EnforceIndex: true, ModifyIndex: 0}, nil
		}
		return nil, fmt.Errorf("looking up job %s: %w", *job.ID, unavailable(err))
	}
	stopped := old.Stop != nil && *old.Stop
	if !stopped && old.Status != nil && *old.Status != "dead" {
		return nil, fmt.Errorf("%w: job %s is %s in namespace %s (submitted by %s); stop it first (jobshift stop %s), pick another -user or name, or replace it with -force",
			ErrJobExists, *job.ID, *old.Status, ptrOr(old.Namespace, "default"), ptrOr(new(old.Meta[MetaUser]), "someone"),
			d.handle(old).String())
	}
	return &api.RegisterOptions{EnforceIndex: true, ModifyIndex: *old.JobModifyIndex}, nil
}

func ptrOr(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}

func (d *Driver) handle(job *api.Job) drivers.Handle {
	h := drivers.Handle{Driver: TargetHCL, ID: *job.ID, Meta: map[string]string{}}
	if job.Namespace != nil {
		h.Meta["namespace"] = *job.Namespace
	}
	if job.Region != nil {
		h.Meta["region"] = *job.Region
	}
	return h
}

// plan runs Jobs().Plan: FailedTGAllocs names the groups that would not be
// placed and why (it is racy — the cluster can change before the register —
// which the gang timeout of Watch covers).
func (d *Driver) plan(ctx context.Context, c *api.Client, job *api.Job, p *translate.Plan) error {
	resp, _, err := c.Jobs().Plan(job, false, (&api.WriteOptions{}).WithContext(ctx))
	if err != nil {
		return fmt.Errorf("planning job %s: %w", *job.ID, unavailable(err))
	}
	if len(resp.FailedTGAllocs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s%s", ErrPlacement, placementReport(resp.FailedTGAllocs), hostNetHint(job, p)+volumesHint(resp.FailedTGAllocs))
}

// volumesHint names the site option when a group was kept off every
// client for a host path (hostPathsAllowed).
func volumesHint(failed map[string]*api.AllocationMetric) string {
	for _, m := range failed {
		for k := range m.ConstraintFiltered {
			if strings.Contains(k, dockerVolumesAttr) {
				return " The job mounts a host path in docker containers: the clients' docker plugin must allow host paths " +
					"(plugin \"docker\" { config { volumes { enabled = true } } }), or map the volume to a Nomad host volume (volume rule nomad_host_volume)."
			}
		}
	}
	return ""
}

// hostNetHint explains a failed placement of a job whose tasks each need a
// node of their own (distinct_hosts: a LeinaoPAI job in the host's network,
// see network; Volcano's TensorFlow shape, see fixedPortPeers).
func hostNetHint(job *api.Job, p *translate.Plan) string {
	if !slices.ContainsFunc(job.Constraints, func(c *api.Constraint) bool { return c.Operand == api.ConstraintDistinctHosts }) {
		return ""
	}
	n := p.Job.TaskCount()
	if role := contract.VolcanoFixedPortPeers(p.Job); role != "" {
		fix := "Run it on more nodes, or on a Slurm cluster with a node per task."
		if set, _ := settingsFor(p); networkWouldFix(p, set) {
			fix = dockerNetworkHint + " Or run it on more nodes."
		}
		return fmt.Sprintf("\n%s: One task per node is impossible here: role %s listens on a port of its own at the names of /etc/volcano/*.host, "+
			"as every pod had its own network on Kubernetes, so the job needs %d client nodes (distinct_hosts). %s", p.Job.NamePos, role, n, fix)
	}
	return fmt.Sprintf(" One task per node is impossible here: every task of this LeinaoPAI job binds ports %v "+
		"in the host's network (driver raw_exec/exec/podman), so the job needs %d client nodes free of other tasks on those ports "+
		"(distinct_hosts). Run it with nomad.driver = \"docker\" (bridge networking, the ports mapped as LeinaoPAI did) or on more nodes.", contract.LeinaoPorts, n)
}

// placementReport explains failed placements in Nomad's own words.
func placementReport(failed map[string]*api.AllocationMetric) string {
	var parts []string
	for _, g := range sortedKeys(failed) {
		m := failed[g]
		var why []string
		for _, k := range sortedKeys(m.DimensionExhausted) {
			why = append(why, fmt.Sprintf("%s exhausted on %d node(s)", k, m.DimensionExhausted[k]))
		}
		for _, k := range sortedKeys(m.ConstraintFiltered) {
			why = append(why, fmt.Sprintf("constraint %s filtered %d node(s)", k, m.ConstraintFiltered[k]))
		}
		for _, k := range sortedKeys(m.ClassExhausted) {
			why = append(why, fmt.Sprintf("class %s exhausted on %d node(s)", k, m.ClassExhausted[k]))
		}
		if m.NodesAvailable != nil && len(m.NodesAvailable) == 0 {
			why = append(why, "no node is available in the job's datacenters/node pool")
		}
		if len(why) == 0 {
			why = append(why, fmt.Sprintf("%d of %d node(s) evaluated, none fits", m.NodesFiltered+m.NodesExhausted, m.NodesEvaluated))
		}
		sort.Strings(why)
		parts = append(parts, fmt.Sprintf("group %q: %d task(s) unplaced: %s", g, m.CoalescedFailures+1, strings.Join(why, "; ")))
	}
	return strings.Join(parts, "; ") + ". Free resources (or ask for fewer) and submit again."
}

// unavailable marks connection errors so callers can tell "no cluster".
func unavailable(err error) error {
	s := err.Error()
	if strings.Contains(s, "connection refused") || strings.Contains(s, "no such host") || strings.Contains(s, "dial ") {
		return fmt.Errorf("%v: %w", err, drivers.ErrUnavailable)
	}
	return err
}
