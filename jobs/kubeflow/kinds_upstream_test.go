package kubeflow

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// kindSpecDoc is a job of kind with one replica type whose replica spec
// body (indented six spaces) is given.
func kindSpecDoc(kind, name, field, rtype, body, extra string) string {
	return "apiVersion: kubeflow.org/v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec:\n" + extra + "  " + field + ":\n    " + rtype + ":\n" + body
}

// container is a replica spec body with one container.
func container(name, image, ports, extra string) string {
	c := extra + "      template:\n        spec:\n          containers:\n            - name: " + name + "\n"
	if image != "" {
		c += "              image: " + image + "\n"
	}
	return c + ports
}

// TestOtherKindsWebhookCases are the cases of each kind's validating
// webhook test (training-operator v1.9.0), written as job files: a refused
// job is an error here, located; a valid one reads without errors.
func TestOtherKindsWebhookCases(t *testing.T) {
	xgbMaster := container("xgboost", "python:3.11", "", "      replicas: 1\n")
	cases := map[string]struct {
		source, src, summary string // summary "" = valid
	}{
		"xgboost valid": {"pkg/webhooks/xgboost/xgboostjob_webhook_test.go \"valid XGBoostJob\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", xgbMaster, ""), ""},
		"xgboost name -test": {"xgboostjob_webhook_test.go \"XGBoostJob name does not meet DNS1035\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "-test", "xgbReplicaSpecs", "Master", xgbMaster, ""), "Invalid job name"},
		"xgboost name 1test": {"xgboostjob_webhook.go validateXGBoostJob @v1.9.0 NameIsDNS1035Label (a letter first)",
			kindSpecDoc("XGBoostJob", "1test", "xgbReplicaSpecs", "Master", xgbMaster, ""), "Job name is not a DNS label"},
		"xgboost name with a dot": {"xgboostjob_webhook.go validateXGBoostJob @v1.9.0 NameIsDNS1035Label (no dots)",
			kindSpecDoc("XGBoostJob", "a.b", "xgbReplicaSpecs", "Master", xgbMaster, ""), "Job name is not a DNS label"},
		"paddle name 1test": {"paddlepaddle_webhook.go validatePaddleJob @v1.9.0 NameIsDNS1035Label",
			kindSpecDoc("PaddleJob", "1test", "paddleReplicaSpecs", "Worker", container("paddle", "python:3.11", "", ""), ""), "Job name is not a DNS label"},
		"xgboost empty containers": {"xgboostjob_webhook_test.go \"empty containers\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", "      replicas: 1\n      template:\n        spec:\n          containers: []\n", ""), "No container"},
		"xgboost image empty": {"xgboostjob_webhook_test.go \"image is empty\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", container("xgboost", "", "", "      replicas: 1\n"), ""), "Missing image"},
		"xgboost default container absent": {"xgboostjob_webhook_test.go \"xgboostJob default container name doesn't present\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", container("", "python:3.11", "", "      replicas: 1\n"), ""), "No container named xgboost"},
		"xgboost master replicas 2": {"xgboostjob_webhook_test.go \"the number of replicas in masterReplica is other than 1\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", container("xgboost", "python:3.11", "", "      replicas: 2\n"), ""), "Master must have one replica"},
		"xgboost no master": {"xgboostjob_webhook_test.go \"masterReplica does not exist\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Worker", xgbMaster, ""), "Missing Master"},
		"xgboost managedBy": {"xgboostjob_webhook_test.go \"attempt to set unsupported managedBy controller name gets rejected\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", xgbMaster, "  runPolicy:\n    managedBy: other-job-controller\n"), "Unsupported managedBy"},
		"xgboost managedBy multikueue": {"pkg/common/util/webhooks.go ValidateRunPolicy @v1.9.0 (MultiKueueController accepted)",
			kindSpecDoc("XGBoostJob", "test", "xgbReplicaSpecs", "Master", xgbMaster, "  runPolicy:\n    managedBy: kueue.x-k8s.io/multikueue\n"), ""},

		"paddle valid": {"pkg/webhooks/paddlepaddle/paddlepaddle_webhook_test.go \"valid paddleJob\" @v1.9.0",
			kindSpecDoc("PaddleJob", "test", "paddleReplicaSpecs", "Worker", container("paddle", "python:3.11", "", ""), ""), ""},
		"paddle name -test": {"paddlepaddle_webhook_test.go \"paddleJob name does not meet DNS1035\" @v1.9.0",
			kindSpecDoc("PaddleJob", "-test", "paddleReplicaSpecs", "Worker", container("paddle", "python:3.11", "", ""), ""), "Invalid job name"},
		"paddle no containers": {"paddlepaddle_webhook_test.go \"no containers\" @v1.9.0",
			kindSpecDoc("PaddleJob", "test", "paddleReplicaSpecs", "Worker", "      template:\n        spec:\n          containers: []\n", ""), "No container"},
		"paddle image empty": {"paddlepaddle_webhook_test.go \"image is empty\" @v1.9.0",
			kindSpecDoc("PaddleJob", "test", "paddleReplicaSpecs", "Worker", container("paddle", "", "", ""), ""), "Missing image"},
		"paddle default container absent": {"paddlepaddle_webhook_test.go \"paddle default container name doesn't find\" @v1.9.0",
			kindSpecDoc("PaddleJob", "test", "paddleReplicaSpecs", "Worker", container("other", "python:3.11", "", ""), ""), "No container named paddle"},
		"paddle replicaSpecs nil": {"paddlepaddle_webhook_test.go \"replicaSpec is nil\" @v1.9.0",
			"apiVersion: kubeflow.org/v1\nkind: PaddleJob\nmetadata:\n  name: test\nspec:\n  paddleReplicaSpecs: null\n", "Missing paddleReplicaSpecs"},
		"paddle managedBy": {"paddlepaddle_webhook_test.go \"attempt to set unsupported managedBy controller name gets rejected\" @v1.9.0",
			kindSpecDoc("PaddleJob", "test", "paddleReplicaSpecs", "Worker", container("paddle", "python:3.11", "", ""), "  runPolicy:\n    managedBy: other-job-controller\n"), "Unsupported managedBy"},

		"jax valid": {"pkg/webhooks/jax/jaxjob_webhook_test.go \"valid JAXJob\" @v1.9.0",
			kindSpecDoc("JAXJob", "test", "jaxReplicaSpecs", "Worker", container("jax", "python:3.11", "", ""), ""), ""},
		"jax name -test": {"jaxjob_webhook_test.go \"jaxJob name does not meet DNS1035\" @v1.9.0",
			kindSpecDoc("JAXJob", "-test", "jaxReplicaSpecs", "Worker", container("jax", "python:3.11", "", ""), ""), "Invalid job name"},
		"jax no containers": {"jaxjob_webhook_test.go \"no containers\" @v1.9.0",
			kindSpecDoc("JAXJob", "test", "jaxReplicaSpecs", "Worker", "      template:\n        spec:\n          containers: []\n", ""), "No container"},
		"jax image empty": {"jaxjob_webhook_test.go \"image is empty\" @v1.9.0",
			kindSpecDoc("JAXJob", "test", "jaxReplicaSpecs", "Worker", container("jax", "", "", ""), ""), "Missing image"},
		"jax default container absent": {"jaxjob_webhook_test.go \"jaxJob default container name doesn't present\" @v1.9.0",
			kindSpecDoc("JAXJob", "test", "jaxReplicaSpecs", "Worker", container("other", "python:3.11", "", ""), ""), "No container named jax"},
		"jax replicaSpecs nil": {"jaxjob_webhook_test.go \"replicaSpec is nil\" @v1.9.0",
			"apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata:\n  name: test\nspec:\n  jaxReplicaSpecs: null\n", "Missing jaxReplicaSpecs"},
		"jax managedBy not checked": {"pkg/webhooks/jax/jaxjob_webhook.go validateJAXJob @v1.9.0 (no ValidateRunPolicy)",
			kindSpecDoc("JAXJob", "test", "jaxReplicaSpecs", "Worker", container("jax", "python:3.11", "", ""), "  runPolicy:\n    managedBy: other-job-controller\n"), ""},

		"mxnet replicaSpec without containers": {"pkg/apis/kubeflow.org/v1/mxnet_validation_test.go @v1.8.1 (len(Containers) == 0)",
			kindSpecDoc("MXJob", "test", "mxReplicaSpecs", "Scheduler", "      template:\n        spec:\n          containers: []\n", "  jobMode: MXTrain\n"), "No container"},
		"mxnet image empty": {"mxnet_validation_test.go @v1.8.1 (Image == \"\")",
			kindSpecDoc("MXJob", "test", "mxReplicaSpecs", "Scheduler", container("mxnet", "", "", ""), "  jobMode: MXTrain\n"), "Missing image"},
		"mxnet name": {"mxnet_validation.go ValidateV1MXJob @v1.8.1 NameIsDNS1035Label",
			kindSpecDoc("MXJob", "-test", "mxReplicaSpecs", "Scheduler", container("mxnet", "python:3.11", "", ""), "  jobMode: MXTrain\n"), "Invalid job name"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := Read([]byte(c.src), jobs.ReadOptions{Path: "k.yaml"})
			if c.summary == "" {
				if diags.HasErrors() || job == nil {
					t.Fatalf("%s: valid upstream, got %v", c.source, diags)
				}
				return
			}
			for _, d := range diags {
				if d.Summary == c.summary && d.Severity == hcl.DiagError && d.Subject != nil && d.Subject.Start.Line > 0 {
					return
				}
			}
			t.Errorf("%s: want a located error %q, got %v", c.source, c.summary, diags)
		})
	}
}

