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
		"XGBoostJob managedBy": {"pkg/common/util/webhooks.go ValidateRunPolicy @v1.9.0 (xgboostjob_webhook_test.go \"unsupported managedBy\")",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "Master", "xgboost", "  runPolicy:\n    managedBy: other-controller\n") + "      replicas: 1\n", "Unsupported managedBy"},
		"PaddleJob managedBy": {"ValidateRunPolicy @v1.9.0 (paddlepaddle_webhook_test.go \"unsupported managedBy\")",
			kindDoc("PaddleJob", "paddleReplicaSpecs", "Worker", "paddle", "  runPolicy:\n    managedBy: other-controller\n"), "Unsupported managedBy"},
		"XGBoostJob master in lower case": {"pkg/webhooks/xgboost/xgboostjob_webhook.go validateXGBReplicaSpecs @v1.9.0 (slices.Contains: keys compared exactly, before defaulting)",
			kindDoc("XGBoostJob", "xgbReplicaSpecs", "master", "xgboost", "") + "      replicas: 1\n", "Replica type in the wrong case"},
		"PaddleJob WORKER": {"pkg/webhooks/paddlepaddle/paddlepaddle_webhook.go validateSpec @v1.9.0 (slices.Contains)",
			kindDoc("PaddleJob", "paddleReplicaSpecs", "WORKER", "paddle", ""), "Replica type in the wrong case"},
		"JAXJob worker": {"pkg/webhooks/jax/jaxjob_webhook.go validateJAXReplicaSpecs @v1.9.0 (slices.Contains)",
			kindDoc("JAXJob", "jaxReplicaSpecs", "worker", "jax", ""), "Replica type in the wrong case"},
		"MXJob tuner twice": {"mxnet_defaults.go @v1.8.1 (the tuner types are not camel-cased: tuner and Tuner are two types, one MX_CONFIG key)",
			mxTwoKeys("tuner", "1", "Tuner", "2"), "Replica type given twice"},
		"MXJob worker and WORKER": {"defaulting_utils.go setTypeNameToCamelCase @v1.8.1 (the first variant map iteration meets wins: by chance)",
			mxTwoKeys("worker", "1", "WORKER", "2"), "Replica type given twice"},
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

// mxTwoKeys is an MXJob with a Scheduler and two replica keys of the given
// replicas.
func mxTwoKeys(a, an, b, bn string) string {
	spec := func(key, n string) string {
		return "    " + key + ":\n      replicas: " + n + "\n      template:\n        spec:\n          containers:\n            - name: mxnet\n              image: python:3.11\n"
	}
	return "apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata:\n  name: j\nspec:\n  jobMode: MXTrain\n  mxReplicaSpecs:\n" +
		spec("Scheduler", "1") + spec(a, an) + spec(b, bn)
}

// TestMXJobReplicaKeys: what MXJob @v1.8.1 accepted (no webhook check of
// types; SetDefaults_MXJob camel-cases Scheduler, Server, Worker) is read.
func TestMXJobReplicaKeys(t *testing.T) {
	cases := map[string]struct {
		source, src string
		role        string
		instances   int
		warning     string
	}{
		"SCHEDULER is the Scheduler": {"defaulting_utils.go setTypeNameToCamelCase, mxnet_defaults.go @v1.8.1",
			kindDoc("MXJob", "mxReplicaSpecs", "SCHEDULER", "mxnet", "  jobMode: MXTrain\n"), "scheduler", 1, ""},
		"worker after Worker replaces it": {"setTypeNameToCamelCase @v1.8.1 (delete(worker); specs[Worker] = worker's spec)",
			mxTwoKeys("Worker", "1", "worker", "3"), "worker", 3, "Replica type given twice"},
		"worker before Worker still wins": {"setTypeNameToCamelCase @v1.8.1",
			mxTwoKeys("worker", "3", "Worker", "1"), "worker", 3, "Replica type given twice"},
		"two Scheduler replicas": {"mxnet_validation.go validateMXReplicaSpecs @v1.8.1 (foundScheduler counts keys)",
			strings.Replace(kindDoc("MXJob", "mxReplicaSpecs", "Scheduler", "mxnet", "  jobMode: MXTrain\n"), "    Scheduler:\n", "    Scheduler:\n      replicas: 2\n", 1), "scheduler", 2, "More than one Scheduler"},
		"a tuner type as written": {"mxnet_defaults.go @v1.8.1 (TunerTracker not camel-cased; MX_CONFIG lower-cases it)",
			kindDoc("MXJob", "mxReplicaSpecs", "tunertracker", "mxnet", "  jobMode: MXTune\n"), "tunertracker", 1, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := Read([]byte(c.src), jobs.ReadOptions{Path: "k.yaml"})
			if diags.HasErrors() || job == nil {
				t.Fatalf("%s: %v", c.source, diags)
			}
			r := job.Role(c.role)
			if r == nil || r.Instances != c.instances {
				t.Fatalf("%s: role %s = %+v, want %d instances", c.source, c.role, r, c.instances)
			}
			n := 0
			for _, o := range job.Roles {
				if o.Name == c.role {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: %d roles named %s", c.source, n, c.role)
			}
			if c.warning == "" {
				return
			}
			for _, d := range diags {
				if d.Summary == c.warning && d.Subject != nil && d.Subject.Start.Line > 0 {
					return
				}
			}
			t.Errorf("%s: want a located warning %q, got %v", c.source, c.warning, diags)
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
