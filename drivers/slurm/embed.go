package slurm

import (
	_ "embed"

	"github.com/jobshift/jobshift/translate/completion"
)

// The shell that runs inside the allocation. Kept as real .sh files (not Go
// strings) so shellcheck and the dash/bash differential tests read exactly
// what gets embedded into every batch script.
var (
	//go:embed sh/hostlist.sh
	shHostlist string
	//go:embed sh/decide.sh
	shDecide string
	//go:embed sh/batch.sh
	shBatch string
	//go:embed sh/task.sh
	shTask string
	//go:embed sh/stage.sh
	shStage string
	//go:embed sh/run.sh
	shRun string
	//go:embed sh/dispatch.sh
	shDispatch string
	//go:embed sh/init.sh
	shInit string
)

// shRestart is shared with the Nomad target (completion.RestartShell).
var shRestart = completion.RestartShell
