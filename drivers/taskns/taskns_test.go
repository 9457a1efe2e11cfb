package taskns

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// run runs script under spec as the given mode (ModeUser: as nobody, through
// setpriv) and returns its output.
func run(t *testing.T, mode Mode, s Spec, env []string, cmd string) (string, error) {
	t.Helper()
	dir := openDir(t)
	s.Scratch = filepath.Join(dir, "scratch")
	if err := os.Mkdir(s.Scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := s.Encode(mode)
	if err != nil {
		t.Fatal(err)
	}
	script, spec := filepath.Join(dir, "taskns.sh"), filepath.Join(dir, "spec")
	for p, b := range map[string]string{script: Script, spec: string(data)} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := Wrap(script, spec, []string{"sh", "-c", cmd})
	if mode == ModeUser {
		if err := os.Chown(s.Scratch, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	c.Dir = "/"
	out, err := c.CombinedOutput()
	return string(out), err
}

func modes(t *testing.T) []Mode {
	var out []Mode
	if os.Geteuid() == 0 {
		if m, _ := Probe(); m == ModeRoot {
			out = append(out, ModeRoot)
		}
		// nobody through setpriv: the unprivileged path on this host
		if _, err := exec.LookPath("setpriv"); err == nil {
			if exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "--user", "--map-root-user", "--mount", "--uts", "true").Run() == nil {
				out = append(out, ModeUser)
			}
		}
	} else if m, _ := Probe(); m == ModeUser {
		out = append(out, ModeUser)
	}
	if len(out) == 0 {
		t.Skip("no namespace on this host")
	}
	return out
}

// TestScript: the host name, the task's /etc/hosts line, a directory and a
// file at paths the host lacks (read-only as asked), the interface
// variables (never over a set one), the caller's own uid, and nothing of it
// on the host.
func TestScript(t *testing.T) {
	data := openDir(t)
	if err := os.WriteFile(filepath.Join(data, "in.txt"), []byte("input"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, "in.txt")
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			s := Spec{Hostname: "job-worker-1", Addr: "127.0.0.1",
				Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"job-worker-1", "job-worker-1.job.ns.svc"}}},
				Binds: []Bind{{Src: data, Dst: "/jobshift-test-data/train", ReadOnly: true}, {Src: file, Dst: "/etc/jobshift-test/x.host", ReadOnly: true}}}
			out, err := run(t, mode, s, []string{"GLOO_SOCKET_IFNAME=mine"},
				`hostname; echo "$HOSTNAME"; getent hosts job-worker-1.job.ns.svc; cat /jobshift-test-data/train/in.txt; echo; cat /etc/jobshift-test/x.host; echo; `+
					`touch /jobshift-test-data/train/new 2>/dev/null || echo ro; echo "$OMPI_MCA_btl_tcp_if_include $OMPI_MCA_oob_tcp_if_include $NCCL_SOCKET_IFNAME $GLOO_SOCKET_IFNAME"; id -u; test -e /etc/passwd && echo etc`)
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			uid := "0"
			if mode == ModeUser {
				uid = "65534"
			}
			want := "job-worker-1\njob-worker-1\n127.0.0.1       job-worker-1 job-worker-1.job.ns.svc\ninput\ninput\nro\nlo lo lo mine\n" + uid + "\netc\n"
			if out != want {
				t.Errorf("got\n%s\nwant\n%s", out, want)
			}
			for _, p := range []string{"/jobshift-test-data", "/etc/jobshift-test", filepath.Join(data, "new")} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s exists on the host", p)
				}
			}
		})
	}
}

// TestScriptNone: without a namespace only the interface variables are set.
func TestScriptNone(t *testing.T) {
	host, _ := os.Hostname()
	out, err := run(t, ModeNone, Spec{Hostname: "x-0", Addr: "127.0.0.1"}, nil, `hostname; echo "$NCCL_SOCKET_IFNAME"`)
	if err != nil || out != host+"\nlo\n" {
		t.Errorf("got %q, %v; want %q", out, err, host+"\nlo\n")
	}
}

