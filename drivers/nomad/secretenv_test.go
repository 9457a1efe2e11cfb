package nomad

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// The example's HUB_TOKEN comes from the Secret "hub" in the same file
// (base64 "aHViLTBmOGU3ZDZjNWI0YQ==" in its data: the value below, as
// Kubernetes decodes a Secret's data). It travels only in the job's
// Variable: neither the HCL nor the JSON job, on any driver, holds it,
// and the Variable's items (what run stores and convert hands over) do.
func TestSecretEnvStaysOutOfTheJob(t *testing.T) {
	const value = "hub-0f8e7d6c5b4a"
	j, diags := load.Load("../../examples/pytorchjob-init-secret.yaml", jobs.ReadOptions{Path: "pytorchjob-init-secret.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, driver := range []string{"raw_exec", "exec", "docker", "podman"} {
		for _, watched := range []string{"true", "false"} {
			p, diags := translate.Build(j, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: driver}}, nil, "alice")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p.Options[OptWatched] = watched
			for _, asJSON := range []bool{false, true} {
				d, _ := New(drivers.Config{Site: p.Site}, asJSON)
				art, err := d.Render(t.Context(), p)
				if err != nil {
					t.Fatalf("%s: %v", driver, err)
				}
				for _, f := range art.Files {
					if strings.Contains(string(f.Data), value) {
						t.Errorf("%s watched=%s json=%v: %s holds the Secret's value", driver, watched, asJSON, f.Name)
					}
				}
			}
			items, err := VariableItems(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := items[secretEnvItem("master", "HUB_TOKEN")]; got != value {
				t.Errorf("%s: the Variable's item is %q, want the Secret's value", driver, got)
			}
		}
	}
}
