package siteconfig

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// TrainerConfig is the `trainer {}` block: where the site keeps the
// Kubeflow Trainer runtimes (TrainingRuntime, ClusterTrainingRuntime
// YAML) its TrainJobs name, as a Kubernetes cluster keeps them installed.
//
//	trainer {
//	  runtime_dirs = ["/etc/jobshift/runtimes"]
//	}
//
// A TrainJob's runtimeRef is looked up in its own file, then in the -runtime
// files, then in every *.yaml and *.yml file of these directories (in
// order, files sorted by name), then among the built-in runtimes.
type TrainerConfig struct {
	RuntimeDirs []string
	Range       hcl.Range
}

var trainerSchema = attrs("runtime_dirs")

func decodeTrainer(b *hcl.Block) (*TrainerConfig, hcl.Diagnostics) {
	d := newDecoder(b, trainerSchema)
	t := &TrainerConfig{Range: b.DefRange}
	d.list("runtime_dirs", &t.RuntimeDirs)
	for _, dir := range t.RuntimeDirs {
		if !filepath.IsAbs(dir) {
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Relative runtime directory",
				Detail: "runtime_dirs must be absolute paths; " + dir + " is not.", Subject: b.DefRange.Ptr()})
		}
	}
	return t, d.diags
}

// RuntimeFiles lists the YAML files of the runtime directories (a missing
// or unreadable directory contributes none).
func (t *TrainerConfig) RuntimeFiles() []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, dir := range t.RuntimeDirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var names []string
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}
