package contract

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
)

// k8sTopo is the job as the training operator laid it out: task i of
// replica type t is the pod and service <job>-<t>-<i> (replicaName in each
// kind's controller), and every port is the containerPort written (or
// defaulted), the same on every pod. The address stands for both the
// service name peers dial and the pod IP (POD_IP_DUMMY).
func k8sTopo(j *jobs.Job) Topology {
	var t Topology
	for _, r := range j.Roles {
		rt := RoleTopology{Name: r.Name}
		for i := range r.Instances {
			ports := map[string][]int{}
			for _, p := range r.Ports {
				ports[p.Label] = []int{p.Number}
			}
			rt.Tasks = append(rt.Tasks, task(fmt.Sprintf("%s-%s-%d", j.Name, r.Name, i), ports))
		}
		t.Roles = append(t.Roles, rt)
	}
	return t
}

// upstreamDoc is a job of kind whose replica specs (indented four spaces,
// under field) are given.
func upstreamDoc(kind, name, field, extra, specs string) string {
	return "apiVersion: kubeflow.org/v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec:\n" + extra + "  " + field + ":\n" + specs
}

// replica is one replica spec: type, replicas ("" = unset), restart policy
// ("" = unset), the main container's name and its ports.
func replica(rtype, replicas, restart, container, ports string) string {
	s := "    " + rtype + ":\n"
	if replicas != "" {
		s += "      replicas: " + replicas + "\n"
	}
	if restart != "" {
		s += "      restartPolicy: " + restart + "\n"
	}
	s += "      template:\n        spec:\n          containers:\n            - name: " + container + "\n              image: busybox\n              command: [python, train.py]\n"
	if ports != "" {
		s += "              ports:\n"
		for _, p := range splitPorts(ports) {
			s += "                - name: " + p[0] + "\n                  containerPort: " + p[1] + "\n"
		}
	}
	return s
}

// splitPorts reads "name=number name=number".
func splitPorts(s string) [][2]string {
	var out [][2]string
	for _, f := range strings.Fields(s) {
		name, n, _ := strings.Cut(f, "=")
		out = append(out, [2]string{name, n})
	}
	return out
}

