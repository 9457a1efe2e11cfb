package plugin

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate"
)

// warningDriver warns through its Warn (drivers.Config.Warn) while it
// renders or submits.
type warningDriver struct {
	recordingDriver
	warn func(hcl.Diagnostics)
	ws   hcl.Diagnostics
}

func (d *warningDriver) Render(ctx context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	d.warn(d.ws)
	return d.recordingDriver.Render(ctx, p)
}

func (d *warningDriver) Submit(ctx context.Context, p *translate.Plan) (drivers.Handle, error) {
	d.warn(d.ws[:1])
	return d.recordingDriver.Submit(ctx, p)
}

// A plugin's warnings come back with the Render or Submit that made them,
// located, to the host's Warn (which validate -to counts); one reported
// outside a call goes to Outside, not to the next call.
func TestWarningsCrossTheWire(t *testing.T) {
	ws := hcl.Diagnostics{
		{Severity: hcl.DiagWarning, Summary: "Image not run", Detail: "runs outside any image.",
			Subject: &hcl.Range{Filename: "job.yaml", Start: hcl.Pos{Line: 10, Column: 10, Byte: 99}, End: hcl.Pos{Line: 10, Column: 26, Byte: 115}}},
		{Severity: hcl.DiagWarning, Summary: "Second", Detail: "two."},
	}
	var outside hcl.Diagnostics
	sink := &Warnings{Outside: func(d hcl.Diagnostics) { outside = append(outside, d...) }}
	impl := &warningDriver{recordingDriver: recordingDriver{artifact: &drivers.Artifact{MediaType: "text/plain"}}, warn: sink.Report, ws: ws}
	client, _ := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		PluginName: &GRPCDriverPlugin{Impl: impl, Version: "9.9.9", Warnings: sink},
	})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	c := raw.(*GRPCClient)
	var got hcl.Diagnostics
	c.Warn = func(d hcl.Diagnostics) { got = append(got, d...) }

	sink.Report(ws[1:]) // e.g. from a Watch: no reply carries it
	if _, err := c.Render(context.Background(), samplePlan()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ws, got); diff != "" {
		t.Errorf("Render's warnings at the host (-plugin +host):\n%s", diff)
	}
	if diff := cmp.Diff(ws[1:], outside); diff != "" {
		t.Errorf("warnings outside a call (-reported +outside):\n%s", diff)
	}
	got = nil
	if _, err := c.Submit(context.Background(), samplePlan()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ws[:1], got); diff != "" {
		t.Errorf("Submit's warnings at the host (-plugin +host):\n%s", diff)
	}
}