// TestScriptSSHPeersHere: OpenMPI's interface is lo when every task the
// ssh emulation reaches is at an address of this node (traffic between
// them never leaves it), and the address's own when one is elsewhere;
// Gloo's and NCCL's stay the address's. The address is this host's
// first non-loopback one (ip -o addr), a peer elsewhere a TEST-NET one.
func TestScriptSSHPeersHere(t *testing.T) {
	out, err := exec.Command("sh", "-c", `ip -o -4 addr show | while read -r _ dev _ cidr _; do [ "$dev" = lo ] || { echo "$dev ${cidr%/*}"; break; }; done`).Output()
	dev, addr, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || !ok {
		t.Skipf("no non-loopback IPv4 address here (%v): %q", err, out)
	}
	for _, tc := range []struct{ hosts, want string }{
		{addr + " 2222 job-launcher," + addr + " 2223 job-worker-0 job-worker-0.job.ns.svc", "lo lo " + dev + " " + dev},
		{addr + " 2222 job-launcher,192.0.2.77 2222 job-worker-0", dev + " " + dev + " " + dev + " " + dev},
		{"", dev + " " + dev + " " + dev + " " + dev},
	} {
		env := []string{}
		if tc.hosts != "" {
			env = append(env, "JOBSHIFT_SSH_HOSTS="+tc.hosts)
		}
		got, err := run(t, ModeNone, Spec{Addr: addr}, env, `echo "$OMPI_MCA_btl_tcp_if_include $OMPI_MCA_oob_tcp_if_include $GLOO_SOCKET_IFNAME $NCCL_SOCKET_IFNAME"`)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("hosts %q: got %q, %v; want %q", tc.hosts, got, err, tc.want)
		}
	}
}

// TestScriptPeerNames: the task's /etc/hosts resolves the names of the
// peers the ssh emulation reaches on other nodes to their addresses (as the
// platform's DNS did), and leaves out a peer at this node's address (mpirun
// would take its names for its own node).
func TestScriptPeerNames(t *testing.T) {
	mode := modes(t)[0]
	hosts := "127.0.0.1 2222 job-launcher job-launcher.job.ns.svc,192.0.2.77 2222 job-worker-0.job.ns.svc job-worker-0"
	out, err := run(t, mode, Spec{Hostname: "job-launcher", Addr: "127.0.0.1", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"job-launcher", "job-launcher.job.ns.svc"}}}},
		[]string{"JOBSHIFT_SSH_HOSTS=" + hosts},
		`getent hosts job-worker-0 job-worker-0.job.ns.svc; grep -c job-launcher /etc/hosts`)
	want := "192.0.2.77      job-worker-0.job.ns.svc job-worker-0\n192.0.2.77      job-worker-0.job.ns.svc job-worker-0\n1\n"
	if err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
}

// TestScriptPlatformPeerNames: every task's platform names
// (JOBSHIFT_PEER_HOSTS, Volcano's svc plugin) on another node resolve in
// the task's /etc/hosts; a task at this node's address is left out, and an
// entry holding a character no host name has is dropped.
func TestScriptPlatformPeerNames(t *testing.T) {
	mode := modes(t)[0]
	hosts := "127.0.0.1 tf-ps-0 tf-ps-0.tf,192.0.2.7 tf-worker-0 tf-worker-0.tf,192.0.2.8 tf-worker-1 tf-worker-1.tf,192.0.2.9 bad$name"
	out, err := run(t, mode, Spec{Hostname: "tf-ps-0", Addr: "127.0.0.1", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"tf-ps-0", "tf-ps-0.tf"}}}},
		[]string{"JOBSHIFT_PEER_HOSTS=" + hosts},
		`getent hosts tf-worker-0.tf tf-worker-1; grep -c tf-ps-0 /etc/hosts; grep -c 'bad' /etc/hosts`)
	want := "192.0.2.7       tf-worker-0 tf-worker-0.tf\n192.0.2.8       tf-worker-1 tf-worker-1.tf\n1\n0\n"
	if out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
}

// TestScriptFails: a missing source stops the task before its command
// (127), naming the path.
func TestScriptFails(t *testing.T) {
	ms := modes(t)
	out, err := run(t, ms[0], Spec{Binds: []Bind{{Src: "/nonexistent/jobshift", Dst: "/data"}}}, nil, "echo ran")
	var ee *exec.ExitError
	if err == nil || !strings.Contains(out, "/nonexistent/jobshift") || strings.Contains(out, "TASKRAN") {
		t.Fatalf("got %q, %v", out, err)
	}
	if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).ExitStatus() != 127 {
		t.Errorf("exit %v, want 127", err)
	}
}

