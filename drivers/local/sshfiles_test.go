package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// sshAuthJob is an MPI TrainJob whose runtime mounts the job's ssh keys at
// a path of its own (mpi.sshAuthMountPath); the launcher uses them as a
// program that ignores the emulation's ssh on PATH would: the system ssh
// with the config and key found there.
const sshAuthJob = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: keys
spec:
  runtimeRef:
    name: mpi-keys
    kind: TrainingRuntime
  trainer:
    numNodes: 2
    command:
      - sh
      - -c
      - ls /opt/jobshift-keys/.ssh; /usr/bin/ssh -F /opt/jobshift-keys/.ssh/config keys-node-0-0.keys echo reached; ssh-keygen -y -f /opt/jobshift-keys/.ssh/id_rsa | cmp - /opt/jobshift-keys/.ssh/id_rsa.pub && echo same key
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: mpi-keys
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      mpiImplementation: OpenMPI
      sshAuthMountPath: /opt/jobshift-keys/.ssh
      runLauncherAsNode: true
  template:
    spec:
      successPolicy:
        operator: All
        targetReplicatedJobs: [launcher]
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: x
                      command: [/usr/sbin/sshd]
                      args: [-De]
        - name: launcher
          dependsOn:
            - name: node
              status: Ready
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: x
`

// TestTrainJobSSHFiles: Trainer's MPI plugin mounts the job's key pair
// (id_rsa, id_rsa.pub, authorized_keys) at the runtime's sshAuthMountPath
// (kubeflow/trainer pkg/runtime/framework/plugins/mpi/mpi.go @v2.3.0);
// the same mechanism as Volcano's ssh plugin (contract.SSHFiles):
// the emulation shows its pair there, with its client config, and the
// host's path stays untouched.
func TestTrainJobSSHFiles(t *testing.T) {
	drivertest.NeedMPI(t)
	if m, _ := taskns.Probe(); m == taskns.ModeNone {
		t.Skip("no mount namespace on this host")
	}
	file := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(file, []byte(sshAuthJob), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(t, file)
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir(), Grace: 2 * time.Second})
	out, errOut, _ := latestStart(t, runDir, "launcher-0")
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v; launcher stderr:\n%s", res, errOut)
	}
	want := "authorized_keys\nconfig\nid_rsa\nid_rsa.pub\nreached\nsame key\n"
	if string(out) != want {
		t.Errorf("launcher printed\n%s\nwant\n%s\nstderr:\n%s", out, want, errOut)
	}
	if _, err := os.Lstat("/opt/jobshift-keys"); err == nil {
		t.Error("/opt/jobshift-keys exists on the host")
	}
	if strings.Contains(string(errOut), "PRIVATE KEY") {
		t.Error("the key reached the launcher's stderr")
	}
}