// TestOtherKindsUpstreamEnv: the replica specs of the training operator's
// own tests, read from a job file as a user would write them, get on a
// Kubernetes-like layout exactly the variables the operator's code gives
// (expected values derived by hand from the file and tag named, never
// from jobshift).
func TestOtherKindsUpstreamEnv(t *testing.T) {
	xgbValid := upstreamDoc("XGBoostJob", "test", "xgbReplicaSpecs", "  runPolicy:\n    managedBy: kubeflow.org/training-operator\n",
		replica("Master", "1", "Never", "xgboost", "xgboostjob-port=9991")+replica("Worker", "2", "ExitCode", "xgboost", "xgboostjob-port=9991"))
	xgbDefaults := upstreamDoc("XGBoostJob", "xgb", "xgbReplicaSpecs", "",
		replica("Master", "1", "", "xgboost", "")+replica("Worker", "", "", "xgboost", "custom=8000"))
	paddlePS := upstreamDoc("PaddleJob", "test-job", "paddleReplicaSpecs", "",
		replica("Master", "1", "", "paddle", "master=8080")+replica("Worker", "2", "", "paddle", "master=8080"))
	paddleColl := upstreamDoc("PaddleJob", "test", "paddleReplicaSpecs", "", replica("Worker", "2", "Never", "paddle", "master=37777"))
	paddleDefault := upstreamDoc("PaddleJob", "pd", "paddleReplicaSpecs", "", replica("Worker", "2", "", "paddle", ""))
	jaxValid := upstreamDoc("JAXJob", "test-jaxjob", "jaxReplicaSpecs", "", replica("Worker", "1", "", "jax", "jaxjob-port=6666"))
	jaxWrongPort := upstreamDoc("JAXJob", "test-jaxjob", "jaxReplicaSpecs", "", replica("Worker", "2", "", "jax", "wrong-port=7000"))
	mxValid := upstreamDoc("MXJob", "test", "mxReplicaSpecs", "  jobMode: MXTrain\n",
		replica("Scheduler", "1", "Never", "mxnet", "")+replica("Server", "1", "Never", "mxnet", "")+replica("Worker", "1", "Never", "mxnet", ""))
	mxTune := upstreamDoc("MXJob", "auto-tuning-job", "mxReplicaSpecs", "  jobMode: MXTune\n",
		replica("TunerTracker", "1", "Never", "mxnet", "mxjob-port=9991")+replica("TunerServer", "1", "Never", "mxnet", "mxjob-port=9991")+replica("Tuner", "1", "Never", "mxnet", "mxjob-port=9991"))
	mxCluster := `{"cluster":{"scheduler":[{"url":"test-scheduler-0","port":9091}],"server":[{"url":"test-server-0","port":9091}],"worker":[{"url":"test-worker-0","port":9091}]},"labels":{"scheduler":"","server":"","worker":""},"task":`
	tuneCluster := `{"cluster":{"tuner":[{"url":"auto-tuning-job-tuner-0","port":9991}],"tunerserver":[{"url":"auto-tuning-job-tunerserver-0","port":9991}],"tunertracker":[{"url":"auto-tuning-job-tunertracker-0","port":9991}]},"labels":{"tuner":"","tunerserver":"","tunertracker":""},"task":`

	cases := map[string]struct {
		source, src string
		task        jobs.TaskRef
		want        Env
	}{
		"xgboost valid job, master": {"pkg/webhooks/xgboost/xgboostjob_webhook_test.go \"valid XGBoostJob\" @v1.9.4, env by pkg/controller.v1/xgboost/xgboost.go SetPodEnv @v1.9.4",
			xgbValid, jobs.TaskRef{Role: "master"}, Env{{"MASTER_PORT", "9991"}, {"MASTER_ADDR", "test-master-0"}, {"WORLD_SIZE", "3"}, {"RANK", "0"},
				{"PYTHONUNBUFFERED", "1"}, {"WORKER_PORT", "9991"}, {"WORKER_ADDRS", "test-worker-0,test-worker-1"}}},
		"xgboost valid job, worker 1": {"xgboostjob_webhook_test.go \"valid XGBoostJob\" @v1.9.4, xgboost.go SetPodEnv (rank += Master replicas) @v1.9.4",
			xgbValid, jobs.TaskRef{Role: "worker", Index: 1}, Env{{"MASTER_PORT", "9991"}, {"MASTER_ADDR", "test-master-0"}, {"WORLD_SIZE", "3"}, {"RANK", "2"},
				{"PYTHONUNBUFFERED", "1"}, {"WORKER_PORT", "9991"}, {"WORKER_ADDRS", "test-worker-0,test-worker-1"}}},
		"xgboost defaults: a port of another name, replicas unset": {"pkg/apis/kubeflow.org/v1/xgboost_defaults_test.go expectedXGBoostJob (\"port set with custom name\": xgboostjob-port 9999 appended), setDefaultReplicas 1 @v1.9.4; xgboost.go getPortFromXGBoostJob",
			xgbDefaults, jobs.TaskRef{Role: "worker"}, Env{{"MASTER_PORT", "9999"}, {"MASTER_ADDR", "xgb-master-0"}, {"WORLD_SIZE", "2"}, {"RANK", "1"},
				{"PYTHONUNBUFFERED", "1"}, {"WORKER_PORT", "9999"}, {"WORKER_ADDRS", "xgb-worker-0"}}},
		"paddle parameter-server master": {"pkg/controller.v1/paddlepaddle/paddlepaddle_controller_test.go \"Should get the corresponding resources successfully\" (PADDLE_MASTER $(POD_IP_DUMMY):8080) @v1.9.4, envvar.go setPodEnv",
			paddlePS, jobs.TaskRef{Role: "master"}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "test-job"}, {"PADDLE_NNODES", "3"},
				{"POD_IP_DUMMY", "test-job-master-0"}, {"PADDLE_MASTER", "test-job-master-0:8080"}, {"PADDLE_SERVER_NUM", "1"}}},
		"paddle parameter-server worker 0": {"paddlepaddle_controller_test.go (Master 1, Worker 2, port 8080) @v1.9.4, envvar.go setPodEnv (rank 0 of Worker is not the rendezvous)",
			paddlePS, jobs.TaskRef{Role: "worker"}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "test-job"}, {"PADDLE_NNODES", "3"},
				{"PADDLE_MASTER", "test-job-master-0:8080"}, {"PADDLE_TRAINER_NUM", "1"}}},
		"paddle collective worker 0": {"pkg/webhooks/paddlepaddle/paddlepaddle_webhook_test.go \"valid paddleJob\" (Worker 2, master 37777) @v1.9.4, envvar.go setPodEnv",
			paddleColl, jobs.TaskRef{Role: "worker"}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "test"}, {"PADDLE_NNODES", "2"},
				{"POD_IP_DUMMY", "test-worker-0"}, {"PADDLE_MASTER", "test-worker-0:37777"}}},
		"paddle collective worker 1": {"paddlepaddle_webhook_test.go \"valid paddleJob\" @v1.9.4, envvar.go setPodEnv",
			paddleColl, jobs.TaskRef{Role: "worker", Index: 1}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "test"}, {"PADDLE_NNODES", "2"},
				{"PADDLE_MASTER", "test-worker-0:37777"}}},
		"paddle default port": {"pkg/apis/kubeflow.org/v1/paddlepaddle_types.go PaddleJobDefaultPort 36543, paddlepaddle_defaults.go setPaddleDefaultPort @v1.9.4",
			paddleDefault, jobs.TaskRef{Role: "worker", Index: 1}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "pd"}, {"PADDLE_NNODES", "2"},
				{"PADDLE_MASTER", "pd-worker-0:36543"}}},
		"jax successful setup": {"pkg/controller.v1/jax/envvar_test.go \"successful environment variable setup\" @v1.9.4",
			jaxValid, jobs.TaskRef{Role: "worker"}, Env{{"PYTHONUNBUFFERED", "1"}, {"COORDINATOR_PORT", "6666"}, {"COORDINATOR_ADDRESS", "test-jaxjob-worker-0"},
				{"NUM_PROCESSES", "1"}, {"PROCESS_ID", "0"}}},
		"jax a port of another name: jaxjob-port 6666 defaulted": {"jax/envvar_test.go \"missing container port in JAXJob\" @v1.9.4 (the error needs a job not defaulted; SetDefaults_JAXJob appends jaxjob-port 6666 first: jax_defaults.go)",
			jaxWrongPort, jobs.TaskRef{Role: "worker", Index: 1}, Env{{"PYTHONUNBUFFERED", "1"}, {"COORDINATOR_PORT", "6666"}, {"COORDINATOR_ADDRESS", "test-jaxjob-worker-0"},
				{"NUM_PROCESSES", "2"}, {"PROCESS_ID", "1"}}},
		"mxnet valid job, worker": {"pkg/apis/kubeflow.org/v1/mxnet_validation_test.go \"valid mxJob\" @v1.8.1 (mxjob-port 9091 defaulted), pkg/controller.v1/mxnet/mxnet.go SetPodEnv @v1.8.1",
			mxValid, jobs.TaskRef{Role: "worker"}, Env{{"MX_CONFIG", mxCluster + `{"type":"worker","index":0}}`}, {"DMLC_PS_ROOT_PORT", "9091"},
				{"DMLC_PS_ROOT_URI", "test-scheduler-0"}, {"DMLC_NUM_SERVER", "1"}, {"DMLC_NUM_WORKER", "1"}, {"DMLC_ROLE", "worker"},
				{"DMLC_USE_KUBERNETES", "1"}, {"DMLC_WORKER_ID", "0"}}},
		"mxnet valid job, server": {"mxnet_validation_test.go \"valid mxJob\" @v1.8.1, mxnet.go SetPodEnv (addBytePSEnv on Workers only)",
			mxValid, jobs.TaskRef{Role: "server"}, Env{{"MX_CONFIG", mxCluster + `{"type":"server","index":0}}`}, {"DMLC_PS_ROOT_PORT", "9091"},
				{"DMLC_PS_ROOT_URI", "test-scheduler-0"}, {"DMLC_NUM_SERVER", "1"}, {"DMLC_NUM_WORKER", "1"}, {"DMLC_ROLE", "server"},
				{"DMLC_USE_KUBERNETES", "1"}}},
		"mxnet tune example, tuner tracker": {"examples/mxnet/tune/mx_job_tune_gpu_v1.yaml @v1.8.1, mxnet.go genClusterSpec (types lower-cased), getConfigAddr (no Scheduler: port 0, url \"\")",
			mxTune, jobs.TaskRef{Role: "tunertracker"}, Env{{"MX_CONFIG", tuneCluster + `{"type":"tunertracker","index":0}}`}, {"DMLC_PS_ROOT_PORT", "0"},
				{"DMLC_PS_ROOT_URI", ""}, {"DMLC_NUM_SERVER", "0"}, {"DMLC_NUM_WORKER", "0"}, {"DMLC_ROLE", "tunertracker"},
				{"DMLC_USE_KUBERNETES", "1"}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			j, diags := kubeflow.Read([]byte(c.src), jobs.ReadOptions{Path: "k.yaml"})
			if diags.HasErrors() || j == nil {
				t.Fatalf("%s: %v", c.source, diags)
			}
			got := mustEval(t, j, k8sTopo(j), c.task.Role, c.task.Index, Options{})
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.source, diff)
			}
		})
	}
}

