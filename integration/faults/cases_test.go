package faults_test

import (
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// The fault suite as data, in the manner of Armada's declarative test
// cases (a job, the fault, the expected events, a timeout): each case is a
// job (a template under testdata/ with its variables), one fault injected
// at a point of the run, what the source platform's rules say must follow,
// and the time within which it must.

// faultKind is what is done to the cluster or to jobshift.
type faultKind string

const (
	killTask       faultKind = "kill-task"       // SIGKILL the target task's process
	killHost       faultKind = "kill-host"       // cluster.sh kill-host of the target task's host
	restartAgent   faultKind = "restart-agent"   // cluster.sh restart-agent of the target task's host
	restartServer  faultKind = "restart-server"  // cluster.sh restart-server (Nomad server, slurmctld)
	killRun        faultKind = "kill-run"        // SIGKILL the `jobshift run` following the job
	killController faultKind = "kill-controller" // SIGKILL `jobshift controller` while it retries (Nomad)
	noFault        faultKind = "none"            // the job's own deadline is the fault
)

// batchHost as a case's target: the host the Slurm batch script runs on.
const batchHost = "batch-host"

type fcase struct {
	name    string
	engines []string          // nomad, slurm
	job     string            // template under testdata/
	vars    map[string]string // @KEY@ -> value in the template
	site    func(s *siteEdit) // changes to the cluster's site config
	fault   faultKind
	target  string        // the task the fault aims at (role-index)
	after   time.Duration // after every task of attempt 0 has started
	want    want
	limit   time.Duration // the whole case, submit to checks
}

type siteEdit struct{ slurmTimeLimit string }

// want is the outcome by the source platform's rules.
type want struct {
	phase    completion.Phase
	attempts int // job attempts (whole-job retries + 1)
	// restarts of the target task in place, in attempt 0
	restarts int
	// verdictWithin bounds fault -> verdict (the attempt's, for a retry)
	verdictWithin time.Duration
	// stopWithin bounds verdict -> last task of the faulted attempt ended
	stopWithin time.Duration
	// terminated: every task still running at the verdict got SIGTERM and
	// finished its checkpoint (the deadline)
	terminated bool
	// reason the final verdict's reason contains
	reason string
}

var both = []string{"nomad", "slurm"}

func cases() []fcase {
	pai := func(retry, secs, mode string) map[string]string {
		return map[string]string{"RETRY": retry, "SECS": secs, "MODE": mode}
	}
	torch := func(policy, secs, runPolicy string) map[string]string {
		return map[string]string{"POLICY": policy, "SECS": secs, "RUNPOLICY": runPolicy}
	}
	return []fcase{
		{
			// OpenPAI: minFailedInstances 1 fails the attempt. Issue 13 wants
			// the job failed with jobRetryCount 0: SIGKILL's 137 counts against
			// jobRetryCount here, where OpenPAI's exit spec called it transient
			// and retried it forever (#5615; translate/completion/exitcodes.go).
			name: "pai-minfailed-worker-sigkill", engines: both, job: "pai.yaml", vars: pai("0", "20", ""),
			fault: killTask, target: "worker-1", after: 3 * time.Second,
			want:  want{phase: completion.PhaseFailed, attempts: 1, verdictWithin: 3 * time.Second, stopWithin: 5 * time.Second},
			limit: 3 * time.Minute,
		},
		{
			name: "pai-retry-worker-sigkill", engines: both, job: "pai.yaml", vars: pai("1", "20", ""),
			fault: killTask, target: "worker-0", after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 2, verdictWithin: 3 * time.Second, stopWithin: 5 * time.Second},
			limit: 3 * time.Minute,
		},
		{
			// Kubeflow OnFailure: the worker is restarted in place, the
			// others keep running; the master's success ends the job.
			name: "torch-onfailure-worker-sigkill", engines: both, job: "torch.yaml", vars: torch("OnFailure", "20", ""),
			fault: killTask, target: "worker-1", after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 1, restarts: 1},
			limit: 3 * time.Minute,
		},
		{
			// Kubeflow Never: a failed worker fails the job; the others are
			// stopped within 5 s of the verdict.
			name: "torch-never-worker-sigkill", engines: both, job: "torch.yaml", vars: torch("Never", "60", ""),
			fault: killTask, target: "worker-0", after: 3 * time.Second,
			want:  want{phase: completion.PhaseFailed, attempts: 1, verdictWithin: 3 * time.Second, stopWithin: 5 * time.Second},
			limit: 3 * time.Minute,
		},
		{
			// A lost host: its tasks are gone (OpenPAI: a transient
			// platform failure, retried); the retry starts only after every
			// task of the old attempt is gone, nothing is left on the other
			// hosts.
			// The detection time is measured (the engine declaring the host
			// down: Nomad's heartbeat TTL + grace, Slurm's SlurmdTimeout 20
			// s of the cluster.sh cluster); the workers outlive it.
			name: "pai-kill-host", engines: both, job: "pai.yaml", vars: pai("0", "75", ""),
			fault: killHost, target: "worker-1", after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 2, stopWithin: 5 * time.Second},
			limit: 5 * time.Minute,
		},
		{
			// Volcano: the task lost with its host is a pod evicted from
			// its lost node (job_controller_handler.go deletePod →
			// PodEvicted, @v1.16.0-alpha.1); the job's PodEvicted →
			// RestartJob policy runs it again, and the new attempt
			// succeeds on the hosts left. Nomad only: the Slurm driver
			// reports no task lost with its host (ExitHostLost), so a
			// Volcano job's rules there see no PodEvicted.
			name: "volcano-podevicted-kill-host", engines: []string{"nomad"}, job: "volcano.yaml", vars: map[string]string{"SECS": "75"},
			fault: killHost, target: "worker-1", after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 2, stopWithin: 5 * time.Second},
			limit: 5 * time.Minute,
		},
		{
			// The host of the batch script lost (Slurm: the allocation's
			// first node, which runs the script that enforces the rules
			// and requeues): slurmctld declares it down, ends the job
			// NODE_FAIL with every step on the other hosts, and requeues
			// it (--requeue: OpenPAI retries a lost node); the new attempt
			// succeeds on the hosts left.
			name: "pai-kill-batch-host", engines: []string{"slurm"}, job: "pai.yaml", vars: pai("0", "75", ""),
			fault: killHost, target: batchHost, after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 2, stopWithin: 5 * time.Second},
			limit: 5 * time.Minute,
		},
		{
			name: "pai-restart-agent", engines: both, job: "pai.yaml", vars: pai("0", "25", ""),
			fault: restartAgent, target: "worker-1", after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 1},
			limit: 3 * time.Minute,
		},
		{
			name: "pai-restart-server", engines: both, job: "pai.yaml", vars: pai("0", "30", ""),
			fault: restartServer, after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 1},
			limit: 3 * time.Minute,
		},
		{
			// `jobshift run` dies: the Nomad finisher, the Slurm batch
			// script end the job by its rules; `jobshift status` reports it.
			name: "pai-kill-run", engines: both, job: "pai.yaml", vars: pai("0", "15", ""),
			fault: killRun, after: 3 * time.Second,
			want:  want{phase: completion.PhaseSucceeded, attempts: 1},
			limit: 3 * time.Minute,
		},
		{
			// worker-1 fails its first attempt (exit 1: unknown class,
			// counted against jobRetryCount 1); the controller is killed
			// while it retries and a new one takes over: exactly one retry.
			name: "pai-kill-controller", engines: []string{"nomad"}, job: "pai.yaml", vars: pai("1", "10", "fail-once"),
			fault: killController, target: "worker-1",
			want:  want{phase: completion.PhaseSucceeded, attempts: 2},
			limit: 3 * time.Minute,
		},
		{
			// activeDeadlineSeconds: every task gets SIGTERM and the grace
			// period to checkpoint, then DeadlineExceeded.
			name: "torch-active-deadline", engines: both, job: "torch.yaml", vars: torch("OnFailure", "-1", "activeDeadlineSeconds: 12"),
			fault: noFault,
			want:  want{phase: completion.PhaseFailed, attempts: 1, terminated: true, reason: "Deadline"},
			limit: 3 * time.Minute,
		},
		{
			// The site's Slurm time limit (1 minute): Slurm sends SIGTERM,
			// KillWait (5 s) later SIGKILL; the job ends TIMEOUT.
			name: "pai-site-time-limit", engines: []string{"slurm"}, job: "pai.yaml", vars: pai("0", "-1", ""),
			site:  func(s *siteEdit) { s.slurmTimeLimit = "1" },
			fault: noFault,
			want:  want{phase: completion.PhaseFailed, attempts: 1, terminated: true, reason: "TIMEOUT"},
			limit: 4 * time.Minute,
		},
	}
}
