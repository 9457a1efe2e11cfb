package taskns

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/jobshift/jobshift/internal/shvars"
)

// callerVar, set, makes the test binary a caller in Go of the wrapper (as
// nomad-env is in a task): its arguments are a wrapper's (Wrap), and it
// tries the space-separated steps the variable names in turn: "direct"
// (ExecDirect with the spec's file), "execroot" (ExecRoot of the
// wrapper), "exec" (the arguments as they are). Exit 4: every step
// declined (ErrNotEntered); 3: another error.
const callerVar = "JOBSHIFT_TASKNS_TEST_CALLER"

func TestMain(m *testing.M) {
	if steps := os.Getenv(callerVar); steps != "" {
		os.Exit(caller(strings.Fields(steps), os.Args[1:]))
	}
	os.Exit(m.Run())
}

func caller(steps, argv []string) int {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, callerVar+"=") })
	var declined error
	for _, step := range steps {
		var err error
		switch step {
		case "direct":
			var spec []byte
			if spec, err = os.ReadFile(argv[2]); err == nil {
				err = ExecDirect(spec, argv[4:], env)
			}
		case "execroot", "exec":
			path, lerr := exec.LookPath(argv[0])
			switch {
			case lerr != nil:
				err = lerr
			case step == "execroot":
				err = ExecRoot(path, argv, env)
			default:
				err = syscall.Exec(path, argv, env)
			}
		}
		if !errors.Is(err, ErrNotEntered) {
			fmt.Fprintf(os.Stderr, "caller %v: %s: %v\n", steps, step, err)
			return 3
		}
		declined = err
	}
	fmt.Fprintf(os.Stderr, "caller %v: %v\n", steps, declined)
	return 4
}

// viewCmd prints what a task sees of its view: its host names, its
// /etc/hosts, the interface variables, its uid and directory, whether its
// mount and UTS namespaces are the host's, the propagation of its root,
// the mount points of its namespace where the wrapper mounts (/, /etc,
// the cases' destinations, the scratch directory and an underlay's
// entries, not the mounts below them: the host's other mounts come and go
// with other tests' Nomad allocations and Docker networks, between the two
// runs a differential test compares), the wrapper's
// variables that must not reach it, and the whole environment the wrapper
// gave it (its shell's initial one, sorted).
const viewCmd = `hostname; echo "HOSTNAME=${HOSTNAME-unset}"; cat /etc/hosts; ` +
	`for v in OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME JOBSHIFT_TASKNS_INSIDE JOBSHIFT_TASKNS_MODE; do eval "echo $v=\${$v-unset}"; done; ` +
	`id -u; pwd; [ "$(readlink /proc/self/ns/mnt)" = "$HOST_MNT" ] && echo host-mnt; [ "$(readlink /proc/self/ns/uts)" = "$HOST_UTS" ] && echo host-uts; ` +
	`awk '$5 == "/" { print ($7 ~ /^shared:/) ? "/ shared" : "/ not shared" }' /proc/self/mountinfo; ` +
	`awk -v s="$VIEW_SCRATCH" '$5 == "/" || $5 ~ /^\/(etc|jobshift-test)/ || index($5, s) == 1 && split(substr($5, length(s) + 2), p, "/") <= 2 { print $5 }' /proc/self/mountinfo | sort; ` +
	`echo environment:; tr '\0' '\n' </proc/$$/environ | sort`

