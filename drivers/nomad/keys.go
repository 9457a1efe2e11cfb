package nomad

import (
	"strings"

	"github.com/hashicorp/nomad/api"
)

// What a jobshift job stores in Nomad for the processes that judge it
// later (the watcher, the coordinator, the finishers, status, the
// controller): the shape's decisions in job and group meta, so that they
// read the decision instead of deriving it again.
//
// Other stored names: the meta keys of the job's identity and policy
// (render.go), MetaSnapPorts and the snapshot Variables (topology.go),
// the verdict and end-marker Variables (watch.go ResultPath, ends.go),
// the job's own Variable and its ssh key item (secrets.go, ssh.go), and
// the helper's task names and arguments (finisher.go, sshkey.go).
const (
	// MetaShape (job): "watched" or "unwatched", the input the shape was
	// decided for, then how to get the other shape.
	MetaShape = "jobshift_shape"
	// MetaEnv (group): the group's EnvWay.
	MetaEnv = "jobshift_env"
	// MetaJudges (group): the group's judges, comma-separated.
	MetaJudges = "jobshift_judges"
)

// storeShape records the job-level decisions in job meta: MetaShape is
// the input, with how to get the other shape (a JSON artifact has no
// header to say it); MetaRendezvous is set by the renderer's rendezvous
// (snapshot only: watchers of earlier jobs test for it).
func storeShape(job *api.Job, s *Shape) {
	job.Meta[MetaShape] = shapeLabel(s.Watched)
}

// shapeLabel is MetaShape's value.
func shapeLabel(watched bool) string {
	if watched {
		return shapeWatched + ": what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run"
	}
	return shapeUnwatched + ": for nomad job run; jobshift convert -watched writes what jobshift run submits"
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

// ShapeOf reads the stored shape of a registered job. A job rendered
// before the shape was stored says only its rendezvous.
func ShapeOf(job *api.Job) StoredShape {
	s := StoredShape{Watched: strings.HasPrefix(job.Meta[MetaShape], shapeWatched+":"), Rendezvous: RendezvousBarrier, Judges: map[string][]Judge{}}
	if job.Meta[MetaRendezvous] == RendezvousSnap {
		s.Rendezvous = RendezvousSnap
	}
	for _, g := range job.TaskGroups {
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