// TestEncodeRefuses: values a line-based spec cannot carry, and paths a
// mount must not take.
func TestEncodeRefuses(t *testing.T) {
	for _, s := range []Spec{
		{Hostname: "a\nb"},
		{Binds: []Bind{{Src: "/a", Dst: "/etc/../root"}}},
		{Binds: []Bind{{Src: "/a", Dst: "data"}}},
		{Binds: []Bind{{Src: "/a\tb", Dst: "/data"}}},
		{Binds: []Bind{{Src: "/a", Dst: "/"}}},
		{Net: &Net{Key: "k", Range: "198.18.0.1/15"}},
		{Net: &Net{Key: "k", Range: "198.18.0.0/25"}},
		{Net: &Net{Key: "k", Range: "fd00::/64"}},
		{Net: &Net{Key: "", Range: DefaultNetRange}},
		{Net: &Net{Key: "a\tb", Range: DefaultNetRange}},
	} {
		if _, err := s.Encode(ModeRoot); err == nil {
			t.Errorf("%+v encoded", s)
		}
	}
}

// openDir is a temporary directory nobody (the unprivileged case) can read.
func openDir(t testing.TB) string {
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestScriptAuto: mode auto finds what the node allows (here: what Probe
// finds) and the task gets its host name.
func TestScriptAuto(t *testing.T) {
	if m, _ := Probe(); m == ModeNone {
		t.Skip("no namespace on this host")
	}
	out, err := run(t, ModeAuto, Spec{Hostname: "auto-0", Addr: "127.0.0.1"}, nil, `hostname; echo "$GLOO_SOCKET_IFNAME"; env | grep -c JOBSHIFT_TASKNS || :`)
	if err != nil || out != "auto-0\nlo\n0\n" {
		t.Errorf("got %q, %v", out, err)
	}
}

// unshareRefusing refuses the namespaces the script probes for (its
// probes run `true`) and runs anything else with the real unshare.
const unshareRefusing = `for a; do last=$a; done
[ "$last" = true ] && exit 1
exec /usr/bin/unshare "$@"`

// TestScriptAutoRefusesBinds: mode auto on a node that allows no
// namespace (not root, unshare refused: stand-ins on PATH) runs a task
// that needs only its host name with a warning, but refuses one that
// needs data at the job's path (exit 127, the path named), so the task
// never starts without its data.
func TestScriptAutoRefusesBinds(t *testing.T) {
	if _, err := os.Stat("/usr/bin/unshare"); err != nil {
		t.Skip("no /usr/bin/unshare")
	}
	bin := t.TempDir()
	for name, body := range map[string]string{"id": "echo 1000", "unshare": unshareRefusing} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + bin + ":/usr/sbin:/usr/bin:/sbin:/bin"}
	out, err := run(t, ModeAuto, Spec{Hostname: "auto-0", Addr: "127.0.0.1"}, env, `echo TASKRAN; hostname`)
	if err != nil || !strings.Contains(out, "TASKRAN") || strings.Contains(out, "auto-0\n") {
		t.Errorf("host name only: %q, %v", out, err)
	}
	// the warning names the name the task lacks, what breaks and the setting
	for _, want := range []string{"keeps the node's host name, not auto-0", "OpenMPI's shared-memory transport", "kernel.unprivileged_userns_clone=1", "container"} {
		if !strings.Contains(out, want) {
			t.Errorf("warning lacks %q: %q", want, out)
		}
	}
	data := t.TempDir()
	out, err = run(t, ModeAuto, Spec{Hostname: "auto-0", Addr: "127.0.0.1", Binds: []Bind{{Src: data, Dst: "/dataset"}}}, env, `echo TASKRAN`)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || strings.Contains(out, "TASKRAN") || !strings.Contains(out, "needs /dataset at the path the job names") {
		t.Errorf("a bind without a namespace: %q, %v", out, err)
	}
	out, err = run(t, ModeAuto, Spec{Binds: []Bind{{Src: filepath.Join(data, "ssh"), Dst: "/root/.ssh", Private: true}}}, env, `echo TASKRAN`)
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || strings.Contains(out, "TASKRAN") || !strings.Contains(out, "needs /root/.ssh at the path the job names") {
		t.Errorf("a private directory without a namespace: %q, %v", out, err)
	}
}

// TestScriptPrivateDir: a private directory is made (0700, the caller's),
// is writable at the job's path, and holds what the task wrote; the path
// itself never appears on the host. Without a namespace, mode auto
// refuses it as it refuses a bind.
func TestScriptPrivateDir(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			base := openDir(t)
			uid := 0
			if mode == ModeUser {
				uid = 65534
				if err := os.Chown(base, uid, uid); err != nil {
					t.Fatal(err)
				}
			}
			src := filepath.Join(base, "ssh")
			s := Spec{Binds: []Bind{{Src: src, Dst: "/jobshift-test-home/.ssh", Private: true}}}
			out, err := run(t, mode, s, nil, `echo key >/jobshift-test-home/.ssh/id_rsa && awk '$5 == "/jobshift-test-home/.ssh" { print "mounted" }' /proc/self/mountinfo`)
			if err != nil || out != "mounted\n" {
				t.Fatalf("got %q, %v", out, err)
			}
			fi, err := os.Stat(src)
			if err != nil || fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid != uint32(uid) {
				t.Errorf("source %s: %v %v, want a 0700 directory of uid %d", src, fi, err, uid)
			}
			if b, err := os.ReadFile(filepath.Join(src, "id_rsa")); err != nil || string(b) != "key\n" {
				t.Errorf("written file: %q, %v", b, err)
			}
			if _, err := os.Lstat("/jobshift-test-home"); err == nil {
				t.Error("/jobshift-test-home exists on the host")
			}
		})
	}
}

