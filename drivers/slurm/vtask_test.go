package slurm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/translate/completion"
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

// TestRestartTaskLoop runs the two tasks of
// examples/testdata/volcano-policy-restarttask-all.yaml as stage 1 runs
// them (js_task_main with its restart data; only the node check and the
// environment of js_enter left out), under dash and bash, sharing one
// attempt directory: worker-0 exits 3 (RestartTask), and worker-1's first
// run, which would sleep a minute and fail, is stopped and started again
// in place by its watcher, uncounted; both succeed on their second runs
// and RetryCount is 1 (job_controller_actions.go killPods, state/running.go
// @v1.16.0-alpha.1).
func TestRestartTaskLoop(t *testing.T) {
	job := loadJob("../../examples/testdata/volcano-policy-restarttask-all.yaml")()
	c := job.Roles[0].Command
	argv := append(append([]string{}, c.Command...), c.Args...)
	prog := shRestart + shTask + restartData(job, completion.Backoff{Initial: 200 * time.Millisecond, Max: 6 * time.Second}) +
		"_t_n_0=2 _t_uai_ps=0\njs_enter() { :; }\n_jsh_adir=$1 SLURM_PROCID=$2\njs_task_main 0\n"
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			path, err := exec.LookPath(sh)
			if err != nil {
				t.Skipf("%s not installed", sh)
			}
			dir, runs := t.TempDir(), t.TempDir()
			files := map[string]string{"task": prog, "cmd": argv[len(argv)-1],
				"contract-task.sh": "VK_TASK_INDEX=$_k_i VC_RUNS=" + shQuote(runs) + "\nexport VK_TASK_INDEX VC_RUNS\nexec sh \"$_k_dir/cmd\"\n"}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			began := time.Now()
			var tasks []*exec.Cmd
			var errs [2]strings.Builder
			for i := range 2 {
				cmd := exec.Command(path, filepath.Join(dir, "task"), dir, fmt.Sprint(i))
				cmd.Stderr = &errs[i]
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				tasks = append(tasks, cmd)
			}
			for i, cmd := range tasks {
				if err := cmd.Wait(); err != nil {
					t.Errorf("worker-%d: %v\n%s", i, err, errs[i].String())
				}
			}
			if d := time.Since(began); d > 30*time.Second {
				t.Errorf("the tasks took %s: worker-1's first run was not stopped", d)
			}
			got := map[string]string{}
			for _, f := range []string{"restarted.0.0", "restarted.0.1", "restarts.job"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				got[f] = strings.TrimSpace(string(b))
			}
			want := map[string]string{"restarted.0.0": "3", "restarted.0.1": "143", "restarts.job": "1"}
			if d := cmp.Diff(want, got); d != "" || !strings.Contains(errs[1].String(), "stopped by the RestartTask of its task") {
				t.Errorf("(-want +got):\n%s\nworker-1's stderr:\n%s", d, errs[1].String())
			}
		})
	}
}
