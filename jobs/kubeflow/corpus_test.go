package kubeflow

import (
	"github.com/jobshift/jobshift/internal/testcorpus"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// corpusInvalid are the files the corpus README calls invalid, with the
// summary of the error that must explain why.
var corpusInvalid = map[string]string{
	"tfjob/kubeflow-examples__object_detection-distributed_training-conf-pets-training.yaml": "Invalid YAML",
	"tfjob/EastAsia666-mnist_example__tf_job_mnist.yaml":                                     "Replica type missing",
	"tfjob/kubeflow-training-operator__test-e2e-tf_job_setup_failure.yaml":                   "Empty tensorboard.logDir",
	"pytorchjob/TylrDn-pytorch-ddp-nccl-distributed__k8s-pytorchjob.yaml":                    "No YAML document",
	// Not called invalid by the README, but a kustomize base: its name is
	// the placeholder $(trainingName), which Kubernetes rejects as is.
	"tfjob/kubeflow-examples__mnist-training-base-Chief.yaml": "Unrendered placeholder in the job name",
	// v1alpha1 `gpus: 16` without gpusPerNode: the worker count came from
	// the operator's --gpus-per-node flag, which the file does not carry.
	"mpijob/kubeflow-mpi-operator__examples-v1alpha1-tensorflow-benchmarks.yaml": "Worker count left to the operator",
	// The kubebuilder scaffold of training-operator's config samples: spec
	// is `foo: bar`, no replica specs (the webhook's "must be required").
	"xgboostjob/kubeflow-training-operator@e26fcc51__config-samples-kubeflow.org_v1_xgboostjob.yaml": "Missing xgbReplicaSpecs",
	// Other operators' APIs of the same kind name: PaddleFlow's
	// paddle-operator (batch.paddlepaddle.org/v1, ps/worker keys) and the
	// 2018 mxnet-operator (kubeflow.org/v1alpha1, jobMode dist).
	"paddlejob/PaddleFlow-paddle-operator@heter__deploy-heter-collective.yaml":         "Not a training-operator PaddleJob",
	"paddlejob/PaddleFlow-paddle-operator__deploy-elastic-resnet.yaml":                 "Not a training-operator PaddleJob",
	"paddlejob/PaddleFlow-paddle-operator__deploy-examples-wide_and_deep_volcano.yaml": "Not a training-operator PaddleJob",
	"mxjob/TuSimple-mxnet-operator__examples-mx_job_dist.yaml":                         "Not a training-operator MXJob",
}

// TestCorpus reads every TFJob, PyTorchJob and MPIJob file of the corpus:
// never a panic; every file yields a job or located errors; the invalid
// ones fail for the documented reason. Read with -lossy, every valid
// TFJob/PyTorchJob/MPIJob must convert.
func TestCorpus(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, folder := range []string{"tfjob", "pytorchjob", "mpijob", "xgboostjob", "paddlejob", "jaxjob", "mxjob"} {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*"))
		if len(files) == 0 {
			t.Errorf("%s: no files", folder)
		}
		var converted, warned, failed, lossyOK int
		for _, f := range files {
			rel := folder + "/" + filepath.Base(f)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !IsKubeflow(src) {
				t.Errorf("%s: IsKubeflow = false", rel)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: rel})
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Start.Line < 1 {
					t.Errorf("%s: diagnostic without position: %s", rel, d.Summary)
				}
			}
			switch {
			case diags.HasErrors():
				failed++
			case len(diags) > 0:
				warned++
			default:
				converted++
			}
			if !diags.HasErrors() && job == nil {
				t.Errorf("%s: no job and no error", rel)
			}
			if want, bad := corpusInvalid[rel]; bad {
				if !hasError(diags, want) {
					t.Errorf("%s: want error %q, got:\n%s", rel, want, formatDiags(diags))
				}
				continue
			}
			ljob, ldiags := Read(src, jobs.ReadOptions{Path: rel, Lossy: true})
			if ldiags.HasErrors() || ljob == nil || len(ljob.Roles) == 0 {
				t.Errorf("%s: does not convert even with -lossy:\n%s", rel, formatDiags(ldiags))
			} else {
				lossyOK++
			}
			if testing.Verbose() {
				t.Logf("%s:\n%s", rel, formatDiags(diags))
			}
		}
		t.Logf("%s: %d files: %d converted clean, %d with warnings only, %d with errors (%d of the valid ones convert with -lossy)",
			folder, len(files), converted, warned, failed, lossyOK)
	}
}

func hasError(diags hcl.Diagnostics, summary string) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && strings.Contains(d.Summary, summary) {
			return true
		}
	}
	return false
}

