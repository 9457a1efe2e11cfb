package completion

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
)

// rtLauncher is the MPIJob launcher's replica type.
const rtLauncher = "launcher"

// mpiRules: the MPIJob launcher decides (kubeflow/mpi-operator
// pkg/controller/mpi_job_controller.go updateMPIJobStatus @v0.8.2, and the
// v1alpha2/v1 controllers' updateMPIJobStatus @v0.2.3/v0.3.0): the job
// succeeds when the launcher Job completes and fails when it fails (its
// backoffLimit exhausted). Worker pods only feed replica counters; a
// worker that dies makes mpirun fail in the launcher, which then decides.
// (v2beta1 also fails the job on an evicted worker; jobshift has no
// eviction.)
type mpiRules struct{}

func (mpiRules) onEnd(a *attempt, t Task) (decided, bool) {
	if t.State == Stopped || replicaType(a.roles[t.Role]) != rtLauncher {
		return decided{}, false
	}
	if d, ok := kubeflowFailure(a, t, "MPIJob", false); ok {
		return d, true
	}
	if t.State != Succeeded {
		return decided{}, false
	}
	return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
		Reason: fmt.Sprintf("MPIJob %s successfully completed (the Launcher succeeded)", a.job.Name)}}, true
}

func (mpiRules) onAllEnded(a *attempt, last Task) decided {
	return kubeflowNoRule(a, last, "MPIJob", "an MPIJob succeeds or fails with its Launcher")
}

// mpiBackoffApplies: an MPIJob's backoffLimit is the launcher batch Job's
// (the operator copies runPolicy.backoffLimit there); workers are plain pods
// (v2beta1) or a StatefulSet (v1alpha1/v1alpha2) that the kubelet restarts
// without limit.
func mpiBackoffApplies(job *jobs.Job, r *jobs.Role) bool {
	return KindOf(job) != jobs.CompletionMPI || replicaType(r) == rtLauncher
}
