package slurm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/internal/owndir"
	"github.com/jobshift/jobshift/jobs"
)

// A job's state directory is <state>/<cluster>-<job ID> (js_job_dir in
// sh/batch.sh): job IDs start again at 1 on a recreated cluster, and one
// home directory may submit to several clusters, so the ID alone names
// another job's directory. The first attempt makes the directory fresh
// and writes the submission's token in it; the watcher reads the task
// files only once that token is there: before the job starts, a directory
// of that name is an earlier job's.

// tokenEnv carries the submission's token into the job (sbatch exports
// the submitting environment).
const tokenEnv = "JOBSHIFT_STATE_TOKEN"

// clusterRE is what js_job_dir accepts as a cluster name in a path.
var clusterRE = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// newToken is a fresh submission token.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// clusterName is the ClusterName of the cluster sbatch submits to (what
// the job sees as SLURM_CLUSTER_NAME), "" when scontrol does not say.
func clusterName(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "scontrol", "show", "config").Output()
	if err != nil {
		return "", nil
	}
	for _, l := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.TrimSpace(k) != "ClusterName" {
			continue
		}
		v = strings.TrimSpace(v)
		if !clusterRE.MatchString(v) {
			return "", fmt.Errorf("slurm: cluster name %q cannot name a state directory", v)
		}
		return v, nil
	}
	return "", nil
}

// jobDirName is the name of a job's state directory under the state dir.
func jobDirName(cluster, id string) string {
	if cluster == "" {
		return id
	}
	return cluster + "-" + id
}

// makeStateDir makes the state directory (and its scripts/ and lib/) the
// user's own: on a shared file system another user could otherwise swap
// the scripts, the library or the task files in it.
func makeStateDir(state string) error {
	if err := owndir.Make(state); err != nil {
		return fmt.Errorf("slurm state directory %s: %w", state, err)
	}
	for _, sub := range []string{"scripts", "lib"} {
		if err := os.Mkdir(filepath.Join(state, sub), 0o700); err != nil && !os.IsExist(err) {
			return err
		}
		if err := owndir.Private(filepath.Join(state, sub)); err != nil {
			return fmt.Errorf("slurm state directory %s: %w", filepath.Join(state, sub), err)
		}
	}
	return nil
}

// ownState reports whether the job directory state is this submission's:
// it holds token. A handle without a token (a job submitted with plain
// sbatch) takes the directory as it is.
func ownState(state, token string) bool {
	if token == "" {
		return true
	}
	b, err := os.ReadFile(filepath.Join(state, "token"))
	return err == nil && strings.TrimSpace(string(b)) == token
}

// attemptsFrom is the number of a job's first attempt directory: 1 when
// the batch library wrote attempts-from (js_job_dir), 0 for a job an
// older library ran, whose directories counted from 0.
func attemptsFrom(state string) int {
	b, err := os.ReadFile(filepath.Join(state, "attempts-from"))
	if err != nil || strings.TrimSpace(string(b)) != "1" {
		return 0
	}
	return 1
}

// attemptDir is the directory of the attempt that Slurm counts as
// restart (SLURM_RESTART_COUNT, from 0) in the job directory state.
func attemptDir(state string, restart int) string {
	return filepath.Join(state, fmt.Sprintf("attempt-%d", restart+attemptsFrom(state)))
}

// readOwnAttempt is readAttempt of attempt's directory once the job
// directory is this submission's, and nothing before. attempt is
// Slurm's restart count.
func readOwnAttempt(state, token string, attempt int, roles []string, counts []int) (string, attemptState) {
	adir := attemptDir(state, attempt)
	if !ownState(state, token) {
		return adir, attemptState{started: map[jobs.TaskRef]bool{}, rc: map[jobs.TaskRef]int{}, stopped: map[int]bool{}}
	}
	return adir, readAttempt(adir, roles, counts)
}

// lastAttemptDir is the latest attempt directory in the job directory
// state (the highest number, whichever library counted), or the first
// attempt's when none exists yet.
func lastAttemptDir(state string) string {
	att, _ := filepath.Glob(filepath.Join(state, "attempt-*"))
	last, dir := -1, attemptDir(state, 0)
	for _, a := range att {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(a), "attempt-")); err == nil && n > last {
			last, dir = n, a
		}
	}
	return dir
}