// viewOf runs viewCmd under the wrapper with spec s (mode auto, as Nomad
// writes it; none stays none) as the given user (ModeUser: nobody),
// either as the script alone finds everything (steps ""), or as a caller
// in Go gives it (steps: callerVar's): the node's lines in the spec, then
// the caller's steps. The output's scratch paths read <scratch>.
func viewOf(t *testing.T, mode Mode, s Spec, env []string, steps string) string {
	t.Helper()
	dir := openDir(t)
	s.Scratch = filepath.Join(dir, "scratch")
	specMode := ModeAuto
	if mode == ModeNone {
		specMode = ModeNone
	}
	data, err := s.Encode(specMode)
	if err != nil {
		t.Fatal(err)
	}
	const path = "/usr/sbin:/usr/bin:/sbin:/bin"
	if steps != "" {
		node := NodeLines(path)
		if node == "" {
			t.Fatal("no ifaddrs line on a node with ip")
		}
		data = append(data, node...)
	}
	script, spec := filepath.Join(dir, "taskns.sh"), filepath.Join(dir, "spec")
	for p, b := range map[string]string{script: Script, spec: string(data)} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := Wrap(script, spec, []string{"sh", "-c", viewCmd})
	mnt, _ := os.Readlink("/proc/self/ns/mnt")
	uts, _ := os.Readlink("/proc/self/ns/uts")
	env = append([]string{"PATH=" + path, "HOST_MNT=" + mnt, "HOST_UTS=" + uts, "VIEW_SCRATCH=" + s.Scratch}, env...)
	if steps != "" {
		argv = append([]string{os.Args[0]}, argv...)
		env = append(env, callerVar+"="+steps)
	}
	if mode == ModeUser {
		if err := os.MkdirAll(s.Scratch, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(s.Scratch, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = env
	c.Dir = "/"
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return strings.ReplaceAll(string(out), s.Scratch, "<scratch>")
}

// nodeAddr is this node's first address off lo and its interface, from ip.
func nodeAddr(t testing.TB) (dev, addr string) {
	out, err := exec.Command("sh", "-c", `ip -o -4 addr show | while read -r _ dev _ cidr _; do [ "$dev" = lo ] || { echo "$dev ${cidr%/*}"; break; }; done`).Output()
	dev, addr, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || !ok {
		t.Skipf("no non-loopback IPv4 address here (%v): %q", err, out)
	}
	return dev, addr
}

// TestPrecomputedSameView: for the same spec and environment, a task gets
// the same view (host name, /etc/hosts, interface variables, uid,
// namespaces, mount points and environment) whether the script finds
// everything itself (Slurm, local) or nomad-env gives it: this node's
// addresses in the spec, then without binds ExecDirect (no script at all;
// the cases marked script are the ones it must leave to the script), else
// as root ExecRoot and the script; in every mode this host has, and none.
func TestPrecomputedSameView(t *testing.T) {
	dev, addr := nodeAddr(t)
	file := filepath.Join(openDir(t), "x.host")
	if err := os.WriteFile(file, []byte("x-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := Spec{Hostname: "job-worker-1", Addr: addr, Hosts: []Host{{Addr: addr, Names: []string{"job-worker-1", "job-worker-1.job"}}}}
	cases := map[string]struct {
		s      Spec
		env    []string
		script bool
	}{
		"own names":  {s: own},
		"ssh here":   {s: own, env: []string{"JOBSHIFT_SSH_HOSTS=" + addr + " 2222 job-launcher," + addr + " 2223 job-worker-0 job-worker-0.job"}},
		"ssh across": {s: own, env: []string{"JOBSHIFT_SSH_HOSTS=" + addr + " 2222 job-launcher,192.0.2.77 2222 job-worker-0 job-worker-0.job", "GLOO_SOCKET_IFNAME=mine"}},
		"peers": {s: own, env: []string{"JOBSHIFT_HOSTS=10.1.2.3 tj-node-0-0.tj PET_MASTER_ADDR 9X,,10.1.2.4 tj-node-0-2.tj NOPE JAX_COORDINATOR_ADDRESS",
			"PET_MASTER_ADDR=tj-node-0-0.tj:2", "JAX_COORDINATOR_ADDRESS=tj-node-0-2.tj:3", "PWD=/usr/.."}},
		"platform peers": {s: own, env: []string{"JOBSHIFT_PEER_HOSTS=" + addr + " tf-ps-0 tf-ps-0.tf,192.0.2.7 tf-worker-0 tf-worker-0.tf,192.0.2.9 bad$name,192.0.2.8  tf-worker-1",
			"OMPI_MCA_btl_tcp_if_include="}},
		"lo":        {s: Spec{Hostname: "a-0", Addr: "127.0.0.1", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"a-0"}}}}, env: []string{"PWD=/nonexistent"}},
		"elsewhere": {s: Spec{Hostname: "b-0", Addr: "192.0.2.99"}},
		"no names":  {s: Spec{Addr: addr}, env: []string{"JOBSHIFT_SSH_HOSTS=192.0.2.77 2222 w-0"}},
		"job variables named as the script's": {s: own, env: append(shvars.Env(shvars.Sentinels(Script, regexp.MustCompile(`^_jsn_`), taskOutput)),
			"JOBSHIFT_HOSTS=10.1.2.3 peer-0 PEERVAR", "PEERVAR=peer-0:1", "JOBSHIFT_SSH_HOSTS=192.0.2.77 22 w-0", "JOBSHIFT_PEER_HOSTS=192.0.2.78 p-0")},
		"a name":    {s: Spec{Hostname: "d-0", Addr: "localhost", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"d-0"}}}}, script: true},
		"a pattern": {s: own, env: []string{"JOBSHIFT_HOSTS=10.1.2.3 tj-* PET_MASTER_ADDR"}, script: true},
		"files": {s: Spec{Hostname: "c-0", Addr: addr, Binds: []Bind{{Src: file, Dst: "/etc/jobshift-test/x.host", ReadOnly: true},
			{Dst: "/jobshift-test-cache", Empty: EmptyDisk}}}, script: true},
	}
	var modesHere []Mode
	if m, _ := Probe(); m != ModeNone {
		modesHere = modes(t)
	}
	for _, mode := range append(modesHere, ModeNone) {
		for name, tc := range cases {
			if mode == ModeNone && len(tc.s.Binds) > 0 {
				continue
			}
			// nomad-env's steps; "direct" alone where ExecDirect must
			// enter (the caller exits 4 if it declines)
			steps := map[Mode]string{ModeRoot: "direct execroot exec", ModeUser: "direct execroot exec", ModeNone: "direct exec"}[mode]
			if !tc.script && mode != ModeUser {
				steps = "direct"
			}
			t.Run(string(mode)+"/"+name, func(t *testing.T) {
				computed := viewOf(t, mode, tc.s, tc.env, "")
				if mode == ModeRoot && name == "own names" { // the view is the task's own, not the host's
					for _, want := range []string{"job-worker-1\n", "GLOO_SOCKET_IFNAME=" + dev + "\n", "/etc/hosts\n"} {
						if !strings.Contains(computed, want) {
							t.Fatalf("the script's view lacks %q:\n%s", want, computed)
						}
					}
				}
				if pre := viewOf(t, mode, tc.s, tc.env, steps); pre != computed {
					t.Errorf("nomad-env's view (%s):\n%s\nthe script's own:\n%s", steps, pre, computed)
				}
				for _, p := range []string{"/etc/jobshift-test", "/jobshift-test-cache"} {
					if _, err := os.Lstat(p); err == nil {
						t.Errorf("%s exists on the host", p)
					}
				}
			})
		}
	}
}

