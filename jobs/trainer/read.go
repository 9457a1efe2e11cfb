package trainer

import (
	"bytes"
	"os"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Kinds of the trainer.kubeflow.org API group.
const (
	KindTrainJob       = "TrainJob"
	KindRuntime        = "TrainingRuntime"
	KindClusterRuntime = "ClusterTrainingRuntime"
)

var kindRE = regexp.MustCompile(`(?m)^[ \t]*["']?kind["']?[ \t]*:[ \t]*["']?(TrainJob|TrainingRuntime|ClusterTrainingRuntime)["']?[ \t]*(#.*)?\r?$`)

// IsTrainer reports whether src holds a Trainer v2 object (by a `kind:`
// line), without parsing it, so that a loader can dispatch broken YAML too.
func IsTrainer(src []byte) bool { return kindRE.Match(src) }

// maxRuntimeFileBytes bounds a -runtime file like a job file.
const maxRuntimeFileBytes = 3 << 19

// Read reads a TrainJob file. The runtime it names (runtimeRef) is looked
// for in the file itself (any document order), then in opts.Runtimes, then
// among the built-in ClusterTrainingRuntimes.
func Read(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	f := newFile(opts.Path, opts.Lossy)
	docs, d := yamlpos.Docs(src, opts.Path, yamlpos.Options{Hint: "Fix the YAML syntax and try again."})
	if d != nil {
		return nil, hcl.Diagnostics{d}
	}
	// The ConfigMaps and Secrets the TrainJob's pods read: this file's
	// documents and a -secrets file of them (a runtime from -runtime
	// resolves against its own file only).
	f.pod.Objects(docs)
	f.pod.SecretsFile(opts.Secrets)
	f.pod.SecretSource(opts.SecretSource)
	var tj *trainJob
	var local []*runtime
	for _, doc := range docs {
		root := yamlpos.Resolve(yamlpos.Root(doc))
		if root == nil || yamlpos.IsNull(root) || root.Kind == yaml.DocumentNode {
			continue
		}
		kind := scalar(child(root, "kind"))
		switch kind {
		case KindTrainJob:
			if tj != nil {
				f.lossyf(root, "More than one TrainJob in the file", "This file already holds a TrainJob; jobshift reads one job per file and would drop this one. Put each TrainJob in its own file.")
				continue
			}
			tj = f.readTrainJob(root)
		case KindRuntime, KindClusterRuntime:
			local = append(local, f.readRuntime(root, kind, "this file"))
		case "ConfigMap", "Secret":
			// read by the pod reader above
		default:
			f.warnf(root, "Ignored document", "This document (kind %q) is not a TrainJob or training runtime; jobshift ignores it. Whatever it provides must exist on the target by other means.", kind)
		}
	}
	if tj == nil {
		f.errorf(nil, "No TrainJob in the file", "The file holds %d training runtime(s) but no TrainJob. Run the TrainJob file and pass runtime files with -runtime FILE.", len(local))
		return nil, f.c.Diags
	}
	diags := hcl.Diagnostics{}
	rt, rf := resolve(f, tj, local, opts, &diags)
	if rt == nil {
		return nil, append(f.c.Diags, diags...)
	}
	job := build(tj, rt, opts)
	switch {
	case rf.builtin:
		// Warnings about what the upstream manifest sets (probes,
		// security contexts) are not the user's to fix.
		diags = append(diags, errsOnly(rf.c.Diags)...)
	case rf != f:
		diags = append(diags, rf.c.Diags...)
	}
	if len(opts.Vars) > 0 {
		f.warnf(nil, "-var has no effect", "TrainJobs have no parameters; the -var values are ignored.")
	}
	return job, append(f.c.Diags, diags...)
}

// runtimes reads every runtime document of src.
func (f *file) runtimes(src []byte) []*runtime {
	docs, d := yamlpos.Docs(src, f.path, yamlpos.Options{Hint: "Fix the YAML syntax of the runtime file."})
	if d != nil {
		f.c.Diags = append(f.c.Diags, d)
		return nil
	}
	var out []*runtime
	for _, doc := range docs {
		root := yamlpos.Resolve(yamlpos.Root(doc))
		if root == nil || root.Kind != yaml.MappingNode {
			continue
		}
		switch kind := scalar(child(root, "kind")); kind {
		case KindRuntime, KindClusterRuntime:
			out = append(out, f.readRuntime(root, kind, f.path))
		}
	}
	return out
}

// resolve finds the runtime tj names: in its own file, in the -runtime
// files, then among the built-ins (ClusterTrainingRuntimes only). It
// returns the runtime and the file whose diagnostics belong to it.
func resolve(f *file, tj *trainJob, local []*runtime, opts jobs.ReadOptions, diags *hcl.Diagnostics) (*runtime, *file) {
	if tj.refName == "" {
		return nil, nil // reported by readTrainJob
	}
	var other *runtime
	pick := func(list []*runtime) *runtime {
		for _, rt := range list {
			if rt.name != tj.refName {
				continue
			}
			if rt.kind == tj.refKind {
				return rt
			}
			other = rt
		}
		return nil
	}
	if rt := pick(local); rt != nil {
		return rt, f
	}
	for _, p := range opts.Runtimes {
		rf := newFile(p, opts.Lossy)
		src, err := os.ReadFile(p)
		switch {
		case err != nil:
			*diags = append(*diags, jobs.Errorf(jobs.Pos{File: p}, "Cannot read runtime file", "%v.", err))
			continue
		case len(src) > maxRuntimeFileBytes:
			*diags = append(*diags, jobs.Errorf(jobs.Pos{File: p, Line: 1, Col: 1}, "Runtime file too large", "The file is longer than %d bytes.", maxRuntimeFileBytes))
			continue
		case !bytes.Contains(src, []byte("TrainingRuntime")):
			*diags = append(*diags, jobs.Warnf(jobs.Pos{File: p, Line: 1, Col: 1}, "No training runtime in the file", "The -runtime file holds no TrainingRuntime or ClusterTrainingRuntime."))
			continue
		}
		if rt := pick(rf.runtimes(src)); rt != nil {
			return rt, rf
		}
		*diags = append(*diags, errsOnly(rf.c.Diags)...)
	}
	if tj.refKind == KindClusterRuntime {
		if rt, bf := builtinRuntime(tj.refName, opts.Lossy); rt != nil {
			return rt, bf
		}
	}
	switch {
	case other != nil:
		f.errorf(tj.refNode, "Runtime kind does not match", "runtimeRef names the %s %q, but %q here is a %s (%s). Set runtimeRef.kind: %s.", tj.refKind, tj.refName, tj.refName, other.kind, other.source, other.kind)
	default:
		f.errorf(tj.refNode, "Runtime not found", "The %s %q is not in this file, in a -runtime file or among the built-in runtimes (%s). Add the runtime to the file or pass it with -runtime FILE.", tj.refKind, tj.refName, joinNames(BuiltinNames()))
	}
	return nil, nil
}

func joinNames(ns []string) string {
	var b bytes.Buffer
	for i, n := range ns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

func errsOnly(ds hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range ds {
		if d.Severity == hcl.DiagError {
			out = append(out, d)
		}
	}
	return out
}
