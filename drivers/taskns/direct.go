package taskns

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ExecDirect is the script's work for a spec without binds, done by its
// caller in Go (nomad-env) with no shell, fork or exec besides the
// command's own: the task's host name (sethostname(2) in a UTS namespace
// of its own), its /etc/hosts (the file written here and bound over the
// host's with mount(2) in a private mount namespace), the peers' addresses
// in their variables (mode none) and the interface variables; then it
// execs argv, the task's command, with env and those. On a 2-core node the
// script's sh, `cat` and `mount` cost each task's start about 3–6 ms of
// CPU even when nomad-env made the namespaces (BENCHMARKS.md).
//
// It reads spec (the script's input: Spec.Encode, with NodeLines) as the
// script does and gives the command the same view, which
// TestPrecomputedSameView holds it to. It returns ErrNotEntered, having
// changed nothing the script would not make again, whenever the script
// must run instead: a bind, dir or empty line (the underlays and mount
// checks stay the script's alone), or a line of a kind it does not know;
// not root, or no unshare(1) on env's PATH (the script's own probe: a user
// namespace cannot be made by a process with threads, unshare(2) EINVAL,
// and the script's probe needs unshare(1)); an address that is a name
// (the script resolves it with getent, whose order Go's resolver does not
// promise); the node's addresses not in the spec while ip is on the PATH;
// a list entry the script's loops would glob; the wrapper's variables
// already set; a failure before the exec (the script then reports it, as
// it would have).
//
// The command gets the script's environment: the caller's, one value per
// name (the last, as sh imports it), PWD as sh sets it at its start
// (dash 0.5.12 src/var.c INIT: kept when it names the working directory,
// else getcwd(3)), and the view's variables. What dash alone also does to
// an environment (dropping names that are not shell names, resetting IFS,
// PPID and OPTIND) is not done: bash, /bin/sh elsewhere, does not either.
func ExecDirect(spec []byte, argv, env []string) error {
	d, err := planDirect(spec, argv, env)
	if err != nil {
		return err
	}
	if err := d.prepare(); err != nil {
		return err
	}
	if d.mode == ModeNone {
		return notEntered(syscall.Exec(d.path, d.argv, d.env))
	}
	return notEntered(execInNamespaces(d.path, d.argv, d.env, d.inside))
}

// direct is what ExecDirect does for one task.
type direct struct {
	mode    Mode // root or none
	scratch string
	name    string // the host name, "" = the host's
	hosts   []byte // the task's /etc/hosts lines ahead of the host's
	path    string
	argv    []string
	env     []string
}

// decline: the script must run (ExecDirect's list).
func decline(why string, a ...any) error {
	return fmt.Errorf("%w: the script's path (%s)", ErrNotEntered, fmt.Sprintf(why, a...))
}

// notEntered is err as ErrNotEntered: even the command's exec failing is
// the script's to report (sh runs a file without #! itself).
func notEntered(err error) error {
	if errors.Is(err, ErrNotEntered) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrNotEntered, err)
}

// planDirect decides everything before anything is made, in the order the
// script does it.
func planDirect(data []byte, argv, env []string) (*direct, error) {
	if len(argv) == 0 {
		return nil, decline("no command")
	}
	sp, err := readSpec(data)
	if err != nil {
		return nil, err
	}
	env = lastValues(env)
	for _, k := range []string{"JOBSHIFT_TASKNS_INSIDE", "JOBSHIFT_TASKNS_MODE"} {
		if _, ok := lookup(env, k); ok {
			return nil, decline("%s is set", k)
		}
	}
	d := &direct{scratch: sp.first["scratch"], argv: argv}
	if err := d.chooseMode(sp, env); err != nil {
		return nil, err
	}
	if env, err = withPWD(env); err != nil {
		return nil, err
	}
	st := &viewState{sp: sp, env: env}
	if err := st.nodeAddrs(); err != nil {
		return nil, err
	}
	if d.mode == ModeRoot {
		d.name = sp.first["hostname"]
		if d.name != "" {
			st.env = setVar(st.env, "HOSTNAME", d.name)
		}
		if d.hosts, err = st.hostsLines(); err != nil {
			return nil, err
		}
	} else if err := st.peerAddrs(); err != nil {
		return nil, err
	}
	if err := st.ifaceVars(sp.first["addr"]); err != nil {
		return nil, err
	}
	d.env = st.env
	return d, d.lookPath()
}