// TestNodeLines: the ifaddrs line lists what `ip -o addr show` does (each
// inet and inet6 address with its interface, in ip's order), and is left
// out when the script's PATH has no ip (which then sets no interface).
func TestNodeLines(t *testing.T) {
	out, err := exec.Command("ip", "-o", "addr", "show").Output()
	if err != nil {
		t.Skipf("ip: %v", err)
	}
	var pairs []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 && (f[2] == "inet" || f[2] == "inet6") {
			dev, _, _ := strings.Cut(f[1], "@")
			a, _, _ := strings.Cut(f[3], "/")
			pairs = append(pairs, dev+" "+a)
		}
	}
	path := filepath.Dir(mustLook(t, "ip"))
	if got, want := NodeLines(path), "ifaddrs\t"+strings.Join(pairs, " ")+"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := NodeLines(t.TempDir()); got != "" {
		t.Errorf("no ip on the PATH: got %q", got)
	}
}

// TestExecRootNotRoot: not root, ExecRoot makes nothing and runs nothing.
func TestExecRootNotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to become nobody")
	}
	mustLook(t, "setpriv")
	c := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", os.Args[0], "sh", "-c", "echo TASKRAN")
	c.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", callerVar + "=execroot"}
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 || strings.Contains(string(out), "TASKRAN") {
		t.Errorf("got %q, %v; want exit 4 (not entered) and no command run", out, err)
	}
}

