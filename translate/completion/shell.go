package completion

import _ "embed"

// RestartShell is TaskRestartDecision and Backoff.Next ported to POSIX sh
// (js_restart, js_backoff; restart.sh documents the data it reads): the
// in-place restarts that run inside a task on Slurm and Nomad, where no
// jobshift process sits beside the task. drivers/slurm tests it against
// the Go functions under dash and bash.
//
//go:embed restart.sh
var RestartShell string
