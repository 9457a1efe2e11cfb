package nomad_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/translate"
)

// TestConvertOneClientEqualsRegistered: for a job whose shape depends on
// the cluster (examples/volcano-tf-shape.yaml on raw_exec), what convert
// -to nomad[-json] -one-client writes (Render with OptOneClient, as
// cmd/jobshift/convert.go sets it) is what run registers on the
// one-client agent, where Submit counts the clients itself (OptOneClient
// unset, as cmd/jobshift/run.go leaves it): the register request equals
// the converted job, the stored submission is its HCL, header included;
// and without -one-client convert writes another job (the shape for
// several clients), so the input is what makes them agree. The job is
// registered in the agent's datacenter (a count of the clients there) and
// purged at once.
func TestConvertOneClientEqualsRegistered(t *testing.T) {
	c := agent.Client(t)
	if nodes, _, err := c.Nodes().List(nil); err != nil || len(nodes) != 1 {
		t.Skipf("the agent has %d clients (%v), the test needs one", len(nodes), err)
	}
	reg := &registrar{agent: agent.Addr(t)}
	t.Setenv("NOMAD_ADDR", newProxy(t, reg))
	path := filepath.Join(agent.Repo(), "examples", "volcano-tf-shape.yaml")
	for _, watched := range []bool{false, true} {
		name := fmt.Sprintf("volcano-tf-shape.yaml watched=%t", watched)
		id := fmt.Sprintf("oneclient-%d-%t", time.Now().UnixNano()%1e6, watched)
		plan := func(oneClient bool) *translate.Plan {
			p := loadPlan(t, path, site())
			p.Options["id"] = id
			p.Options[nomad.OptWatched] = fmt.Sprint(watched)
			if oneClient {
				p.Options[nomad.OptOneClient] = "true"
			}
			return p
		}
		converted, hcl, ok := convert(t, name, plan(true))
		if !ok {
			t.Fatalf("%s: convert -one-client refused it", name)
		}
		several, _, ok := convert(t, name, plan(false))
		if !ok {
			t.Fatalf("%s: convert refused it", name)
		}
		if cmp.Equal(converted, several) {
			t.Errorf("%s: convert writes the same job with and without -one-client", name)
		}
		for job, want := range map[string]string{hcl: "for a cluster of one client", converted.Meta[nomad.MetaShape]: "jobshift convert without -one-client"} {
			if !strings.Contains(job, want) {
				t.Errorf("%s: the shape's label %q lacks %q", name, strings.SplitN(job, "\n", 2)[0], want)
			}
		}
		d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: site(), Warnings: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		p := plan(false)
		_, err = d.Submit(context.Background(), p)
		var source string
		if sub, _, serr := c.Jobs().Submission(id, 0, nil); serr == nil {
			source = sub.Source
		}
		purge(t, c, id)
		if err != nil {
			t.Fatalf("%s: run: %v", name, err)
		}
		if p.Options[nomad.OptOneClient] != "true" {
			t.Errorf("%s: Submit did not count one client (%s = %q)", name, nomad.OptOneClient, p.Options[nomad.OptOneClient])
		}
		if diff := cmp.Diff(converted, reg.take(id)); diff != "" {
			t.Errorf("%s: registered job (-converted -one-client +registered):\n%s", name, diff)
		}
		if source != hcl {
			t.Errorf("%s: the stored submission (nomad job inspect -hcl) is not convert -to nomad -one-client's:\n%s", name, cmp.Diff(hcl, source))
		}
	}
}