func mustLook(t *testing.T, name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s: %v", name, err)
	}
	return p
}

// TestExecDirectDeclines: ExecDirect leaves to the script (ErrNotEntered,
// nothing run: the caller exits 4) every spec and environment it does not
// give as the script would; the same spec without the cause is entered
// (the command, `true` on the PATH, runs). As root.
func TestExecDirectDeclines(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only")
	}
	const base = "mode\tauto\nhostname\tw-0\nhost\t127.0.0.1\tw-0\naddr\t127.0.0.1\n"
	const path = "PATH=/usr/sbin:/usr/bin:/sbin:/bin"
	for _, tc := range []struct {
		name, spec string
		env        []string
	}{
		{"a bind", "bind\tro\t/etc\t/jobshift-test-etc\n", nil},
		{"an emptyDir", "empty\tmemory\t0\t/jobshift-test-tmp\n", nil},
		{"a private directory", "dir\trw\t/tmp/jobshift-test-d\t/jobshift-test-d\n", nil},
		{"an item it does not know", "netns\tjob-0\n", nil},
		{"an address that is a name", "addr\tlocalhost\n", nil},
		{"a peer's address that is a name", "", []string{"JOBSHIFT_HOSTS=peer.example p-0 V"}},
		{"a file name pattern", "", []string{"JOBSHIFT_SSH_HOSTS=192.0.2.1 22 w-*"}},
		{"the wrapper's own variable", "", []string{"JOBSHIFT_TASKNS_MODE=user"}},
		{"no node addresses, ip on the PATH", "-ifaddrs", nil},
		{"no PATH", "-path", nil},
		{"none in the spec, a peer variable the shell owns", "mode\tnone\n", []string{"JOBSHIFT_HOSTS=10.0.0.1 p-0 IFS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := openDir(t)
			scratch := "scratch\t" + filepath.Join(dir, "scratch") + "\n"
			node := NodeLines("/usr/sbin:/usr/bin:/sbin:/bin")
			env := []string{path}
			spec := scratch + tc.spec + base + node // the cause's line first: a key's first value wins
			switch tc.spec {
			case "-path": // mode none: nothing else needs the PATH
				spec, env = scratch+"mode\tnone\n"+base+node, nil
			case "-ifaddrs":
				spec = scratch + base
			}
			run := func(spec string) (int, string) {
				p := filepath.Join(dir, "spec")
				if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
					t.Fatal(err)
				}
				c := exec.Command(os.Args[0], Wrap(filepath.Join(dir, "taskns.sh"), p, []string{"true"})...)
				c.Env = append(append(env, tc.env...), callerVar+"=direct")
				out, _ := c.CombinedOutput()
				return c.ProcessState.ExitCode(), string(out)
			}
			if code, out := run(spec); code != 4 || !strings.Contains(out, "the script's path") {
				t.Errorf("exit %d, %q; want 4 (declined)", code, out)
			}
			if tc.spec == "-path" || tc.spec == "-ifaddrs" {
				return
			}
			// without the cause it is entered
			env = []string{path}
			tc.env = nil
			if code, out := run(scratch + base + node); code != 0 {
				t.Errorf("without the cause: exit %d, %q; want 0", code, out)
			}
		})
	}
}
