package load

import (
	"fmt"
	"github.com/jobshift/jobshift/internal/testcorpus"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// mustFail are the corpus files that must yield an error: the ones the
// corpus README calls invalid (not valid YAML, no document, semantically
// invalid), the pre-standard `protocol_version: v2` file (issue 2: a clear
// "unsupported" diagnostic), and the v1alpha1 MPIJob sized by the operator's flag.
// The duplicate-key PyTorchJob file is not listed: the README allows "a
// clear error or a documented fallback" for it.
var mustFail = map[string]string{
	"pai-v2/microsoft-pai__docs-pai-job-protocol.yaml":                                               "not valid YAML (schema sketch)",
	"pai-v2/microsoft-pai__contrib-api-stress-test-roles-locust-config-files-job.yml":                "not valid YAML (mustache)",
	"tfjob/kubeflow-examples__object_detection-distributed_training-conf-pets-training.yaml":         "not valid YAML (bad indentation)",
	"pytorchjob/TylrDn-pytorch-ddp-nccl-distributed__k8s-pytorchjob.yaml":                            "no YAML document",
	"tfjob/EastAsia666-mnist_example__tf_job_mnist.yaml":                                             "semantically invalid",
	"tfjob/kubeflow-training-operator__test-e2e-tf_job_setup_failure.yaml":                           "semantically invalid",
	"pai-v2/microsoft-openpai-runtime__test-git_repo_test_job.yaml":                                  "undeclared prerequisites",
	"pai-v2/microsoft-pai__marketplace-job-pytorch_mnist.yaml":                                       "pre-standard protocol_version: v2",
	"mpijob/kubeflow-mpi-operator__examples-v1alpha1-tensorflow-benchmarks.yaml":                     "gpus without gpusPerNode (the operator's flag decided the worker count)",
	"volcano/volcano-sh-volcano__example-invalid_jobs-duplicatedTaskName-webhook-deny.yaml":          "Volcano's webhook denies it (duplicated task name)",
	"xgboostjob/kubeflow-training-operator@e26fcc51__config-samples-kubeflow.org_v1_xgboostjob.yaml": "kubebuilder scaffold: no xgbReplicaSpecs",
	"paddlejob/*": "PaddleFlow's paddle-operator API (batch.paddlepaddle.org/v1), not training-operator's",
	"mxjob/TuSimple-mxnet-operator__examples-mx_job_dist.yaml": "the 2018 mxnet-operator's v1alpha1 (jobMode dist, replicaSpecs list)",
}

func expectFailure(rel string) (string, bool) {
	if why, ok := mustFail[rel]; ok {
		return why, true
	}
	why, ok := mustFail[filepath.Dir(rel)+"/*"]
	return why, ok
}

type tally struct{ ok, warned, failed, lossy int }

// TestCorpusSweep reads every file of the shared corpus. Every file must
// give a job or located errors, never a panic; the files known to be
// invalid must give errors. The per-folder table is logged (go test -v).
func TestCorpusSweep(t *testing.T) {
	root := testcorpus.Dir(t)
	if root == "" {
		t.Skip("corpus not found at <repo root>/../shared/corpus")
	}
	folders, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]*tally{}
	var failures []string
	for _, folder := range folders {
		if !folder.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, folder.Name()))
		if err != nil {
			t.Fatal(err)
		}
		c := &tally{}
		counts[folder.Name()] = c
		for _, f := range files {
			rel := folder.Name() + "/" + f.Name()
			path := filepath.Join(root, rel)
			job, diags := Load(path, jobs.ReadOptions{})
			checkLocated(t, rel, diags)
			why, mustErr := expectFailure(rel)
			switch {
			case diags.HasErrors():
				c.failed++
				// -lossy may only turn "dropped content" errors into
				// warnings: an invalid file stays invalid.
				lj, ld := Load(path, jobs.ReadOptions{Lossy: true})
				checkLocated(t, rel, ld)
				lossy := ""
				if !ld.HasErrors() && lj != nil {
					c.lossy++
					lossy = " (converts with -lossy)"
					if mustErr {
						t.Errorf("%s: reads without error with -lossy, but it must fail (%s)", rel, why)
					}
				}
				failures = append(failures, fmt.Sprintf("%s: %s%s", rel, firstError(diags), lossy))
			case job == nil:
				t.Errorf("%s: no job and no error", rel)
			default:
				if mustErr {
					t.Errorf("%s: read without error, but it must fail (%s)", rel, why)
				}
				checkJob(t, rel, job)
				if _, d := translate.Build(job, nil, nil, "u"); d.HasErrors() {
					// A volume the command uses that no site rule maps:
					// refused here (no site config), fine with -lossy.
					lj, _ := Load(path, jobs.ReadOptions{Lossy: true})
					if !onlyUnmappedVolumes(d) || lj == nil {
						t.Errorf("%s: translate.Build: %s", rel, d.Error())
					} else if _, ld := translate.Build(lj, nil, nil, "u"); ld.HasErrors() {
						t.Errorf("%s: translate.Build with -lossy: %s", rel, ld.Error())
					}
					c.failed++
					c.lossy++
					failures = append(failures, fmt.Sprintf("%s: %s (converts with -lossy, or with a site volume rule)", rel, firstError(d)))
					continue
				}
				if len(diags) > 0 {
					c.warned++
				} else {
					c.ok++
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-12s %9s %14s %7s %23s\n", "folder", "converted", "with warnings", "failed", "of which ok with -lossy")
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var total tally
	for _, n := range names {
		c := counts[n]
		fmt.Fprintf(&b, "%-12s %9d %14d %7d %23d\n", n, c.ok, c.warned, c.failed, c.lossy)
		total.ok, total.warned, total.failed, total.lossy = total.ok+c.ok, total.warned+c.warned, total.failed+c.failed, total.lossy+c.lossy
	}
	fmt.Fprintf(&b, "%-12s %9d %14d %7d %23d\n", "total", total.ok, total.warned, total.failed, total.lossy)
	b.WriteString("\nfailed files (first error):\n")
	for _, f := range failures {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	t.Log(b.String())
}

// checkLocated: every error has a file and a line; a reader panic is a
// test failure, not a diagnostic to count.
func checkLocated(t *testing.T, rel string, diags hcl.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		if d.Summary == InternalErrorSummary {
			t.Errorf("%s: %s: %s", rel, d.Summary, d.Detail)
			continue
		}
		located := d.Subject != nil && d.Subject.Filename != "" && d.Subject.Start.Line >= 1
		switch {
		case located:
		case d.Severity == hcl.DiagError:
			t.Errorf("%s: error without file:line: %s: %s", rel, d.Summary, d.Detail)
		default:
			// Warnings should be located too, but the requirement is on
			// errors; list the exceptions so they can be fixed.
			t.Logf("%s: warning without file:line: %s", rel, d.Summary)
		}
	}
}

// checkJob holds invariants every job must satisfy whatever its format.
func checkJob(t *testing.T, rel string, job *jobs.Job) {
	t.Helper()
	if len(job.Roles) == 0 {
		t.Errorf("%s: job without roles", rel)
	}
	if job.Source.Format == "" {
		t.Errorf("%s: job without a source format", rel)
	}
	for _, r := range job.Roles {
		if r.Name == "" || r.Instances < 0 {
			t.Errorf("%s: role %q with %d instances", rel, r.Name, r.Instances)
		}
	}
}

func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			pos := ""
			if d.Subject != nil {
				pos = fmt.Sprintf("%d:%d: ", d.Subject.Start.Line, d.Subject.Start.Column)
			}
			return pos + d.Summary
		}
	}
	return ""
}

// onlyUnmappedVolumes: every error is translate.Build's refusal of a
// volume no site rule maps.
func onlyUnmappedVolumes(d hcl.Diagnostics) bool {
	for _, e := range d.Errs() {
		if de, ok := e.(*hcl.Diagnostic); !ok || de.Summary != "Volume without a site rule" {
			return false
		}
	}
	return true
}
