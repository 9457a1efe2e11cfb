package siteconfig

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/ryanuber/go-glob"
)

// TrainerConfig is the `trainer {}` block: where the site keeps the
// Kubeflow Trainer runtimes (TrainingRuntime, ClusterTrainingRuntime
// YAML) its TrainJobs name, as a Kubernetes cluster keeps them installed.
//
//	trainer {
//	  runtime_dirs = ["/etc/jobshift/runtimes"]
//	  storage_uri "hf://*" { path = "/site/cache/hf/*" }
//	}
//
// A TrainJob's runtimeRef is looked up in its own file, then in the -runtime
// files, then in every *.yaml and *.yml file of these directories (in
// order, files sorted by name), then among the built-in runtimes.
//
// storage_uri rules map the storage URIs of dataset and model initializers
// that would download from the network (hf://, s3://, ...) to a directory
// the site already holds; the first rule whose pattern matches wins, and a
// "*" in path stands for what the pattern's single "*" matched. An
// initializer of the upstream image (no command of its own) then copies
// that directory to its output (/workspace/dataset or /workspace/model);
// without a matching rule such a job is refused.
type TrainerConfig struct {
	RuntimeDirs []string
	StorageURIs []StorageURIRule
	Range       hcl.Range
}

// StorageURIRule is one storage_uri block.
type StorageURIRule struct {
	Pattern string
	Path    string
	Range   hcl.Range
}

var trainerSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "runtime_dirs"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "storage_uri", LabelNames: []string{"pattern"}}},
}

// StoragePath is the site path of uri by the first matching rule.
func (t *TrainerConfig) StoragePath(uri string) (string, bool) {
	if t == nil {
		return "", false
	}
	for _, r := range t.StorageURIs {
		if !glob.Glob(r.Pattern, uri) {
			continue
		}
		if !strings.Contains(r.Path, "*") {
			return r.Path, true
		}
		i := strings.Index(r.Pattern, "*")
		if i < 0 || strings.Count(r.Pattern, "*") != 1 {
			return "", false
		}
		prefix, suffix := r.Pattern[:i], r.Pattern[i+1:]
		if len(uri) < len(prefix)+len(suffix) {
			return "", false
		}
		return strings.Replace(r.Path, "*", uri[len(prefix):len(uri)-len(suffix)], 1), true
	}
	return "", false
}

func decodeTrainer(b *hcl.Block) (*TrainerConfig, hcl.Diagnostics) {
	t := &TrainerConfig{Range: b.DefRange}
	content, diags := b.Body.Content(trainerSchema)
	for _, sb := range content.Blocks {
		pat, d := label(sb)
		diags = append(diags, d...)
		r := StorageURIRule{Pattern: pat, Range: sb.DefRange}
		sd := newDecoder(sb, attrs("path"))
		if a := sd.decode("path", &r.Path); a == nil || !filepath.IsAbs(r.Path) {
			sd.diags = append(sd.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid storage_uri path",
				Detail: "A storage_uri rule needs path = an absolute directory on every node.", Subject: sb.DefRange.Ptr()})
		} else if strings.Contains(r.Path, "*") && strings.Count(pat, "*") != 1 {
			sd.diags = append(sd.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid storage_uri path",
				Detail: "A \"*\" in path stands for what the pattern's single \"*\" matched; write a pattern with exactly one \"*\".", Subject: sb.DefRange.Ptr()})
		}
		diags = append(diags, sd.diags...)
		t.StorageURIs = append(t.StorageURIs, r)
	}
	d := &decoder{attrs: content.Attributes}
	d.list("runtime_dirs", &t.RuntimeDirs)
	for _, dir := range t.RuntimeDirs {
		if !filepath.IsAbs(dir) {
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Relative runtime directory",
				Detail: "runtime_dirs must be absolute paths; " + dir + " is not.", Subject: b.DefRange.Ptr()})
		}
	}
	return t, append(diags, d.diags...)
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