// TestOtherKindsUserFiles: job files of the four kinds written as users
// write them (testdata/kinds-users): each converts with the operator's
// variables (derived by hand from the controllers named) and the located
// warnings expected, or is refused with a located reason.
func TestOtherKindsUserFiles(t *testing.T) {
	type diag struct{ summary, at string } // at "line:col"
	mxCluster := `{"cluster":{"scheduler":[{"url":"mxnet-job-scheduler-0","port":9091}],"server":[{"url":"mxnet-job-server-0","port":9091}],` +
		`"worker":[{"url":"mxnet-job-worker-0","port":9991},{"url":"mxnet-job-worker-1","port":9991}]},"labels":{"scheduler":"","server":"","worker":""},`
	xgb := "xgboost-dist-iris-test-train"
	cases := map[string]struct {
		source string
		task   jobs.TaskRef
		want   Env    // nil: refused
		diags  []diag // located diagnostics expected (errors when want is nil)
	}{
		"jaxjob-env-override.yaml": {"pkg/controller.v1/jax/envvar.go setPodEnv @v1.9.4 (appended after the user's env: the kubelet keeps the later COORDINATOR_ADDRESS)",
			jobs.TaskRef{Role: "worker", Index: 1}, Env{{"PYTHONUNBUFFERED", "1"}, {"COORDINATOR_PORT", "6666"}, {"COORDINATOR_ADDRESS", "jax-mnist-worker-0"},
				{"NUM_PROCESSES", "2"}, {"PROCESS_ID", "1"}}, []diag{{"Variable overridden by the operator", "29:21"}, {"Gang-scheduling hint ignored", "14:7"}}},
		"mxjob-lowercase-keys.yaml": {"pkg/apis/kubeflow.org/v1/mxnet_defaults.go setMXNetTypeNamesToCamelCase, setMXNetDefaultPort (9091 where no mxjob-port) @v1.8.1; mxnet.go SetPodEnv",
			jobs.TaskRef{Role: "worker", Index: 1}, Env{{"MX_CONFIG", mxCluster + `"task":{"type":"worker","index":1}}`}, {"DMLC_PS_ROOT_PORT", "9091"},
				{"DMLC_PS_ROOT_URI", "mxnet-job-scheduler-0"}, {"DMLC_NUM_SERVER", "1"}, {"DMLC_NUM_WORKER", "2"}, {"DMLC_ROLE", "worker"},
				{"DMLC_USE_KUBERNETES", "1"}, {"DMLC_WORKER_ID", "1"}}, nil},
		"paddlejob-master-override.yaml": {"pkg/controller.v1/paddlepaddle/envvar.go setPodEnv @v1.9.4 (PADDLE_MASTER appended after the user's)",
			jobs.TaskRef{Role: "worker"}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "paddle-simple-cpu"}, {"PADDLE_NNODES", "2"},
				{"POD_IP_DUMMY", "paddle-simple-cpu-worker-0"}, {"PADDLE_MASTER", "paddle-simple-cpu-worker-0:37777"}}, []diag{{"Variable overridden by the operator", "25:25"}}},
		"paddlejob-ps-elastic.yaml": {"envvar.go setPodEnv @v1.9.4 (Master present: parameter-server mode, master 0, port 36543 defaulted); elasticPolicy read by no controller code",
			jobs.TaskRef{Role: "master", Index: 1}, Env{{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "wide-and-deep"}, {"PADDLE_NNODES", "4"},
				{"PADDLE_MASTER", "wide-and-deep-master-0:36543"}, {"PADDLE_SERVER_NUM", "1"}}, []diag{{"elasticPolicy ignored", "6:3"}}},
		"xgboostjob-no-ports.yaml": {"pkg/controller.v1/xgboost/xgboost.go SetPodEnv, xgboost_defaults.go (xgboostjob-port 9999) @v1.9.4",
			jobs.TaskRef{Role: "worker", Index: 2}, Env{{"MASTER_PORT", "9999"}, {"MASTER_ADDR", xgb + "-master-0"}, {"WORLD_SIZE", "4"}, {"RANK", "3"},
				{"PYTHONUNBUFFERED", "1"}, {"WORKER_PORT", "9999"}, {"WORKER_ADDRS", xgb + "-worker-0," + xgb + "-worker-1," + xgb + "-worker-2"}},
			[]diag{{"Variable overridden by the operator", "20:21"}}},
		"paddlejob-lowercase-worker.yaml": {"pkg/webhooks/paddlepaddle/paddlepaddle_webhook.go validateSpec @v1.9.4 (slices.Contains before defaulting)",
			jobs.TaskRef{}, nil, []diag{{"Replica type in the wrong case", "7:5"}}},
		"jaxjob-port-zero.yaml": {"core/v1 ContainerPort: 1-65535 (jax/envvar_test.go \"missing container port in JAXJob\" writes 0) @v1.9.4; $(VAR) in command expanded by the kubelet",
			jobs.TaskRef{}, nil, []diag{{"Port out of range", "17:34"}, {"Reference to an operator variable", "14:15"}}},
		"xgboostjob-lightgbm-sidecar.yaml": {"xgboost.go SetPodEnv @v1.9.4 gives every container the variables; jobshift runs one process per task",
			jobs.TaskRef{}, nil, []diag{{"Sidecar container dropped", "36:15"}}},
		"jaxjob-replicas-string.yaml": {"ReplicaSpec.Replicas *int32 (common_types.go @v1.9.4)",
			jobs.TaskRef{}, nil, []diag{{"Expected an integer", "8:17"}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := "testdata/kinds-users/" + name
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			j, diags := kubeflow.Read(src, jobs.ReadOptions{Path: path})
			for _, w := range c.diags {
				found := false
				for _, d := range diags {
					if d.Summary == w.summary && d.Subject != nil && fmt.Sprintf("%d:%d", d.Subject.Start.Line, d.Subject.Start.Column) == w.at &&
						(c.want != nil || d.Severity == hcl.DiagError) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: want %q at %s, got %v", c.source, w.summary, w.at, diags)
				}
			}
			if c.want == nil {
				return
			}
			if diags.HasErrors() || j == nil {
				t.Fatalf("%s: %v", c.source, diags)
			}
			got := mustEval(t, j, k8sTopo(j), c.task.Role, c.task.Index, Options{})
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.source, diff)
			}
		})
	}
}

