package slurm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRestartTaskWatcher runs task 1 of a role with a RestartTask policy
// as stage 1 does (sh/task.sh, under dash and bash): its command, started
// by js_start, leaves a child; task 0's restart bumps the role's
// generation (js_vt_bump) and task 1's watcher stops the command and its
// child (Volcano's killPods with TargetTypeTask kills every pod of the
// task, job_controller_actions.go @v1.16.0-alpha.1), marked as its run's
// stop (js_vt_marked); a bump of task 1's own stops nothing; a bump
// while task 1 waits out a back-off ends the wait at once, marked "-".
func TestRestartTaskWatcher(t *testing.T) {
	script := `
_k_dir=$1 _k_r=0 _k_i=1 _k_vt=1
cat >"$_k_dir/contract-task.sh" <<'EOF'
exec sh -c 'sleep 60 & echo $! >"$0/child"; wait' "$_k_dir"
EOF
trap '[ -n "${_s_pid:-}" ] && kill -KILL "$_s_pid" 2>/dev/null' USR1
js_vt_watch &
_k_vw=$!
sleep 0.7
(sleep 0.5; _k_i=0 js_vt_bump) &
(js_start)
echo "command ended $?"
read -r _k_vrun <"$_k_dir/vpid.0.1"
: >"$_k_dir/vpid.0.1"
js_vt_marked "$_k_vrun" && echo "stopped for task $(cut -d' ' -f2 "$_k_dir/vgen.0")"
i=0
while js_vt_alive "$(cat "$_k_dir/child")" && [ "$i" -lt 10 ]; do sleep 0.1; i=$((i + 1)); done
js_vt_alive "$(cat "$_k_dir/child")" && echo "child left running"
: >"$_k_dir/vkill.0.1"
js_vt_bump
sleep 1.2
js_vt_marked - && echo "own bump stopped the task"
(sleep 0.5; _k_i=2 js_vt_bump) &
_k_stop=0
t0=$(date +%s)
js_sleep_ms 30000
js_vt_marked - && echo "back-off ended after $(($(date +%s) - t0)) s or less"
kill -TERM "$_k_vw"
wait "$_k_vw"
echo "watcher ended $?"
`
	want := []string{"command ended 143", "stopped for task 0", "back-off ended after 2 s or less", "watcher ended 0"}
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			dir := t.TempDir()
			out, code := runSh(t, sh, shRestart+shTask, script, dir)
			got := lines(out)
			// the back-off line says how long it took, at most: whole seconds
			for i, l := range got {
				if l == "back-off ended after 0 s or less" || l == "back-off ended after 1 s or less" {
					got[i] = "back-off ended after 2 s or less"
				}
			}
			if d := cmp.Diff(want, got); d != "" || code != 0 {
				b, _ := os.ReadFile(filepath.Join(dir, "vgen.0"))
				t.Errorf("exit %d, vgen.0 %q; output (-want +got):\n%s", code, b, d)
			}
		})
	}
}
