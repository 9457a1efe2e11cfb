package intask

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/translate/contract"
)

// View is the task namespace wrapper's input (drivers/taskns) for a task
// whose environment nomad-env evaluates: nomad-env writes the wrapper's
// script, its spec and the role's platform files into the task directory
// before it execs the wrapper, so the task needs no template for them. A
// task's first template costs the client a consul-template runner before
// the task starts (drivers/nomad view.go, BENCHMARKS.md); nomad-env runs
// anyway and writes three small files in well under a millisecond. It
// also adds this node's addresses to the spec (taskns.NodeLines) and, for
// a spec without binds, gives the task its view itself instead of the
// wrapper (taskns.ExecDirect), else as root makes the namespaces the
// wrapper would (taskns.ExecRoot): the wrapper's probe, re-exec, ip runs,
// sh, `cat` and `mount` were most of a task's start CPU.
type View struct {
	// Spec is the encoded spec (taskns.Spec.Encode) with the placeholders
	// for what only the client knows (PhIndex, PhAddr, PhTaskDir,
	// PhSecretsDir, PhAllocDir) or the running attempt (PhAttempt).
	Spec string `json:"spec"`
	// AddrVar is the task's variable holding its address (NOMAD_IP_<label>
	// of its group's first port); "" = the address the snapshot holds
	// for the task (what the watcher read from its allocation).
	AddrVar string `json:"addr_var,omitempty"`
	// Files are the role's platform files (jobs.Role.Files, whose content
	// the job's JSON leaves out), bound from ViewFilesDir/<Index>; never a
	// Secret's (those come by template from the job's Variable).
	Files []ViewFile `json:"files,omitempty"`
}

// ViewFile is one platform file's content and permission bits.
type ViewFile struct {
	Index   int    `json:"index"` // in jobs.Role.Files: ViewFilesDir/<Index>
	Content string `json:"content"`
	Mode    uint32 `json:"mode"`
}

// Placeholders in View.Spec (and in the template drivers/nomad renders
// otherwise); none can occur in a name or path the spec accepts at those
// places (names hold no '@'; PhTaskDir replaces a whole first element).
// PhAttempt is the job's attempt (AttemptEnv: job meta, which a retry
// changes), in a task network's key: a retry's tasks may start while the
// last attempt's still end on the client, and must not join their link.
const (
	PhIndex      = "@I@"
	PhAttempt    = "@N@"
	PhAddr       = "@A@"
	PhTaskDir    = "/@T@"
	PhSecretsDir = "/@S@"
	PhAllocDir   = "/@D@"
)

// The view's files in the task directory.
const (
	ViewScriptFile = "jobshift-taskns.sh"
	ViewSpecFile   = "jobshift-taskns.spec"
	ViewFilesDir   = "jobshift-files"
	ViewScratchDir = "jobshift-taskns.d"
)

// Dirs are the task's directories the spec's placeholders stand for.
type Dirs struct{ Task, Secrets, Alloc string }

// Fill is spec with its placeholders replaced by the task's values.
func Fill(spec string, index int, addr, attempt string, d Dirs) string {
	return strings.NewReplacer(PhIndex, strconv.Itoa(index), PhAddr, addr, PhAttempt, attempt, PhTaskDir, d.Task,
		PhSecretsDir, d.Secrets, PhAllocDir, d.Alloc).Replace(spec)
}

// write writes the view of task index into the task directory d.Task;
// addr is the task's address, attempt the job's, node the spec's lines of
// this node's facts (taskns.NodeLines).
func (v *View) write(d Dirs, index int, addr, attempt, node string) error {
	dir := d.Task
	if err := replaceFile(filepath.Join(dir, ViewScriptFile), []byte(taskns.Script), 0o644); err != nil {
		return err
	}
	for _, f := range v.Files {
		mode := os.FileMode(f.Mode & 0o777)
		if mode == 0 {
			mode = 0o644
		}
		if err := os.MkdirAll(filepath.Join(dir, ViewFilesDir), 0o755); err != nil {
			return err
		}
		if err := replaceFile(filepath.Join(dir, ViewFilesDir, strconv.Itoa(f.Index)), []byte(f.Content), mode); err != nil {
			return err
		}
	}
	return replaceFile(filepath.Join(dir, ViewSpecFile), []byte(Fill(v.Spec, index, addr, attempt, d)+node), 0o644)
}

// replaceFile writes path anew with exactly mode (a restarted task finds
// its read-only file of the last start there).
func replaceFile(path string, data []byte, mode os.FileMode) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode) // not the umask's
}

// viewAddr is the task's address for its view: its AddrVar's value, else
// the snapshot's address of the task.
func (te *Env) viewAddr(topo contract.Topology, index int, getenv func(string) string) (string, error) {
	if te.View.AddrVar != "" {
		if a := getenv(te.View.AddrVar); a != "" {
			return a, nil
		}
	}
	for _, r := range topo.Roles {
		if r.Name == te.Role && index < len(r.Tasks) && r.Tasks[index].Addr != "" {
			return r.Tasks[index].Addr, nil
		}
	}
	return "", fmt.Errorf("no address for %s[%d]: neither %s nor the topology snapshot holds one", te.Role, index, te.View.AddrVar)
}

// writeView writes the task's view into its task directory dir; path is
// the PATH the wrapper runs with.
func (te *Env) writeView(topo contract.Topology, index int, dir, path string) error {
	if dir == "" {
		return fmt.Errorf("NOMAD_TASK_DIR is not set")
	}
	addr, err := te.viewAddr(topo, index, os.Getenv)
	if err != nil {
		return err
	}
	attempt := os.Getenv(AttemptEnv)
	if attempt == "" && strings.Contains(te.View.Spec, PhAttempt) {
		return fmt.Errorf("%s is not set: the task's network has no key of its attempt", AttemptEnv)
	}
	d := Dirs{Task: dir, Secrets: os.Getenv("NOMAD_SECRETS_DIR"), Alloc: os.Getenv("NOMAD_ALLOC_DIR")}
	return te.View.write(d, index, addr, attempt, taskns.NodeLines(path))
}

// execView execs argv, the wrapper of the view nomad-env wrote into dir,
// or without it the wrapper's command: for a spec without binds nomad-env
// gives the task its view itself (taskns.ExecDirect: no shell, `cat` or
// `mount` run); otherwise as root it makes the namespaces and execs the
// wrapper in them (taskns.ExecRoot); else it returns to let the wrapper
// do everything.
func execView(dir, path string, argv, env []string) error {
	if len(argv) < 5 || argv[0] != "sh" || argv[1] != filepath.Join(dir, ViewScriptFile) ||
		argv[2] != filepath.Join(dir, ViewSpecFile) || argv[3] != "--" {
		return taskns.ErrNotEntered
	}
	if spec, err := os.ReadFile(argv[2]); err == nil {
		if err := taskns.ExecDirect(spec, argv[4:], env); !errors.Is(err, taskns.ErrNotEntered) {
			return err
		}
	}
	return taskns.ExecRoot(path, argv, env)
}