// roleFacts is what TestCorpusFacts pins per role.
type roleFacts struct {
	Name      string
	Instances int
	Restart   string
	GPU       int
	CPUMilli  int64
	MemoryMiB int64
	Port      int // number of the operator's port (tfjob-port / pytorchjob-port)
	Argv      []string
}

// TestCorpusFacts pins what real files say, checked by hand against the
// files (see the comments), read with -lossy so that PVCs and secrets do not
// hide the rest.
func TestCorpusFacts(t *testing.T) {
	dir := testcorpus.Dir(t)
	tests := map[string]struct {
		name  string
		clean string
		roles []roleFacts
	}{
		// PVC + TFJob v1alpha2: Master 1, Worker 20, PS 1 (PS declares an
		// unnamed 6006), replica restartPolicy absent → Never.
		"tfjob/inc0-github_issue__tfjob.yaml": {"github", "Running", []roleFacts{
			{"master", 1, "Never", 0, 0, 0, 2222, []string{"python", "/issues/train.py"}},
			{"worker", 20, "Never", 0, 0, 0, 2222, []string{"python", "/issues/train.py"}},
			{"ps", 1, "Never", 0, 0, 0, 2222, []string{"python", "/issues/train.py"}},
		}},
		// mlkube.io 2017 TfJob with snake_case keys, tf_port 2222 given.
		"tfjob/kubeflow-training-operator@c243a805__examples-tf_job.yaml": {"example-job", "", []roleFacts{
			{"master", 1, "OnFailure", 0, 0, 0, 2222, nil},
			{"worker", 1, "OnFailure", 0, 0, 0, 2222, nil},
		}},
		// Mixed-case "Ps" key without replicas; template restartPolicy
		// OnFailure is overridden by the replica default Never.
		"tfjob/ankushagarwal-oscondemo__tfjob.yaml": {"ankushagarwal-job", "Running", []roleFacts{
			{"ps", 1, "Never", 0, 0, 0, 2222, []string{"python", "tf_cnn_benchmarks.py", "--batch_size=32", "--model=resnet50", "--variable_update=parameter_server", "--flush_stdout=true", "--num_gpus=1", "--local_parameter_device=cpu", "--device=cpu", "--data_format=NHWC"}},
			{"worker", 1, "Never", 0, 0, 0, 2222, []string{"python", "tf_cnn_benchmarks.py", "--batch_size=32", "--model=resnet50", "--variable_update=parameter_server", "--flush_stdout=true", "--num_gpus=1", "--local_parameter_device=cpu", "--device=cpu", "--data_format=NHWC"}},
		}},
		// Kueue sample: requests only (cpu 1, memory 200Mi).
		"tfjob/kubernetes-sigs-kueue__site-static-examples-jobs-sample-tfjob.yaml": {"tensorflow-dist-mnist", "None", []roleFacts{
			{"ps", 1, "Never", 0, 1000, 200, 2222, nil},
			{"worker", 2, "Never", 0, 1000, 200, 2222, nil},
		}},
		// Worker-only, 3 GPUs with odd indentation under resources.
		"tfjob/heyselbi-rhods-tf-multi-node__references-tfjob-mnist.yaml": {"tfjob-multi", "Running", []roleFacts{
			{"worker", 2, "Never", 3, 0, 0, 2222, []string{"python3", "/home/mnist/src/main.py"}},
		}},
		// Explicit pytorchjob-port 24456 on both replicas; GPU 1.
		"pytorchjob/kubeflow-pytorch-operator__examples-bert-pytorch_job_bert.yaml": {"pytorch-job-bert", "None", []roleFacts{
			{"master", 1, "OnFailure", 1, 0, 0, 24456, []string{"--gpus", "-1", "--accelerator", "ddp", "--num_nodes", "2"}},
			{"worker", 1, "OnFailure", 1, 0, 0, 24456, []string{"--gpus", "-1", "--accelerator", "ddp", "--num_nodes", "2"}},
		}},
		// limits cpu 2 / memory 2Gi win over requests 1 / 1Gi; the empty
		// "--gpus=" value survives.
		"pytorchjob/deinal-kubeflow-v1beta1__pytorchjob.yaml": {"g", "None", []roleFacts{
			{"master", 1, "Never", 0, 2000, 2048, 23456, []string{"python", "train.py", "--gpus=", "--num-workers=1", "--regression-mode",
				"--s3-endpoint=https://s3.cern.ch", "--data-train=jec-data/001.root", "--data-val=jec-data/002.root", "--data-test=jec-data/003.root",
				"--network-config=networks/pfn_regressor.py", "--data-config=data/jec_pfn.yaml", "--model-prefix=outputs/net",
				"--log=logs/{auto}.log", "--start-lr=5e-3", "--optimizer=ranger", "--num-epochs=1", "--batch-size=100", "--data-fraction=0.001"}},
		}},
		// training-operator v1.9.0's LightGBM example: Master Never, Worker
		// ExitCode ×2, both with xgboostjob-port 9991; args only.
		"xgboostjob/kubeflow-training-operator@v1.9.0__examples-xgboost-lightgbm-dist-xgboostjob_v1_lightgbm_dist_training.yaml": {"lightgbm-dist-train-test", "None", []roleFacts{
			{"master", 1, "Never", 0, 0, 0, 9991, lightgbmArgs},
			{"worker", 2, "ExitCode", 0, 0, 0, 9991, lightgbmArgs},
		}},
		// v1.9.0's JAX example: Worker ×2 OnFailure, no port (the default
		// jaxjob-port 6666), the image's entrypoint.
		"jaxjob/kubeflow-training-operator@v1.9.0__examples-jax-jax-dist-spmd-mnist-jaxjob_dist_spmd_mnist_gloo.yaml": {"jaxjob-mnist", "None", []roleFacts{
			{"worker", 2, "OnFailure", 0, 0, 0, 6666, nil},
		}},
		// v1.8.1's MXNet example: Scheduler, Server, Worker (1 GPU), all
		// Never, mxjob-port 9991.
		"mxjob/kubeflow-training-operator@v1.8.1__examples-mxnet-mxjob_dist_v1.yaml": {"mxnet-job", "None", []roleFacts{
			{"scheduler", 1, "Never", 0, 0, 0, 9991, nil},
			{"server", 1, "Never", 0, 0, 0, 9991, nil},
			{"worker", 1, "Never", 1, 0, 0, 9991, []string{"python3", "/mxnet/mxnet/example/image-classification/train_mnist.py", "--num-epochs", "10", "--num-layers", "2", "--kv-store", "dist_device_sync", "--gpus", "0"}},
		}},
		// 15 workers × 8 GPUs, literal-block args after bash -c.
		"pytorchjob/redhat-na-ssa-datasci-geddydude__pytorch-job.yaml": {"pytorch-dist-nccl", "None", []roleFacts{
			{"master", 1, "Never", 8, 0, 0, 23456, []string{"/bin/bash", "-c", "# sample pytorch+nccl job\n/workspace/torch_launch.sh ddp/train_elastic.py\n# sleep to exec to bash for debugging\n#sleep infinity\n"}},
			{"worker", 15, "Never", 8, 0, 0, 23456, []string{"/bin/bash", "-c", "# sample pytorch+nccl job\n/workspace/torch_launch.sh ddp/train_elastic.py\n# sleep to exec to bash for debugging\n#sleep infinity\n"}},
		}},
	}
	for rel, tc := range tests {
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: rel, Lossy: true})
			if diags.HasErrors() || job == nil {
				t.Fatalf("errors:\n%s", formatDiags(diags))
			}
			var got []roleFacts
			for _, r := range job.Roles {
				f := roleFacts{r.Name, r.Instances, r.RestartPolicy, r.Resources.GPU, r.Resources.CPUMilli, r.Resources.MemoryMiB, 0, append(append([]string(nil), r.Command.Command...), r.Command.Args...)}
				for _, p := range r.Ports {
					switch p.Label {
					case "tfjob-port", "pytorchjob-port", "xgboostjob-port", "jaxjob-port", "mxjob-port":
						f.Port = p.Number
					}
				}
				if len(f.Argv) == 0 {
					f.Argv = nil
				}
				got = append(got, f)
			}
			if job.Name != tc.name || job.Retry.CleanPodPolicy != tc.clean {
				t.Errorf("name %q clean %q, want %q %q", job.Name, job.Retry.CleanPodPolicy, tc.name, tc.clean)
			}
			if diff := cmp.Diff(tc.roles, got); diff != "" {
				t.Errorf("roles (-want +got):\n%s", diff)
			}
		})
	}
}

// lightgbmArgs are the LightGBM example's args (both replicas).
var lightgbmArgs = []string{"--job_type=Train", "--boosting_type=gbdt", "--objective=binary", "--metric=binary_logloss,auc", "--metric_freq=1",
	"--is_training_metric=true", "--max_bin=255", "--data=data/binary.train", "--valid_data=data/binary.test", "--num_trees=100",
	"--learning_rate=01", "--num_leaves=63", "--tree_learner=feature", "--feature_fraction=0.8", "--bagging_freq=5", "--bagging_fraction=0.8",
	"--min_data_in_leaf=50", "--min_sum_hessian_in_leaf=50", "--is_enable_sparse=true", "--use_two_round_loading=false", "--is_save_binary_file=false"}
