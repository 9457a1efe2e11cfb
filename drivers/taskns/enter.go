package taskns

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// A caller that runs in Go on the node just before the wrapper (Nomad's
// nomad-env) spares the task the wrapper's dearest steps, each a fork and
// an exec of a few milliseconds on a loaded node: it lists this node's
// addresses for the spec (NodeLines: the script's `ip` runs) and, as root,
// makes the namespaces itself (ExecRoot: the script's probe and its
// re-exec under unshare(1)). The script then does the rest as it does
// alone (Slurm and local run it without Go), so the task's view is the
// same either way (TestPrecomputedSameView). For a spec without binds the
// caller does all of it itself (ExecDirect, direct.go).

// NodeLines are the spec lines that carry this node's facts to the
// script: "ifaddrs" with every address of the node and its interface, as
// `ip -o addr show` lists them (by interface, inet before inet6), in
// "DEV ADDR" pairs. path is the script's PATH; without ip on it the
// script names no interface, so no line is written, nor when a name
// holds what the line cannot carry (the script then runs ip itself).
func NodeLines(path string) string {
	if lookIn(path, "ip") == "" {
		return ""
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	var pairs []string
	for _, ifi := range ifs {
		addrs, err := ifi.Addrs()
		if err != nil {
			return ""
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			if !plainName(ifi.Name) {
				return ""
			}
			pairs = append(pairs, ifi.Name+" "+ipn.IP.String())
		}
	}
	if len(pairs) == 0 {
		return ""
	}
	return "ifaddrs\t" + strings.Join(pairs, " ") + "\n"
}

// plainName: an interface name the ifaddrs line carries as it is (Linux
// allows any byte but '/', ':' and white space).
func plainName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-@", c))
	})
}

// lookIn is the executable file name resolves to on path (a PATH value),
// as the shell's `command -v` finds it; "" if none.
func lookIn(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// ErrNotEntered: ExecRoot made no namespace and ran nothing; the caller
// runs the wrapper as it is (it finds its mode itself).
var ErrNotEntered = errors.New("task namespace not entered")

// insideEnv tells the script that its caller made the namespaces of mode
// root (the variables the script sets for itself when it re-executes).
var insideEnv = []string{"JOBSHIFT_TASKNS_INSIDE=root", "JOBSHIFT_TASKNS_MODE=root"}

// ExecRoot execs argv (the wrapper: Wrap) at path with env inside a
// private mount namespace (propagation private) and UTS namespace it
// makes, as the script's mode root does through `unshare --mount --uts
// --propagation private` (util-linux v2.38 sys-utils/unshare.c: unshare(2),
// then set_propagation's mount("none", "/", NULL, MS_REC|MS_PRIVATE, NULL)). It returns
// ErrNotEntered unless it is root with unshare(1) on env's PATH (what the
// script's own probe needs: the node's tasks get one view whichever runs
// them) and the kernel allows the namespaces; else only when the exec
// fails.
func ExecRoot(path string, argv, env []string) error {
	if os.Geteuid() != 0 || lookIn(envValue(env, "PATH"), "unshare") == "" {
		return ErrNotEntered
	}
	return execInNamespaces(path, argv, append(withoutInside(env), insideEnv...), nil)
}

// execInNamespaces execs argv at path with env in a private mount
// namespace (propagation private) and a UTS namespace it makes, after
// inside (nil: nothing) has run in them. It returns only on failure,
// ErrNotEntered wrapped: nothing of the namespaces outlives the failure.
func execInNamespaces(path string, argv, env []string, inside func() error) error {
	errc := make(chan error, 1)
	go func() {
		// The namespaces are this thread's alone, and it stays locked to
		// this goroutine: if it cannot exec, it ends with it and no other
		// goroutine ever runs in them.
		runtime.LockOSThread()
		if err := syscall.Unshare(syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS); err != nil {
			errc <- fmt.Errorf("%w: unshare: %v", ErrNotEntered, err)
			return
		}
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			errc <- fmt.Errorf("%w: making / private: %v", ErrNotEntered, err)
			return
		}
		if inside != nil {
			if err := inside(); err != nil {
				errc <- fmt.Errorf("%w: %v", ErrNotEntered, err)
				return
			}
		}
		errc <- syscall.Exec(path, argv, env)
	}()
	return <-errc
}

// envValue is name's value in env, the first as getenv(3) finds it.
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// withoutInside is env without the variables of insideEnv.
func withoutInside(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "JOBSHIFT_TASKNS_INSIDE=") && !strings.HasPrefix(kv, "JOBSHIFT_TASKNS_MODE=") {
			out = append(out, kv)
		}
	}
	return out
}
