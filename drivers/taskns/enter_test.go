package taskns

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// execRootVar, set, makes the test binary the caller of ExecRoot (as
// nomad-env is in a task): it runs its arguments through it.
const execRootVar = "JOBSHIFT_TASKNS_TEST_EXECROOT"

func TestMain(m *testing.M) {
	if os.Getenv(execRootVar) != "" {
		path, err := exec.LookPath(os.Args[1])
		if err == nil {
			err = ExecRoot(path, os.Args[1:], os.Environ())
		}
		fmt.Fprintf(os.Stderr, "ExecRoot: %v\n", err)
		if errors.Is(err, ErrNotEntered) {
			os.Exit(4)
		}
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// viewCmd prints what a task sees of its view: its host names, its
// /etc/hosts, the interface variables, its uid and directory, whether its
// mount and UTS namespaces are the host's, the propagation of its root,
// the mount points of its namespace where the wrapper mounts (/, /etc,
// the cases' destinations, the scratch directory: the host's other mounts
// come and go with other tests' Nomad allocations and Docker networks,
// between the two runs a differential test compares) and the wrapper's
// variables that must not reach it.
const viewCmd = `hostname; echo "HOSTNAME=${HOSTNAME-unset}"; cat /etc/hosts; ` +
	`for v in OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME JOBSHIFT_TASKNS_INSIDE JOBSHIFT_TASKNS_MODE; do eval "echo $v=\${$v-unset}"; done; ` +
	`id -u; pwd; [ "$(readlink /proc/self/ns/mnt)" = "$HOST_MNT" ] && echo host-mnt; [ "$(readlink /proc/self/ns/uts)" = "$HOST_UTS" ] && echo host-uts; ` +
	`if [ "$(readlink /proc/self/ns/net)" = "$HOST_NET" ]; then echo host-net; else ip -o -4 addr show | awk '{ print $2, $3, $4 }'; fi; ` +
	`awk '$5 == "/" { print ($7 ~ /^shared:/) ? "/ shared" : "/ not shared" }' /proc/self/mountinfo; ` +
	`awk -v s="$VIEW_SCRATCH" '$5 == "/" || $5 ~ /^\/(etc|jobshift-test)/ || index($5, s) == 1 { print $5 }' /proc/self/mountinfo | sort`

// viewOf runs viewCmd under the wrapper with spec s (mode auto, as Nomad
// writes it; none stays none) as the given user (ModeUser: nobody),
// either as the script alone finds everything, or as nomad-env gives it:
// the node's lines in the spec and, as root, the namespaces made by
// ExecRoot. The output's scratch paths read <scratch>.
func viewOf(t *testing.T, mode Mode, s Spec, env []string, precomputed bool) string {
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
	if precomputed {
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
	if mode == ModeUser {
		if err := os.MkdirAll(s.Scratch, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(s.Scratch, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	mnt, _ := os.Readlink("/proc/self/ns/mnt")
	uts, _ := os.Readlink("/proc/self/ns/uts")
	netns, _ := os.Readlink("/proc/self/ns/net")
	env = append([]string{"PATH=" + path, "HOST_MNT=" + mnt, "HOST_UTS=" + uts, "HOST_NET=" + netns, "VIEW_SCRATCH=" + s.Scratch}, env...)
	if precomputed && mode == ModeRoot {
		argv = append([]string{os.Args[0]}, argv...)
		env = append(env, execRootVar+"=1")
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
func nodeAddr(t *testing.T) (dev, addr string) {
	out, err := exec.Command("sh", "-c", `ip -o -4 addr show | while read -r _ dev _ cidr _; do [ "$dev" = lo ] || { echo "$dev ${cidr%/*}"; break; }; done`).Output()
	dev, addr, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || !ok {
		t.Skipf("no non-loopback IPv4 address here (%v): %q", err, out)
	}
	return dev, addr
}

// TestPrecomputedSameView: for the same spec and environment, a task gets
// the same view (host name, /etc/hosts, interface variables, uid,
// namespaces and mount points) whether the script finds everything itself
// (Slurm, local) or nomad-env gave it this node's addresses and, as root,
// made the namespaces (ExecRoot); in every mode this host has, and none.
func TestPrecomputedSameView(t *testing.T) {
	dev, addr := nodeAddr(t)
	file := filepath.Join(openDir(t), "x.host")
	if err := os.WriteFile(file, []byte("x-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := Spec{Hostname: "job-worker-1", Addr: addr, Hosts: []Host{{Addr: addr, Names: []string{"job-worker-1", "job-worker-1.job"}}}}
	cases := map[string]struct {
		s   Spec
		env []string
	}{
		"own names":  {own, nil},
		"ssh here":   {own, []string{"JOBSHIFT_SSH_HOSTS=" + addr + " 2222 job-launcher," + addr + " 2223 job-worker-0 job-worker-0.job"}},
		"ssh across": {own, []string{"JOBSHIFT_SSH_HOSTS=" + addr + " 2222 job-launcher,192.0.2.77 2222 job-worker-0 job-worker-0.job", "GLOO_SOCKET_IFNAME=mine"}},
		"peers":      {own, []string{"JOBSHIFT_HOSTS=10.1.2.3 tj-node-0-0.tj PET_MASTER_ADDR", "PET_MASTER_ADDR=tj-node-0-0.tj:2"}},
		"lo":         {Spec{Hostname: "a-0", Addr: "127.0.0.1", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"a-0"}}}}, nil},
		"elsewhere":  {Spec{Hostname: "b-0", Addr: "192.0.2.99"}, nil},
		"files": {Spec{Hostname: "c-0", Addr: addr, Binds: []Bind{{Src: file, Dst: "/etc/jobshift-test/x.host", ReadOnly: true},
			{Dst: "/jobshift-test-cache", Empty: EmptyDisk}}}, nil},
		// its own network (root only): eth0 at the range's 3rd address,
		// every peer's names at its own, the node's line left out
		"own network": {Spec{Hostname: "tf-worker-1", Addr: addr, Hosts: []Host{{Addr: addr, Names: []string{"tf-worker-1", "tf-worker-1.tf"}}},
			Net: &Net{Key: "jobshift-test-view", Range: DefaultNetRange}},
			[]string{"JOBSHIFT_PEER_HOSTS=" + addr + " tf-ps-0 tf-ps-0.tf," + addr + " tf-worker-0 tf-worker-0.tf," + addr + " tf-worker-1 tf-worker-1.tf"}},
	}
	var modesHere []Mode
	if m, _ := Probe(); m != ModeNone {
		modesHere = modes(t)
	}
	for _, mode := range append(modesHere, ModeNone) {
		for name, tc := range cases {
			if mode == ModeNone && len(tc.s.Binds) > 0 || mode != ModeRoot && tc.s.Net != nil {
				continue
			}
			t.Run(string(mode)+"/"+name, func(t *testing.T) {
				computed := viewOf(t, mode, tc.s, tc.env, false)
				wants := map[string][]string{ // the view is the task's own, not the host's
					"own names":   {"job-worker-1\n", "GLOO_SOCKET_IFNAME=" + dev + "\n", "/etc/hosts\n", "host-net\n"},
					"own network": {"198.18.0.1\ttf-ps-0 tf-ps-0.tf\n198.18.0.2\ttf-worker-0 tf-worker-0.tf\n198.18.0.3\ttf-worker-1 tf-worker-1.tf\n127.0.0.1", "GLOO_SOCKET_IFNAME=eth0\nNCCL_SOCKET_IFNAME=eth0\n", "lo inet 127.0.0.1/8\n", "eth0 inet 198.18.0.3/15\n"},
				}
				if mode == ModeRoot {
					for _, want := range wants[name] {
						if !strings.Contains(computed, want) {
							t.Fatalf("the script's view lacks %q:\n%s", want, computed)
						}
					}
				}
				if pre := viewOf(t, mode, tc.s, tc.env, true); pre != computed {
					t.Errorf("precomputed view:\n%s\nthe script's own:\n%s", pre, computed)
				}
				if tc.s.Net != nil {
					noNetLeft(t)
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
	c.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", execRootVar + "=1"}
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