// TestOtherKindsDefaultCases are the cases of xgboost_defaults_test.go
// TestSetDefaults_XGBoostJob @v1.9.0 (and the same defaulting of the other
// kinds): replicas, restart policy, port and cleanPodPolicy as given or
// defaulted.
func TestOtherKindsDefaultCases(t *testing.T) {
	port := func(name, n string) string {
		return "              ports:\n                - name: " + name + "\n                  containerPort: " + n + "\n"
	}
	type want struct {
		replicas      int
		restart       string
		ports         string // label=number[*] (* implicit), space-joined
		clean         string
		contractPort  string // the label the contract reads
		contractValue int
	}
	cases := map[string]struct {
		source, src string
		want        want
	}{
		"minimum setting": {"xgboost_defaults_test.go \"set spec with minimum setting\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", "", ""), ""),
			want{1, "Never", "xgboostjob-port=9999*", "None", "xgboostjob-port", 9999}},
		"restart policy given": {"xgboost_defaults_test.go \"Set spec with restart policy\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", "", "      restartPolicy: OnFailure\n"), ""),
			want{1, "OnFailure", "xgboostjob-port=9999*", "None", "xgboostjob-port", 9999}},
		"replicas given": {"xgboost_defaults_test.go \"Set spec with replicas\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", "", "      replicas: 3\n"), ""),
			want{3, "Never", "xgboostjob-port=9999*", "None", "xgboostjob-port", 9999}},
		"default port name and port given": {"xgboost_defaults_test.go \"Set spec with default node port name and port\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", port("xgboostjob-port", "9999"), ""), ""),
			want{1, "Never", "xgboostjob-port=9999", "None", "xgboostjob-port", 9999}},
		"another number under the port name": {"xgboost_defaults_test.go \"Set spec with node port\" @v1.9.0 (hasDefaultPort: the named port is kept)",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", port("xgboostjob-port", "9000"), ""), ""),
			want{1, "Never", "xgboostjob-port=9000", "None", "xgboostjob-port", 9000}},
		"a port of another name: the default is appended": {"xgboost_defaults_test.go expectedXGBoostJob @v1.9.0 (\"port set with custom name\")",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", port("custom", "8000"), ""), ""),
			want{1, "Never", "custom=8000 xgboostjob-port=9999*", "None", "xgboostjob-port", 9999}},
		"cleanPodPolicy given": {"xgboost_defaults_test.go \"set spec with cleanpod policy\" @v1.9.0",
			kindSpecDoc("XGBoostJob", "x", "xgbReplicaSpecs", "Worker", container("xgboost", "python:3.11", "", ""), "  runPolicy:\n    cleanPodPolicy: All\n"),
			want{1, "Never", "xgboostjob-port=9999*", "All", "xgboostjob-port", 9999}},
		"paddle port of another name": {"paddlepaddle_defautls.go setPaddleJobDefaultPort @v1.9.0 (hasDefaultPort by name \"master\")",
			kindSpecDoc("PaddleJob", "x", "paddleReplicaSpecs", "Worker", container("paddle", "python:3.11", port("custom", "8000"), ""), ""),
			want{1, "OnFailure", "custom=8000 master=36543*", "None", "master", 36543}},
		"jax port given": {"pkg/controller.v1/jax/envvar_test.go \"successful environment variable setup\" @v1.9.0 (COORDINATOR_PORT from jaxjob-port)",
			kindSpecDoc("JAXJob", "x", "jaxReplicaSpecs", "Worker", container("jax", "python:3.11", port("jaxjob-port", "6666"), ""), ""),
			want{1, "Never", "jaxjob-port=6666", "None", "jaxjob-port", 6666}},
		"mxnet restart and port defaults": {"mxnet_defaults.go SetDefaults_MXJob @v1.8.1",
			kindSpecDoc("MXJob", "x", "mxReplicaSpecs", "Scheduler", container("mxnet", "python:3.11", "", "      restartPolicy: ExitCode\n"), "  jobMode: MXTrain\n"),
			want{1, "ExitCode", "mxjob-port=9091*", "None", "mxjob-port", 9091}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			src := c.src
			if strings.Contains(src, "kind: XGBoostJob") { // the webhook wants a Master
				src += "    Master:\n" + container("xgboost", "python:3.11", "", "      replicas: 1\n")
			}
			job, diags := Read([]byte(src), jobs.ReadOptions{Path: "k.yaml"})
			if diags.HasErrors() || job == nil {
				t.Fatalf("%s: %v", c.source, diags)
			}
			r := job.Roles[0]
			var ps []string
			for _, p := range r.Ports {
				s := p.Label + "=" + itoa(p.Number)
				if p.Implicit {
					s += "*"
				}
				ps = append(ps, s)
			}
			got := want{r.Instances, r.RestartPolicy, strings.Join(ps, " "), job.Retry.CleanPodPolicy, "", 0}
			for _, p := range r.Ports {
				if p.Label == c.want.contractPort {
					got.contractPort, got.contractValue = p.Label, p.Number
				}
			}
			if got != c.want {
				t.Errorf("%s:\n got %+v\nwant %+v", c.source, got, c.want)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestOtherKindsWebhookCasesV194 are the cases of the validation tests at
// the kinds' last releases (training-operator v1.9.4 for XGBoostJob,
// PaddleJob and JAXJob, whose webhooks did not change since v1.9.0;
// v1.8.1 for MXJob) that TestOtherKindsWebhookCases writes otherwise: each
// test's own job name, replica types and restart policies.
func TestOtherKindsWebhookCasesV194(t *testing.T) {
	mxSpec := func(rtype, cname, image string) string {
		c := "    " + rtype + ":\n      replicas: 1\n      restartPolicy: Never\n      template:\n        spec:\n          containers:\n            - name: " + cname + "\n"
		if image != "" {
			c += "              image: " + image + "\n"
		}
		return c
	}
	mxDoc := func(name, specs string) string {
		return "apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata:\n  name: " + name + "\nspec:\n  jobMode: MXTrain\n  mxReplicaSpecs:\n" + specs
	}
	mxValid := mxSpec("Scheduler", "mxnet", "mxjob/mxnet") + mxSpec("Server", "mxnet", "mxjob/mxnet") + mxSpec("Worker", "mxnet", "mxjob/mxnet")
	xgbValid := "apiVersion: kubeflow.org/v1\nkind: XGBoostJob\nmetadata:\n  name: test\nspec:\n  runPolicy:\n    managedBy: kubeflow.org/training-operator\n  xgbReplicaSpecs:\n" +
		"    Master:\n" + container("xgboost", "docker.io/kubeflow/xgboost-dist-iris:latest", "              ports:\n                - name: xgboostjob-port\n                  containerPort: 9991\n", "      replicas: 1\n      restartPolicy: Never\n") +
		"    Worker:\n" + container("xgboost", "docker.io/kubeflow/xgboost-dist-iris:latest", "              ports:\n                - name: xgboostjob-port\n                  containerPort: 9991\n", "      replicas: 2\n      restartPolicy: ExitCode\n")
	paddlePS := "apiVersion: kubeflow.org/v1\nkind: PaddleJob\nmetadata:\n  name: test-job\nspec:\n  paddleReplicaSpecs:\n" +
		"    Master:\n" + container("paddle", "test-image", "", "      replicas: 1\n") + "    Worker:\n" + container("paddle", "test-image", "", "      replicas: 2\n")
	cases := map[string]struct {
		source, src, summary string // summary "" = valid
	}{
		"xgboost valid, Worker ExitCode": {"pkg/webhooks/xgboost/xgboostjob_webhook_test.go \"valid XGBoostJob\" @v1.9.4 (validXGBoostReplicaSpecs: Worker RestartPolicyExitCode, managedBy KubeflowJobsController)",
			xgbValid, ""},
		"xgboost replicaSpecs null": {"pkg/webhooks/xgboost/xgboostjob_webhook.go validateXGBReplicaSpecs @v1.9.4 (rSpecs == nil: \"must be required\")",
			"apiVersion: kubeflow.org/v1\nkind: XGBoostJob\nmetadata:\n  name: test\nspec:\n  xgbReplicaSpecs: null\n", "Missing xgbReplicaSpecs"},
		"paddle name __test": {"pkg/webhooks/paddlepaddle/paddlepaddle_webhook_test.go \"paddleJob name does not meet DNS1035\" (Name \"__test\") @v1.9.4",
			kindSpecDoc("PaddleJob", "__test", "paddleReplicaSpecs", "Worker", container("paddle", "registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-cpu", "", "      replicas: 2\n      restartPolicy: Never\n"), ""), "Invalid job name"},
		"paddle Master and Worker": {"pkg/controller.v1/paddlepaddle/paddlepaddle_controller_test.go \"Should get the corresponding resources successfully\" @v1.9.4 (Master 1, Worker 2)",
			paddlePS, ""},
		"jax name 0-test": {"pkg/webhooks/jax/jaxjob_webhook_test.go \"jaxJob name does not meet DNS1035\" (Name \"0-test\") @v1.9.4",
			kindSpecDoc("JAXJob", "0-test", "jaxReplicaSpecs", "Worker", container("jax", "docker.io/kubeflow/jaxjob-simple:latest", "", "      replicas: 1\n      restartPolicy: OnFailure\n"), ""), "Job name is not a DNS label"},
		"mxnet valid":       {"pkg/apis/kubeflow.org/v1/mxnet_validation_test.go \"valid mxJob\" @v1.8.1", mxDoc("test", mxValid), ""},
		"mxnet name 10test": {"mxnet_validation_test.go \"mxJob name does not meet DNS1035\" (Name \"10test\") @v1.8.1", mxDoc("10test", mxValid), "Job name is not a DNS label"},
		"mxnet replicaSpecs nil": {"mxnet_validation_test.go \"mxReplicaSpecs is nil\" @v1.8.1",
			"apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata:\n  name: test\nspec:\n  jobMode: MXTrain\n", "Missing mxReplicaSpecs"},
		"mxnet no containers": {"mxnet_validation_test.go \"no containers\" (a Worker) @v1.8.1",
			mxDoc("test", "    Worker:\n      template:\n        spec:\n          containers: []\n"), "No container"},
		"mxnet image empty": {"mxnet_validation_test.go \"image is empty\" (a Worker) @v1.8.1", mxDoc("test", mxSpec("Worker", "mxnet", "")), "Missing image"},
		"mxnet default container absent": {"mxnet_validation_test.go \"mxnet default container name doesn't find\" @v1.8.1",
			mxDoc("test", mxSpec("Worker", "\"\"", "mxjob/mxnet:gpu")), "No container named mxnet"},
		"mxnet replicaSpec nil": {"mxnet_validation_test.go \"replicaSpec is nil\" (Scheduler: nil) @v1.8.1", mxDoc("test", "    Scheduler: null\n"), "Missing template"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := Read([]byte(c.src), jobs.ReadOptions{Path: "k.yaml"})
			if c.summary == "" {
				if diags.HasErrors() || job == nil {
					t.Fatalf("%s: valid upstream, got %v", c.source, diags)
				}
				return
			}
			for _, d := range diags {
				if d.Summary == c.summary && d.Severity == hcl.DiagError && d.Subject != nil && d.Subject.Start.Line > 0 {
					return
				}
			}
			t.Errorf("%s: want a located error %q, got %v", c.source, c.summary, diags)
		})
	}
}

// TestMXJobModeAnyString: the MXJob CRD @v1.8.1
// (manifests/base/crds/kubeflow.org_mxjobs.yaml) types spec.jobMode as a
// string with no enum and no controller code reads it, so a job whose
// jobMode is another word ran as any other: jobshift reads it with a
// located warning, not an error.
func TestMXJobModeAnyString(t *testing.T) {
	src := kindDoc("MXJob", "mxReplicaSpecs", "Worker", "mxnet", "  jobMode: dist\n")
	job, diags := Read([]byte(src), jobs.ReadOptions{Path: "k.yaml"})
	if diags.HasErrors() || job == nil {
		t.Fatalf("jobMode dist: %v", diags)
	}
	for _, d := range diags {
		if d.Summary == "Unknown jobMode" && d.Severity == hcl.DiagWarning && d.Subject != nil && d.Subject.Start.Line == 6 {
			return
		}
	}
	t.Errorf("want a warning Unknown jobMode at line 6, got %v", diags)
}