// chooseMode is the script's mode for this caller: none as written; root
// or auto as root, where the script's probe finds root.
func (d *direct) chooseMode(sp *specFile, env []string) error {
	if sp.binds {
		return decline("a bind, dir or empty line")
	}
	switch Mode(sp.first["mode"]) {
	case ModeNone:
		d.mode = ModeNone
		return nil
	case ModeRoot, ModeAuto:
		path, _ := lookup(env, "PATH")
		if os.Geteuid() != 0 || lookIn(path, "unshare") == "" {
			return decline("not root, or no unshare on the PATH")
		}
		if d.scratch == "" {
			return decline("no scratch directory")
		}
		d.mode = ModeRoot
		return nil
	}
	return decline("mode %q", sp.first["mode"])
}

// lookPath finds the command as sh's exec does, on the PATH the command
// gets.
func (d *direct) lookPath() error {
	d.path = d.argv[0]
	if !strings.Contains(d.path, "/") {
		// without a PATH none is found here; sh searches a default one
		path, _ := lookup(d.env, "PATH")
		if d.path = lookIn(path, d.argv[0]); d.path == "" {
			return decline("%s not found", d.argv[0])
		}
	}
	return nil
}

// prepare makes the scratch directory and writes the task's /etc/hosts
// into it: its lines, then the host's (the first match wins).
func (d *direct) prepare() error {
	if d.scratch != "" {
		if err := os.MkdirAll(d.scratch, 0o777); err != nil {
			return notEntered(err)
		}
	}
	if d.mode != ModeRoot {
		return nil
	}
	data := d.hosts
	if len(data) > 0 {
		// the script's mountpoint underlays /etc to make a missing one
		fi, err := os.Stat("/etc/hosts")
		if err != nil {
			return decline("no /etc/hosts to mount over")
		}
		if fi.Mode().IsRegular() {
			host, err := os.ReadFile("/etc/hosts")
			if err != nil {
				return notEntered(err)
			}
			data = append(append([]byte(nil), data...), host...)
		}
	}
	if err := os.WriteFile(filepath.Join(d.scratch, "hosts"), data, 0o666); err != nil {
		return notEntered(err)
	}
	return nil
}

// inside runs in the new namespaces, before the exec: the host name
// (the script's write to /proc/sys/kernel/hostname) and the bind of the
// task's /etc/hosts (mount --bind: util-linux v2.38 mount(8), MS_BIND).
func (d *direct) inside() error {
	if d.name != "" {
		if err := syscall.Sethostname([]byte(d.name)); err != nil {
			return fmt.Errorf("setting the host name %s: %w", d.name, err)
		}
	}
	if len(d.hosts) > 0 {
		if err := syscall.Mount(filepath.Join(d.scratch, "hosts"), "/etc/hosts", "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("mounting the task's /etc/hosts: %w", err)
		}
	}
	return nil
}

// withPWD is env with PWD as sh sets it at its start.
func withPWD(env []string) ([]string, error) {
	if p, ok := lookup(env, "PWD"); ok && sameFile(p, ".") {
		return env, nil
	}
	wd, err := syscall.Getwd()
	if err != nil {
		return nil, decline("no working directory: %v", err)
	}
	return setVar(env, "PWD", wd), nil
}

func sameFile(p, q string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	a, err1 := os.Stat(p)
	b, err2 := os.Stat(q)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// lastValues is env with one entry per name, the last (sh's import),
// at the place of the first.
func lastValues(env []string) []string {
	last := make(map[string]string, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = kv
	}
	out := make([]string, 0, len(last))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if v, ok := last[k]; ok {
			out = append(out, v)
			delete(last, k)
		}
	}
	return out
}

// lookup is name's value in env (one entry per name).
func lookup(env []string, name string) (string, bool) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// setVar is env with name set to value (exported, as the script does).
func setVar(env []string, name, value string) []string {
	for i, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			out := append([]string(nil), env...)
			out[i] = name + "=" + value
			return out
		}
	}
	return append(env[:len(env):len(env)], name+"="+value)
}
