package translate_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// A TFJob as kubeflow/examples wrote it (object_detection pets training):
// the workers read the claim pets-data-claim at /pets_data, and keep a
// scratch claim nothing names.
const petsJob = `apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: pets-training
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/models:1.15
            command: ["python", "train.py", "--train_dir=/pets_data/train"]
            volumeMounts:
            - name: pets-data
              mountPath: /pets_data
            - name: cache
              mountPath: /cache
              subPath: w
          volumes:
          - name: pets-data
            persistentVolumeClaim:
              claimName: pets-data-claim
          - name: cache
            azureFile:
              shareName: cache-share
              secretName: azure
`

// TestUnmappedVolumeRefused: the reader carries the claim (kind, claim
// name, mount path, subPath); Build refuses the used one at its mount,
// naming the rule to add, unless -lossy; a rule for the claim (or the
// volume's name) makes it valid; the unused share is no error.
func TestUnmappedVolumeRefused(t *testing.T) {
	cases := map[string]struct {
		site  string
		lossy bool
		want  string // "" = no diagnostic from the volume check
		sev   string
	}{
		"no rule":          {"", false, "job.yaml:16:15", "error"},
		"no rule, -lossy":  {"", true, "job.yaml:16:15", "warning"},
		"claim mapped":     {`volume "pets-*" { path = "/lustre/pets" }`, false, "", ""},
		"volume name only": {`volume "pets-data" { nomad_host_volume = "pets" }`, false, "", ""},
		"other rule only":  {`volume "cache-share" { path = "/scratch" }`, false, "job.yaml:16:15", "error"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job, d := load.Read([]byte(petsJob), jobs.ReadOptions{Path: "job.yaml", Lossy: tc.lossy})
			if d.HasErrors() {
				t.Fatalf("read: %s", d.Error())
			}
			vols := job.Roles[0].Volumes
			if len(vols) != 2 || vols[0].Kind != "persistentVolumeClaim" || vols[0].Source != "pets-data-claim" || !vols[0].Used ||
				vols[1].Kind != "azureFile" || vols[1].Source != "cache-share" || vols[1].SubPath != "w" || vols[1].Used {
				t.Fatalf("volumes = %+v", vols)
			}
			cfg, cd := siteconfig.ParseConfig([]byte(tc.site), "site.hcl")
			if cd.HasErrors() {
				t.Fatal(cd.Error())
			}
			_, diags := translate.Build(job, cfg, nil, "alice")
			var got []string
			for _, x := range diags {
				if x.Summary == "Volume without a site rule" {
					sev := "warning"
					if x.Severity == hcl.DiagError {
						sev = "error"
					}
					got = append(got, fmt.Sprintf("%s:%d:%d %s", x.Subject.Filename, x.Subject.Start.Line, x.Subject.Start.Column, sev))
				}
			}
			want := []string(nil)
			if tc.want != "" {
				want = []string{tc.want + " " + tc.sev}
			}
			if len(got) != len(want) || (len(got) == 1 && got[0] != want[0]) {
				t.Errorf("volume diagnostics %v, want %v (%s)", got, want, diags.Error())
			}
		})
	}
}
