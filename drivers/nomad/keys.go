package nomad

import (
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
)

// What a jobshift job stores in Nomad for the processes that judge it
// later (the watcher, the coordinator, the finishers, status, the
// controller): the shape's decisions in job and group meta, so that they
// read the decision instead of deriving it again.
//
// Every name jobshift stores or reads back is here: meta keys, Variable
// paths, task names and the helper's arguments; except the job's own
// Variable and what the ssh emulation keeps in it (secrets.go
// VariablePath, ssh.go, sshkey.go SSHKeyTask).
const (
	// MetaShape (job): "watched" or "unwatched", the input the shape was
	// decided for, then how to get the other shape.
	MetaShape = "jobshift_shape"
	// MetaEnv (group): the group's EnvWay.
	MetaEnv = "jobshift_env"
	// MetaJudges (group): the group's judges, comma-separated.
	MetaJudges = "jobshift_judges"
)

// Meta keys jobshift puts on every job it renders. The controller finds
// jobshift jobs by MetaVersion and rebuilds the completion policy from
// MetaPolicy.
const (
	MetaVersion = "jobshift_version"
	MetaFormat  = "jobshift_format"
	MetaName    = "jobshift_name"
	MetaSource  = "jobshift_source"
	MetaPolicy  = "jobshift_policy"
	MetaAttempt = intask.MetaAttempt
	MetaUser    = "jobshift_user"
	MetaRole    = "jobshift_role" // group meta
)

// Task names inside each group.
const (
	BarrierTask = "jobshift-barrier"
	MainTask    = "main"
	// PSTask is the parameter server a UAI node runs next to MainTask
	// (the uai contract, contract.ProcessPS).
	PSTask = "ps"
)

// FinisherTask is the poststop task's name.
const FinisherTask = "finish"

// JudgeTask is the UAI groups' second finisher: a poststart task.
// A UAI node's parameter server never ends by itself and must stay up
// until the job's verdict (peers on other hosts still reach it after this
// node's training ended, as on PAI), so no task leads the group and the
// poststop finisher only runs when the allocation is torn down: after a
// failure (Nomad kills the siblings of a failed task) or the job's stop.
// A training task that succeeds ends nothing, so the judge waits for it
// and judges then.
//
// It is not a sidecar, and it exits 0 whatever it finds: Nomad restarts a
// poststart sidecar even on success, so with the job's no-restart policy
// a sidecar that exits 0 is "Not Restarting", i.e. failed, and a failed
// task makes Nomad kill its siblings (restarts.go NewRestartTracker,
// allocrunner handleTaskStateUpdates). As a sidecar the judge killed its
// node's parameter server as soon as it had judged "no rule fired yet",
// and a slower peer on another host was refused (stop 35's CI run). A
// non-sidecar poststart task that exits 0 is simply dead.
const JudgeTask = "judge"

// FinishAfterMain is the nomad-finish argument of the judge: wait until
// the allocation's main task has ended, then judge.
const FinishAfterMain = "-after-main"

// FinishExit is the in-task finisher's nomad-finish argument: -exit CODE
// (FinishEnded).
const FinishExit = "-exit"

// metaRetries counts the counted retries so far (PAI transient retries do
// not count), carried in meta so a restarted controller resumes correctly.
const metaRetries = "jobshift_retries"

// ResultPath is the Nomad Variable holding a finished job's verdict.
func ResultPath(jobID string) string { return "jobshift/results/" + jobID }

// endsPrefix is where the markers of job jobID live.
func endsPrefix(jobID string) string { return ResultPath(jobID) + "/ended/" }

// endPath is the marker of allocation alloc ended with code.
func endPath(jobID, alloc string, code int) string {
	return endsPrefix(jobID) + alloc + "/" + strconv.Itoa(code)
}

// Rendezvous modes (Shape.Rendezvous; job meta MetaRendezvous).
const (
	RendezvousBarrier = "barrier"
	RendezvousSnap    = "snapshot"
	MetaRendezvous    = "jobshift_rendezvous"
)

// TopologyPath is the snapshot Variable of group in job jobID.
func TopologyPath(jobID, group string) string { return VariablePath(jobID) + "/" + group }

// MetaSnapPorts (group meta of a snapshot-mode job) lists the group's
// port slots as "<n>:<label>" separated by spaces ("<n>:" = address only):
// the job registers no services, so this is where the coordinator learns
// which allocated port goes to which snapshot item.
const MetaSnapPorts = "jobshift_snapshot_ports"

// storeShape records the job-level decisions in job meta: MetaShape is
// the input, with how to get the other shape (a JSON artifact has no
// header to say it); MetaRendezvous is set by the renderer's rendezvous
// (snapshot only: watchers of earlier jobs test for it).
func storeShape(job *api.Job, s *Shape) {
	job.Meta[MetaShape] = shapeLabel(s)
}

// shapeLabel is MetaShape's value: the shape's inputs (OptWatched, and
// OptOneClient where it matters: Shape.Clients) and how to get the other.
func shapeLabel(s *Shape) string {
	label := shapeUnwatched + ": for nomad job run; jobshift convert -watched writes what jobshift run submits"
	if s.Watched {
		label = shapeWatched + ": what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run"
	}
	switch s.Clients {
	case ClientsOne:
		label += "; for a cluster of one client (what jobshift run submits where it counts one); jobshift convert without -one-client writes the shape for several"
	case ClientsSeveral:
		label += "; for a cluster of several clients; jobshift convert -one-client writes the shape for one (what jobshift run submits where it counts one)"
	}
	return label
}

const (
	shapeWatched   = "watched"
	shapeUnwatched = "unwatched"
)

// storeGroupShape records a group's decisions in its meta.
func storeGroupShape(g *api.TaskGroup, gs *GroupShape) {
	g.Meta[MetaEnv] = string(gs.Env)
	g.Meta[MetaJudges] = joinJudges(gs.Judges)
}

// StoredShape is what a registered job says of its shape.
type StoredShape struct {
	Watched    bool
	Rendezvous string
	// Judges by group name.
	Judges map[string][]Judge
}

// ShapeOf reads the stored shape of a registered job (the barrier is
// its task). A job rendered before the shape was stored says only its
// rendezvous.
func ShapeOf(job *api.Job) StoredShape {
	s := StoredShape{Watched: strings.HasPrefix(job.Meta[MetaShape], shapeWatched+":"), Rendezvous: RendezvousNone, Judges: map[string][]Judge{}}
	if job.Meta[MetaRendezvous] == RendezvousSnap {
		s.Rendezvous = RendezvousSnap
	}
	for _, g := range job.TaskGroups {
		for _, t := range g.Tasks {
			if t.Name == BarrierTask && s.Rendezvous == RendezvousNone {
				s.Rendezvous = RendezvousBarrier
			}
		}
		if g.Name == nil || g.Meta[MetaJudges] == "" {
			continue
		}
		for _, j := range strings.Split(g.Meta[MetaJudges], ", ") {
			s.Judges[*g.Name] = append(s.Judges[*g.Name], Judge(j))
		}
	}
	return s
}

// JudgedInJob reports whether some task of the job applies its rules
// (a finisher of any kind), so that it ends without a watcher.
func (s StoredShape) JudgedInJob() bool {
	for _, js := range s.Judges {
		for _, j := range js {
			if j == JudgePoststop || j == JudgeInTask || j == JudgeUAI {
				return true
			}
		}
	}
	return false
}
