package slurm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/drivers/taskns"
)

// The batch script's fixed part, the same for every job of one jobshift
// version (sh/hostlist.sh, decide.sh, batch.sh, restart.sh, task.sh: some
// 860 lines), is one library file a site audits once, not a copy inside
// every job's script. The script names it by content (its SHA-256 in the
// file name and checked before it is sourced), so a script only ever runs
// the library it was generated with:
//
//   - jobshift run -to slurm writes it into the state directory
//     (<state>/lib/jobshift-slurm-<sha12>.sh) and passes its path in
//     JOBSHIFT_SLURM_LIB;
//   - jobshift convert -to slurm -o DIR writes it beside the script (found
//     through $SLURM_SUBMIT_DIR: sbatch from DIR, or set JOBSHIFT_SLURM_LIB);
//   - convert to standard output inlines it (option library = "inline"),
//     so the one printed file still runs with plain sbatch.
const (
	LibraryFile   = "file"
	LibraryInline = "inline"
)

// library is the library's text.
func library() string {
	return "# jobshift Slurm library: the fixed part of every jobshift batch script\n" +
		"# (drivers/slurm/sh, translate/completion/restart.sh). Sourced by the batch\n" +
		"# script and by stage 1 of every task; defines functions only.\n" +
		"# shellcheck shell=sh disable=SC2154\n" +
		shRestart + shTask + taskOnly + tasknsData() + shHostlist + shDecide + shBatch
}

// tasknsData is the task view's wrapper (drivers/taskns) as the variable
// js_main writes into each attempt: fixed text, so it travels with the
// library, not with each job's data.
func tasknsData() string {
	return "_jsh_taskns=" + shQuote(taskns.Script) + "\n"
}

// taskOnly ends the part of the library a task reads (dispatch.sh sets
// _jsh_lib_task=1): the shell stops reading the file there, so each task
// parses the restart and task code only, not the batch script's (two
// thirds of the library).
const taskOnly = "\n# ---- the rest is the batch script's; a task stops reading here ----\n" +
	"# shellcheck disable=SC2317\n" +
	"[ \"${_jsh_lib_task:-0}\" = 1 ] && return 0\n\n"

// libraryName is the library's file name: versioned by its content.
func libraryName(lib string) (name, sum string) {
	h := sha256.Sum256([]byte(lib))
	sum = hex.EncodeToString(h[:])
	return "jobshift-slurm-" + sum[:12] + ".sh", sum
}

// sourceLibrary renders the lines of the batch script that find, check and
// source the library (before js_main, which it defines).
func sourceLibrary(lib string) string {
	name, sum := libraryName(lib)
	var b strings.Builder
	b.WriteString("\n# ---- jobshift library (drivers/slurm/library.go): found, checked, sourced ----\n")
	fmt.Fprintf(&b, "_jsh_lib_name=%s\n_jsh_lib_sha256=%s\n", name, sum)
	b.WriteString(`_jsh_lib=
for _l in "${JOBSHIFT_SLURM_LIB:-}" \
	"${JOBSHIFT_STATE_DIR:-${_jsh_statedir:-${SLURM_SUBMIT_DIR:-$PWD}/.jobshift}}/lib/$_jsh_lib_name" \
	"${SLURM_SUBMIT_DIR:-$PWD}/$_jsh_lib_name"; do
	if [ -z "$_l" ] || [ ! -f "$_l" ]; then continue; fi
	if ! printf '%s  %s\n' "$_jsh_lib_sha256" "$_l" | sha256sum -c --status -; then
		printf 'jobshift: error: %s is not the library this script was generated with (sha256 %s)\n' "$_l" "$_jsh_lib_sha256" >&2
		exit 97
	fi
	_jsh_lib=$_l
	break
done
if [ -z "$_jsh_lib" ]; then
	printf 'jobshift: error: library %s not found: put it beside this script and sbatch from there (jobshift convert -to slurm -o DIR writes both), or set JOBSHIFT_SLURM_LIB\n' "$_jsh_lib_name" >&2
	exit 97
fi
export _jsh_lib
# shellcheck source=/dev/null
. "$_jsh_lib"
`)
	return b.String()
}