// TestXGBoostClusterSpecCases are kubeflow/xgboost-operator
// pkg/controller/v1/xgboostjob/pod_test.go TestClusterSpec @04cb6f4a (the
// operator whose SetPodEnv training-operator took over unchanged for these
// variables: pkg/controller.v1/xgboost/xgboost.go @v1.9.4): a Master of one
// replica and 0 or 2 Workers, every template with xgboostjob-port 9999;
// the test compares these four variables only. Its case "Master index 1"
// names a task no job has (the Master has one replica) and is left out.
func TestXGBoostClusterSpecCases(t *testing.T) {
	job := func(workers string) string {
		specs := replica("Master", "1", "", "xgboost", "xgboostjob-port=9999")
		if workers != "0" {
			specs += replica("Worker", workers, "", "xgboost", "xgboostjob-port=9999")
		}
		return upstreamDoc("XGBoostJob", "test-xgboostjob", "xgbReplicaSpecs", "", specs)
	}
	cases := []struct {
		workers string
		task    jobs.TaskRef
		want    map[string]string
	}{
		{"0", jobs.TaskRef{Role: "master"}, map[string]string{"WORLD_SIZE": "1", "MASTER_PORT": "9999", "RANK": "0", "MASTER_ADDR": "test-xgboostjob-master-0"}},
		{"2", jobs.TaskRef{Role: "master"}, map[string]string{"WORLD_SIZE": "3", "MASTER_PORT": "9999", "RANK": "0", "MASTER_ADDR": "test-xgboostjob-master-0"}},
		{"2", jobs.TaskRef{Role: "worker"}, map[string]string{"WORLD_SIZE": "3", "MASTER_PORT": "9999", "RANK": "1", "MASTER_ADDR": "test-xgboostjob-master-0"}},
		{"2", jobs.TaskRef{Role: "worker", Index: 1}, map[string]string{"WORLD_SIZE": "3", "MASTER_PORT": "9999", "RANK": "2", "MASTER_ADDR": "test-xgboostjob-master-0"}},
	}
	for _, c := range cases {
		t.Run(c.workers+" workers, "+c.task.Role+"-"+fmt.Sprint(c.task.Index), func(t *testing.T) {
			j, diags := kubeflow.Read([]byte(job(c.workers)), jobs.ReadOptions{Path: "x.yaml"})
			if diags.HasErrors() || j == nil {
				t.Fatal(diags)
			}
			subset(t, mustEval(t, j, k8sTopo(j), c.task.Role, c.task.Index, Options{}), c.want)
		})
	}
}
