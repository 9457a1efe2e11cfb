package kubeflow

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// kindDoc is a minimal job of kind with one replica type and container.
func kindDoc(kind, field, rtype, container, extra string) string {
	return "apiVersion: kubeflow.org/v1\nkind: " + kind + "\nmetadata:\n  name: j\nspec:\n" + extra + "  " + field + ":\n    " + rtype +
		":\n      template:\n        spec:\n          containers:\n            - name: " + container + "\n              image: python:3.11\n"
}

// TestOtherKindsDefaults: each kind's defaults, from the file named.
func TestOtherKindsDefaults(t *testing.T) {
	cases := map[string]struct {
		source                 string
		src                    string
		restart, label, clean  string
		port                   int
		contract, decider, typ string
	}{
		"XGBoostJob": {"pkg/apis/kubeflow.org/v1/xgboost_types.go, xgboost_defaults.go @v1.9.0",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "Master", "xgboost", "") + "      replicas: 1\n", "Never", "xgboostjob-port", "None", 9999, "xgboost", "", "master"},
		"PaddleJob": {"pkg/apis/kubeflow.org/v1/paddlepaddle_types.go, paddlepaddle_defautls.go @v1.9.0",
			kindDoc("PaddleJob", "paddleReplicaSpecs", "Worker", "paddle", ""), "OnFailure", "master", "None", 36543, "paddle", "", "worker"},
		"JAXJob": {"pkg/apis/kubeflow.org/v1/jax_types.go, jax_defaults.go @v1.9.0",
			kindDoc("JAXJob", "jaxReplicaSpecs", "Worker", "jax", ""), "Never", "jaxjob-port", "None", 6666, "jax", "", "worker"},
		"MXJob": {"pkg/apis/kubeflow.org/v1/mxnet_types.go, mxnet_defaults.go @v1.8.1",
			kindDoc("MXJob", "mxReplicaSpecs", "Scheduler", "mxnet", "  jobMode: MXTrain\n"), "Never", "mxjob-port", "None", 9091, "mxnet", "scheduler", "scheduler"},
		"MXJob replica key in any case": {"setTypeNameToCamelCase, mxnet_defaults.go @v1.8.1",
			kindDoc("MXJob", "mxReplicaSpecs", "worker", "mxnet", "  jobMode: MXTrain\n"), "Never", "mxjob-port", "None", 9091, "mxnet", "scheduler", "worker"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := Read([]byte(c.src), jobs.ReadOptions{Path: "k.yaml"})
			if diags.HasErrors() || job == nil {
				t.Fatalf("%s: %v", c.source, diags)
			}
			r := job.Roles[0]
			if r.ReplicaType != c.typ || r.RestartPolicy != c.restart || job.Retry.CleanPodPolicy != c.clean || job.Contracts[0] != c.contract || job.Completion.Decider != c.decider {
				t.Errorf("%s: type %q restart %q clean %q contracts %v decider %q", c.source, r.ReplicaType, r.RestartPolicy, job.Retry.CleanPodPolicy, job.Contracts, job.Completion.Decider)
			}
			if len(r.Ports) != 1 || r.Ports[0].Label != c.label || r.Ports[0].Number != c.port || !r.Ports[0].Implicit {
				t.Errorf("%s: ports %+v, want implicit %s %d", c.source, r.Ports, c.label, c.port)
			}
		})
	}
}

