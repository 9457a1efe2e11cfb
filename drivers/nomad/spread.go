package nomad

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
	"github.com/ryanuber/go-glob"

	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

// The spread cap (spreadConstraint: at most k allocations of the job per
// client) is sized for nomad.spread_nodes clients. A cluster with fewer
// usable clients cannot place the job at all under it — and that is the
// state right after a host is lost, when a transient failure is retried
// (found by the fault suite's kill-host case: the retry waited for the lost
// host, never placed, until the gang timeout). OpenPAI and Kubernetes only
// prefer spreading; they never refuse a job for it. So, at each
// registration (submit and every retry), the cap is loosened to what the
// clients that are up can hold; it is never tightened.

// spreadCap is the job's spread constraint, if it has one.
func spreadCap(job *api.Job) *api.Constraint {
	for _, c := range job.Constraints {
		if c.Operand == api.ConstraintDistinctProperty && c.LTarget == "${node.unique.id}" {
			return c
		}
	}
	return nil
}

// fitSpread loosens the spread cap of job to the clients usable now; the
// note says what changed ("" when nothing did).
func fitSpread(ctx context.Context, c *api.Client, job *api.Job) (string, error) {
	if spreadCap(job) == nil {
		return "", nil
	}
	nodes, _, err := c.Nodes().List((&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("listing the clients: %w", unavailable(err))
	}
	usable := usableNodes(job, nodes)
	from, to, ok := loosenSpread(job, usable)
	if !ok {
		return "", nil
	}
	return fmt.Sprintf("only %d client(s) are up: the job's spread is loosened from %d to %d allocation(s) per client", usable, from, to), nil
}

// loosenSpread raises the job's cap so that usable clients hold every
// task; ok when it changed. Nothing usable: left as it is (the plan and
// the gang timeout report a job that cannot be placed).
func loosenSpread(job *api.Job, usable int) (from, to int, ok bool) {
	sc := spreadCap(job)
	if sc == nil || usable <= 0 {
		return 0, 0, false
	}
	k, err := strconv.Atoi(sc.RTarget)
	if err != nil || k <= 0 {
		return 0, 0, false // not one of ours: leave it
	}
	tasks := 0
	for _, g := range job.TaskGroups {
		if g.Count != nil {
			tasks += *g.Count
		}
	}
	if usable*k >= tasks {
		return 0, 0, false
	}
	to = (tasks + usable - 1) / usable
	sc.RTarget = strconv.Itoa(to)
	return k, to, true
}

// usableNodes counts the clients that are ready and eligible in the job's
// datacenters and node pool.
func usableNodes(job *api.Job, nodes []*api.NodeListStub) int {
	pool := "default"
	if job.NodePool != nil && *job.NodePool != "" {
		pool = *job.NodePool
	}
	dcs := job.Datacenters
	if len(dcs) == 0 {
		dcs = []string{"*"}
	}
	n := 0
	for _, nd := range nodes {
		if nd.Status != api.NodeStatusReady || nd.SchedulingEligibility != api.NodeSchedulingEligible {
			continue
		}
		if pool != "all" && nd.NodePool != pool {
			continue
		}
		for _, dc := range dcs {
			if glob.Glob(dc, nd.Datacenter) {
				n++
				break
			}
		}
	}
	return n
}

// buildOnCluster is buildJob for the cluster c reaches: a job whose shape
// depends on the number of clients (oneClientMatters) is rendered again
// with OptOneClient when only one client can run it, unless the plan says
// already. Submit and PlanDiff build with it, so both show the same job.
func (d *Driver) buildOnCluster(ctx context.Context, p *translate.Plan) (*api.Job, *Shape, *api.Client, hcl.Diagnostics, error) {
	job, shape, diags := buildJob(p, d.contract)
	if diags.HasErrors() {
		return nil, nil, nil, diags, &diag.Error{Diags: diags}
	}
	c, err := d.clientIn(ptrOr(job.Namespace, ""))
	if err != nil || !oneClientMatters(p) || p.Options[OptOneClient] != "" {
		return job, shape, c, diags, err
	}
	nodes, _, err := c.Nodes().List((&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, nil, nil, diags, fmt.Errorf("listing the clients: %w", unavailable(err))
	}
	if usableNodes(job, nodes) != 1 {
		return job, shape, c, diags, nil
	}
	p.Options[OptOneClient] = "true"
	job, shape, diags = buildJob(p, d.contract)
	if diags.HasErrors() {
		return nil, nil, nil, diags, &diag.Error{Diags: diags}
	}
	return job, shape, c, diags, nil
}