func TestEncodePrivateDir(t *testing.T) {
	s := Spec{Scratch: "/s", Binds: []Bind{{Src: "/t/ssh", Dst: "/root/.ssh", Private: true, ReadOnly: true}, {Src: "/d", Dst: "/data", ReadOnly: true}}}
	b, err := s.Encode(ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	want := "mode\tauto\nscratch\t/s\nbind\tro\t/d\t/data\ndir\trw\t/t/ssh\t/root/.ssh\n"
	if string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
}

// TestScriptPrivateDirFilledAtSource: a private directory whose parent
// is missing too is made (0700, the task user's); what the task writes
// through its own path (as the ssh emulation fills the platform's ssh
// files) shows at the job's path, which stays writable.
func TestScriptPrivateDirFilledAtSource(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			parent := openDir(t)
			if mode == ModeUser {
				if err := os.Chown(parent, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			src := filepath.Join(parent, "secrets", "ssh")
			s := Spec{Binds: []Bind{{Src: src, Dst: "/jobshift-test-ssh/.ssh", Private: true}}}
			out, err := run(t, mode, s, nil, `echo key >'`+src+`/id_rsa.pub' && cat /jobshift-test-ssh/.ssh/id_rsa.pub; touch /jobshift-test-ssh/.ssh/x && echo rw`)
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if out != "key\nrw\n" {
				t.Errorf("got %q, want %q", out, "key\nrw\n")
			}
			fi, err := os.Stat(src)
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("made %v, %v; want a 0700 directory", fi, err)
			}
		})
	}
}

// TestScriptPeers: JOBSHIFT_HOSTS names a peer the task reaches by its
// platform name: the view's /etc/hosts resolves it; without a namespace
// the variables that start with the name get the address instead.
func TestScriptPeers(t *testing.T) {
	env := []string{"JOBSHIFT_HOSTS=10.1.2.3 tj-node-0-0.tj PET_MASTER_ADDR JAX_COORDINATOR_ADDRESS",
		"PET_MASTER_ADDR=tj-node-0-0.tj", "JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:20000"}
	cmd := `getent hosts tj-node-0-0.tj; echo "$PET_MASTER_ADDR $JAX_COORDINATOR_ADDRESS"`
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			s := Spec{Hostname: "tj-node-0-1", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"tj-node-0-1"}}}}
			out, err := run(t, mode, s, env, cmd)
			want := "10.1.2.3        tj-node-0-0.tj\ntj-node-0-0.tj tj-node-0-0.tj:20000\n"
			if err != nil || out != want {
				t.Errorf("got %q, %v; want %q", out, err, want)
			}
		})
	}
	out, err := run(t, ModeNone, Spec{Hostname: "tj-node-0-1"}, env, `echo "$PET_MASTER_ADDR $JAX_COORDINATOR_ADDRESS"`)
	if want := "10.1.2.3 10.1.2.3:20000\n"; err != nil || out != want {
		t.Errorf("none: got %q, %v; want %q", out, err, want)
	}
}