// TestOtherKindsRefusals: what each webhook (validation) refused is an
// error here, located.
func TestOtherKindsRefusals(t *testing.T) {
	cases := map[string]struct {
		source, src, summary string
	}{
		"XGBoostJob without Master": {"pkg/webhooks/xgboost/xgboostjob_webhook.go validateXGBReplicaSpecs @v1.9.0 (Master must be present)",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "Worker", "xgboost", ""), "Missing Master"},
		"XGBoostJob Master replicas unset": {"xgboostjob_webhook.go @v1.9.0 (rSpec.Replicas == nil ⇒ must be 1)",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "Master", "xgboost", ""), "Master replicas not set"},
		"XGBoostJob container name": {"xgboostjob_webhook.go @v1.9.0 (a container named xgboost)",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "Master", "main", "") + "      replicas: 1\n", "No container named xgboost"},
		"PaddleJob unknown type": {"pkg/webhooks/paddlepaddle/paddlepaddle_webhook.go validateSpec @v1.9.0 (Master, Worker only)",
			kindDoc("PaddleJob", "paddleReplicaSpecs", "PS", "paddle", ""), "Unknown replica type"},
		"PaddleJob container name": {"paddlepaddle_webhook.go @v1.9.0 (a container named paddle)",
			kindDoc("PaddleJob", "paddleReplicaSpecs", "Worker", "main", ""), "No container named paddle"},
		"JAXJob Master": {"pkg/webhooks/jax/jaxjob_webhook.go validateJAXReplicaSpecs @v1.9.0 (Worker only)",
			kindDoc("JAXJob", "jaxReplicaSpecs", "Master", "jax", ""), "Unknown replica type"},
		"JAXJob name": {"jaxjob_webhook.go @v1.9.0 NameIsDNS1035Label",
			strings.Replace(kindDoc("JAXJob", "jaxReplicaSpecs", "Worker", "jax", ""), "name: j\n", "name: 1jax\n", 1), "Job name is not a DNS label"},
		"MXJob container name": {"pkg/apis/kubeflow.org/v1/mxnet_validation.go @v1.8.1 (a container named mxnet)",
			kindDoc("MXJob", "mxReplicaSpecs", "Worker", "main", "  jobMode: MXTrain\n"), "No container named mxnet"},
		"MXJob jobMode": {"mxnet_types.go @v1.8.1 JobModeType MXTrain | MXTune",
			kindDoc("MXJob", "mxReplicaSpecs", "Worker", "mxnet", "  jobMode: dist\n"), "Invalid jobMode"},
		"XGBoostJob managedBy": {"pkg/common/util/webhooks.go ValidateRunPolicy @v1.9.0 (xgboostjob_webhook_test.go \"unsupported managedBy\")",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "Master", "xgboost", "  runPolicy:\n    managedBy: other-controller\n") + "      replicas: 1\n", "Unsupported managedBy"},
		"PaddleJob managedBy": {"ValidateRunPolicy @v1.9.0 (paddlepaddle_webhook_test.go \"unsupported managedBy\")",
			kindDoc("PaddleJob", "paddleReplicaSpecs", "Worker", "paddle", "  runPolicy:\n    managedBy: other-controller\n"), "Unsupported managedBy"},
		"PaddleFlow's PaddleJob": {"batch.paddlepaddle.org is another operator's API",
			strings.Replace(kindDoc("PaddleJob", "paddleReplicaSpecs", "Worker", "paddle", ""), "kubeflow.org/v1", "batch.paddlepaddle.org/v1", 1), "Not a training-operator PaddleJob"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := Read([]byte(c.src), jobs.ReadOptions{Path: "k.yaml"})
			for _, d := range diags {
				if d.Summary == c.summary && d.Subject != nil && d.Subject.Start.Line > 0 {
					return
				}
			}
			t.Errorf("%s: want a located error %q, got %v", c.source, c.summary, diags)
		})
	}
}

// TestForeignTrainingKind: a Ray or Spark job is called a training job
// jobshift cannot run, not configuration.
func TestForeignTrainingKind(t *testing.T) {
	src := "apiVersion: kubeflow.org/v1\nkind: DeepSpeedJob\nmetadata:\n  name: x\n"
	_, diags := Read([]byte(src), jobs.ReadOptions{Path: "k.yaml"})
	got := formatDiags(diags)
	if !strings.Contains(got, "Training job jobshift cannot run") || strings.Contains(got, "storage, permissions, configuration") {
		t.Errorf("diagnostics:\n%s", got)
	}
}
