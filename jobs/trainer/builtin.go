package trainer

import (
	"embed"
	"path"
	"sort"
	"sync"

	"github.com/jobshift/jobshift/jobs/yamlpos"
)

// The ClusterTrainingRuntimes Trainer installs with its manifests
// (kubeflow/trainer manifests/base/runtimes/ @v2.3.0: torch_distributed,
// deepspeed_distributed, mlx_distributed, jax_distributed,
// xgboost_distributed, torchtune/{llama3_2/llama3_2_1B, llama3_2/llama3_2_3B,
// qwen2_5/qwen2_5_1.5B}), embedded byte for byte. A TrainJob that names
// one finds it without a -runtime file, as on a cluster where Trainer was
// installed with its default runtimes. data-cache's
// torch-distributed-with-cache is not included: it needs the cluster's
// cache service account and pod-label fieldRefs.
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// BuiltinSource says where the embedded runtimes come from.
const BuiltinSource = "kubeflow/trainer v2.3.0 manifests/base/runtimes"

// builtin maps a runtime name to its embedded file.
var builtin = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	ents, _ := builtinFS.ReadDir("builtin")
	for _, e := range ents {
		src, _ := builtinFS.ReadFile("builtin/" + e.Name())
		docs, _ := yamlpos.Docs(src, e.Name(), yamlpos.Options{})
		for _, d := range docs {
			if name := scalar(child(yamlpos.Root(d), "metadata", "name")); name != "" {
				out[name] = "builtin/" + e.Name()
			}
		}
	}
	return out
})

// BuiltinNames lists the built-in ClusterTrainingRuntimes.
func BuiltinNames() []string {
	var out []string
	for n := range builtin() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// builtinRuntime reads the built-in runtime name (nil when there is none).
// Its diagnostics are located in the embedded file, named after its
// upstream path.
func builtinRuntime(name string, lossy bool) (*runtime, *file) {
	p, ok := builtin()[name]
	if !ok {
		return nil, nil
	}
	src, _ := builtinFS.ReadFile(p)
	f := newFile(BuiltinSource+"/"+path.Base(p), lossy)
	f.builtin = true
	for _, rt := range f.runtimes(src) {
		if rt.name == name {
			rt.source = "the built-in " + name + " (" + BuiltinSource + ")"
			return rt, f
		}
	}
	return nil, nil
}