// TestScriptTree: a bind with a tree shows what stays inside it (through
// a link inside the tree too), and refuses, before the command (127), a
// source a link leads out of the tree and a user's directory that is a
// link to another's; the outside data is never shown.
func TestScriptTree(t *testing.T) {
	top := openDir(t)
	for _, d := range []string{"proj/data/v1", "outside", "home/bob/data"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{"proj/data/v1/in.txt": "inside", "outside/secret.txt": "outside", "home/bob/data/b.txt": "bob's"} {
		if err := os.WriteFile(filepath.Join(top, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"proj/data/cur": "v1", "proj/data/escape": "../../outside", "home/alice": "bob"} {
		if err := os.Symlink(to, filepath.Join(top, link)); err != nil {
			t.Fatal(err)
		}
	}
	tree := filepath.Join(top, "proj/data")
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			ok := Bind{Src: filepath.Join(tree, "cur"), Dst: "/jobshift-test-data", Tree: tree}
			out, err := run(t, mode, Spec{Binds: []Bind{ok}}, nil, "cat /jobshift-test-data/in.txt")
			if err != nil || out != "inside" {
				t.Errorf("a link inside the tree: %q, %v", out, err)
			}
			for _, bad := range []struct {
				b    Bind
				want string
			}{
				{Bind{Src: filepath.Join(tree, "escape"), Dst: "/jobshift-test-data", Tree: tree}, "outside the mapped tree"},
				{Bind{Src: filepath.Join(top, "home/alice/data"), Dst: "/jobshift-test-data", Tree: filepath.Join(top, "home/alice"), NoLink: true}, "is a symbolic link"},
			} {
				out, err := run(t, mode, Spec{Binds: []Bind{bad.b}}, nil, "echo TASKRAN; cat /jobshift-test-data/*")
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 127 || strings.Contains(out, "TASKRAN") || !strings.Contains(out, bad.want) {
					t.Errorf("%s: %q, %v; want exit 127 and %q", bad.b.Src, out, err, bad.want)
				}
			}
		})
	}
}

// TestScriptEmptyDir: a disk emptyDir is a fresh writable directory of
// the scratch directory at the job's path, a memory one a tmpfs of the
// size asked (as /proc/mounts shows it, in KiB); neither is on the host.
func TestScriptEmptyDir(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			s := Spec{Binds: []Bind{{Dst: "/jobshift-test-cache", Empty: EmptyDisk}, {Dst: "/jobshift-test-cache/mem", Empty: EmptyMemory, SizeMiB: 8}}}
			out, err := run(t, mode, s, nil, `ls -A /jobshift-test-cache/mem; echo x > /jobshift-test-cache/mem/a && echo x > /jobshift-test-cache/b && ls /jobshift-test-cache; `+
				`while read -r _ m fs o _; do [ "$m" = /jobshift-test-cache/mem ] && echo "$fs ${o#*size=}"; done </proc/mounts | cut -d, -f1`)
			if err != nil || out != "b\nmem\ntmpfs 8192k\n" {
				t.Errorf("got %q, %v", out, err)
			}
			if _, err := os.Lstat("/jobshift-test-cache"); err == nil {
				t.Error("/jobshift-test-cache exists on the host")
			}
		})
	}
}

// TestScriptEmptyDirShared: a disk emptyDir given a directory (the
// allocation's, which an init task and the main task share on Nomad) is
// made there if missing, and what one start writes the next one reads.
func TestScriptEmptyDirShared(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			dir := filepath.Join(openDir(t), "alloc", "cache")
			if mode == ModeUser {
				if err := os.MkdirAll(filepath.Dir(dir), 0o777); err != nil {
					t.Fatal(err)
				}
				_ = os.Chmod(filepath.Dir(dir), 0o777)
			}
			s := Spec{Binds: []Bind{{Dst: "/jobshift-test-cache", Empty: EmptyDisk, Src: dir}}}
			if out, err := run(t, mode, s, nil, "echo prepared > /jobshift-test-cache/data"); err != nil {
				t.Fatalf("first start: %q, %v", out, err)
			}
			out, err := run(t, mode, s, nil, "cat /jobshift-test-cache/data")
			if err != nil || out != "prepared\n" {
				t.Errorf("second start read %q, %v", out, err)
			}
		})
	}
}

// TestScriptEmptyDirWritableByAll: an emptyDir, fresh or given a
// directory, is writable by a user other than the one that made it (0777,
// as the kubelet makes it): the command, dropped to nobody, writes there.
func TestScriptEmptyDirWritableByAll(t *testing.T) {
	if !slices.Contains(modes(t), ModeRoot) {
		t.Skip("needs root mode")
	}
	dir := filepath.Join(openDir(t), "alloc", "cache")
	s := Spec{Binds: []Bind{{Dst: "/jobshift-test-cache", Empty: EmptyDisk}, {Dst: "/jobshift-test-shared", Empty: EmptyDisk, Src: dir},
		{Dst: "/jobshift-test-mem", Empty: EmptyMemory, SizeMiB: 4}}}
	out, err := run(t, ModeRoot, s, nil, `for d in /jobshift-test-cache /jobshift-test-shared /jobshift-test-mem; do `+
		`setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'echo x > "$1/by-nobody" && stat -c "%a %U" "$1/by-nobody"' sh "$d" || exit 1; stat -c %a "$d"; done`)
	if err != nil || out != "644 nobody\n777\n644 nobody\n777\n644 nobody\n1777\n" {
		t.Errorf("got %q, %v", out, err)
	}
}

// TestScriptMemoryEmptyDirShared: a memory emptyDir given a directory (an
// init task's and its main task's on Nomad) is one tmpfs of the size asked,
// mounted on the node by the first start, so what one start writes the
// next one reads, from memory; the node's mount stays for its owner to
// unmount. Without root it is the directory on disk, with a warning.
func TestScriptMemoryEmptyDirShared(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(string(mode), func(t *testing.T) {
			dir := filepath.Join(openDir(t), "alloc", "fast")
			if mode == ModeUser {
				if err := os.MkdirAll(filepath.Dir(dir), 0o777); err != nil {
					t.Fatal(err)
				}
				_ = os.Chmod(filepath.Dir(dir), 0o777)
			}
			t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
			s := Spec{Binds: []Bind{{Dst: "/jobshift-test-fast", Empty: EmptyMemory, SizeMiB: 8, Src: dir}}}
			if out, err := run(t, mode, s, nil, "seq 1 300 > /jobshift-test-fast/train.txt"); err != nil {
				t.Fatalf("first start: %q, %v", out, err)
			}
			out, err := run(t, mode, s, nil, `wc -l < /jobshift-test-fast/train.txt; stat -f -c %T /jobshift-test-fast; `+
				`while read -r _ m fs o _; do [ "$m" = /jobshift-test-fast ] && echo "${o#*size=}"; done </proc/mounts | cut -d, -f1`)
			want := "300\ntmpfs\n8192k\n"
			if mode == ModeUser {
				want = "jobshift: warning: the memory emptyDir at /jobshift-test-fast is a directory on disk, not a tmpfs: only a task running as root can mount one that its init containers share\n300\n"
			}
			if err != nil || !strings.HasPrefix(out, want) {
				t.Errorf("second start: got %q, %v; want %q first", out, err, want)
			}
			if mode == ModeRoot {
				if b, err := exec.Command("stat", "-f", "-c", "%T", dir).Output(); err != nil || string(b) != "tmpfs\n" {
					t.Errorf("the node's %s is %q (%v), want the shared tmpfs", dir, b, err)
				}
			}
		})
	}
}

// TestScriptMemoryEmptyDirLinkRefused: the node's tmpfs is never mounted
// through a symbolic link at the shared directory (a task of the
// allocation may have made one pointing anywhere on the node).
func TestScriptMemoryEmptyDirLinkRefused(t *testing.T) {
	if !slices.Contains(modes(t), ModeRoot) {
		t.Skip("needs root mode")
	}
	target := t.TempDir()
	dir := filepath.Join(openDir(t), "fast")
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("umount", target).Run() })
	s := Spec{Binds: []Bind{{Dst: "/jobshift-test-fast", Empty: EmptyMemory, SizeMiB: 8, Src: dir}}}
	out, err := run(t, ModeRoot, s, nil, "echo ran")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || !strings.Contains(out, dir+" is a symbolic link") {
		t.Errorf("got %q, %v; want exit 127 naming the link", out, err)
	}
	if b, _ := exec.Command("stat", "-f", "-c", "%T", target).Output(); string(b) == "tmpfs\n" {
		t.Errorf("a tmpfs was mounted at the link's target %s", target)
	}
}

// TestScriptShellcheck: the script passes shellcheck as POSIX sh, notes
// included.
func TestScriptShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is not installed")
		}
		t.Skip("shellcheck not installed")
	}
	if out, err := exec.Command("shellcheck", "-s", "sh", "taskns.sh").CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}
