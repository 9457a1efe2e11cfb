// Package taskns gives a plain process what its pod or container had
// besides its command: its platform host name (a private UTS namespace),
// an /etc/hosts where its peers' platform names resolve (also those of the
// ssh emulation's peers on other nodes: mpirun resolves every hostfile name
// to find its own node, and a name no DNS server knows costs the server's
// timeouts; one on this node is left out, or mpirun would take it for its
// own node), data and platform
// files at the job's own paths (a private mount namespace), and the
// interface that carries its address for the collective libraries
// (OpenMPI's btl/oob_tcp_if_include, GLOO_SOCKET_IFNAME,
// NCCL_SOCKET_IFNAME, never over a value the job set; OpenMPI's is lo when
// every task its mpirun reaches through the ssh emulation is on this node,
// where their traffic goes through lo and a bridge address's source may be
// rewritten: Docker masquerades 172.17.0.0/16 leaving by lo), and, where a
// job's tasks that each had a network of their own share a host, a network
// namespace of its own there, linked to its peers' (Net, as root).
//
// The work on the node is done by Script (taskns.sh), a POSIX sh wrapper
// around the task's command that uses util-linux unshare(1) and mount(8):
// every target can run it — the local driver, a Slurm step (whose nodes
// have sh and util-linux but not necessarily jobshift), a Nomad raw_exec or
// exec task — with its data in a spec file, never in the script's text.
// A caller in Go on the node (Nomad's nomad-env) may spare the script its
// dearest steps (enter.go: NodeLines, ExecRoot; the script does the
// rest), or, for a spec without binds, do all of it with no script run
// (direct.go: ExecDirect, held to the script's view by a differential
// test).
// A directory at a path the host does not have (/train, /etc/volcano) is
// made in the task's view only: the nearest existing parent is shown
// through a tmpfs holding binds of its entries (an "underlay"), so the host
// is never written and nothing of its mount table changes.
//
// Where neither root nor unprivileged user namespaces are available
// (Probe), files and data cannot be placed: drivers refuse the job, located
// at what needs them (Refusal), and warn that host names stay the host's
// (Warning); the interface variables are still set (ModeNone).
// Containers (docker, podman) get mounts and --hostname instead.
package taskns

import (
	_ "embed"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// Script is the node-side wrapper: `sh <script> SPEC -- argv...`.
//
//go:embed taskns.sh
var Script string

// Mode is how the wrapper makes the task's namespaces.
type Mode string

const (
	// ModeRoot: unshare the mount and UTS namespaces (root).
	ModeRoot Mode = "root"
	// ModeUser: the same inside an unprivileged user namespace; the
	// command runs under the caller's own uid and gid again.
	ModeUser Mode = "user"
	// ModeNone: no namespace; only the interface variables are set.
	ModeNone Mode = "none"
	// ModeAuto: the wrapper probes the node (root, then user, else none
	// with a warning on the task's stderr), for a target that renders
	// before it knows its nodes.
	ModeAuto Mode = "auto"
)

// Bind puts Src (a directory or a file on the node) at Dst in the task's
// view. With a Tree, Src must stay inside it once the node has resolved
// the symbolic links of both, and what is mounted is the resolved path
// (a link changed after the check is never followed); with NoLink the
// Tree itself must not be a link (a user's directory: siteconfig.Mapped).
//
// Empty, set, makes Dst an emptyDir instead: a directory ("disk"; Src,
// made if missing, or "" for a fresh one of this start's scratch), made
// writable by every user, or a tmpfs ("memory") of SizeMiB (0: the
// kernel's default, half the node's memory): the task's own, or, with a
// Src, the one mounted at Src on the node (outside any task's namespace,
// by the first wrapper running as root that needs it), which several
// tasks then share; its owner unmounts it when they are done.
type Bind struct {
	Src, Dst string
	ReadOnly bool
	// Private: Src is a directory the wrapper makes (0700) if it is
	// missing, for the task to write in (the ssh emulation's platform
	// files, drivers/sshemu FilesVar): a target that renders before the
	// task starts (Nomad) has no other way to make one. Always writable.
	Private bool
	Tree    string
	NoLink  bool
	Empty   string
	SizeMiB int64
}

// The media of Bind.Empty.
const (
	EmptyDisk   = "disk"
	EmptyMemory = "memory"
)

// Host is one /etc/hosts line of the task's view.
type Host struct {
	Addr  string
	Names []string
}

// Spec is what one task gets.
type Spec struct {
	// Hostname is the task's platform host name ("" = the host's).
	Hostname string
	// Hosts resolve the task's own and its peers' platform names.
	Hosts []Host
	// Binds are data and platform files at the job's paths.
	Binds []Bind
	// Addr is the task's own address (an IP, or a name the node resolves)
	// whose interface the collective libraries are told; "" = none.
	Addr string
	// Scratch is a directory private to this start of the task (the
	// task's /etc/hosts and underlays are made there).
	Scratch string
	// Net, set, gives the task a network of its own (root only): see Net.
	Net *Net
}

// Net is a task's own network namespace on a node its peers share, as
// each pod had its own network: a job whose tasks all listen on one port
// at their peers' names (Volcano's TensorFlow shape) runs on one host.
// The task's address is Range's (N+1)-th, N the position of its entry
// (the one naming its Hostname) in contract.PeerHostsVar, whose names all
// resolve to their tasks' addresses; the tasks of a node whose Key is the
// same share one link there. The wrapper makes it all and the kernel
// removes it with the last task (taskns.sh: netns).
type Net struct {
	// Key names the job's link on the node: the same for all the tasks of
	// one attempt, another for any other job or attempt that may share
	// the node (a retry's tasks may start while the last's still end).
	Key string
	// Range is the IPv4 CIDR the tasks' addresses are taken from.
	Range string
}

// DefaultNetRange is where tasks' own addresses come from: 198.18.0.0/15,
// which RFC 2544 (§C.2.2) and RFC 6890 (Table 12) reserve for benchmarking
// network devices, so no site's own network, no Internet host, no DHCP
// pool and no default range of Docker (172.17.0.0/16 and its pools),
// Kubernetes or libvirt uses it. The addresses exist only inside the
// job's namespaces (the link has no way out), so even a site that used it
// would see no route change; a site sets another in its config
// (task_network { range = ... }: NetRange).
const DefaultNetRange = "198.18.0.0/15"

// NetRange is the site's range (siteconfig.Config.TaskNetRange), or
// DefaultNetRange where it sets none.
func NetRange(site string) string {
	if site == "" {
		return DefaultNetRange
	}
	return site
}

// CheckNetRange refuses a range the wrapper cannot number tasks in: not
// an IPv4 CIDR whose address is its network's, or narrower than /24.
func CheckNetRange(cidr string) error {
	ip, n, err := net.ParseCIDR(cidr)
	if err != nil || ip.To4() == nil {
		return fmt.Errorf("%w: %q is not an IPv4 CIDR", ErrValue, cidr)
	}
	if !ip.Equal(n.IP) {
		return fmt.Errorf("%w: %q is not its network's address (%s)", ErrValue, cidr, n)
	}
	if ones, _ := n.Mask.Size(); ones > 24 {
		return fmt.Errorf("%w: %q holds fewer than 254 addresses (/24 at most)", ErrValue, cidr)
	}
	return nil
}

// Needs reports whether s asks for anything only a namespace gives.
func (s *Spec) Needs() bool { return s.Hostname != "" || len(s.Hosts) > 0 || len(s.Binds) > 0 }

// ErrValue: a value of the spec cannot be carried (a TAB, newline or NUL,
// a relative or non-clean path).
var ErrValue = errors.New("value the task namespace cannot carry")

// Encode is the spec file for mode. Binds are applied parents first
// (a bind at /data/in after one at /data).
func (s *Spec) Encode(mode Mode) ([]byte, error) {
	var b strings.Builder
	line := func(fields ...string) error {
		for _, f := range fields {
			if strings.ContainsAny(f, "\t\n\r\x00") {
				return fmt.Errorf("%w: %q holds a tab, newline or NUL", ErrValue, f)
			}
		}
		b.WriteString(strings.Join(fields, "\t") + "\n")
		return nil
	}
	if err := line("mode", string(mode)); err != nil {
		return nil, err
	}
	if err := line("scratch", s.Scratch); err != nil {
		return nil, err
	}
	if s.Hostname != "" {
		if err := line("hostname", s.Hostname); err != nil {
			return nil, err
		}
	}
	for _, h := range s.Hosts {
		if err := line("host", h.Addr, strings.Join(h.Names, " ")); err != nil {
			return nil, err
		}
	}
	if err := s.encodeBinds(line); err != nil {
		return nil, err
	}
	if s.Net != nil {
		if s.Net.Key == "" {
			return nil, fmt.Errorf("%w: a task network with no key", ErrValue)
		}
		if err := CheckNetRange(s.Net.Range); err != nil {
			return nil, err
		}
		if err := line("netns", s.Net.Key, s.Net.Range); err != nil {
			return nil, err
		}
	}
	if s.Addr != "" {
		if err := line("addr", s.Addr); err != nil {
			return nil, err
		}
	}
	return []byte(b.String()), nil
}

func (s *Spec) encodeBinds(line func(...string) error) error {
	binds := append([]Bind(nil), s.Binds...)
	sort.SliceStable(binds, func(i, j int) bool { return strings.Count(binds[i].Dst, "/") < strings.Count(binds[j].Dst, "/") })
	for _, bd := range binds {
		if err := CheckPath(bd.Dst); err != nil {
			return err
		}
		if bd.Empty != "" {
			if (bd.Empty != EmptyDisk && bd.Empty != EmptyMemory) || bd.SizeMiB < 0 {
				return fmt.Errorf("%w: emptyDir %q of medium %q, size %d", ErrValue, bd.Dst, bd.Empty, bd.SizeMiB)
			}
			fields := []string{"empty", bd.Empty, strconv.FormatInt(bd.SizeMiB, 10), bd.Dst}
			if bd.Src != "" {
				if err := CheckPath(bd.Src); err != nil {
					return err
				}
				fields = append(fields, bd.Src)
			}
			if err := line(fields...); err != nil {
				return err
			}
			continue
		}
		if err := CheckPath(bd.Src); err != nil {
			return err
		}
		kind, ro := "bind", "rw"
		switch {
		case bd.Private:
			kind = "dir"
		case bd.ReadOnly:
			ro = "ro"
		}
		fields := []string{kind, ro, bd.Src, bd.Dst}
		if bd.Tree != "" {
			if err := CheckPath(bd.Tree); err != nil {
				return err
			}
			fields = append(fields, bd.Tree)
			if bd.NoLink {
				fields = append(fields, "nolink")
			}
		}
		if err := line(fields...); err != nil {
			return err
		}
	}
	return nil
}

// CheckPath refuses what a mount path must not be: relative, holding a
// `..` element or a control character, or the root itself.
func CheckPath(p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" {
		return fmt.Errorf("%w: %q is not an absolute path below /", ErrValue, p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." || el == "." {
			return fmt.Errorf("%w: %q holds a %q element", ErrValue, p, el)
		}
	}
	if strings.ContainsAny(p, "\t\n\r\x00") {
		return fmt.Errorf("%w: %q holds a tab, newline or NUL", ErrValue, p)
	}
	return nil
}

// Wrap is the argv that runs argv under the wrapper at scriptPath with the
// spec file at specPath (sh is looked up on the task's PATH).
func Wrap(scriptPath, specPath string, argv []string) []string {
	return append([]string{"sh", scriptPath, specPath, "--"}, argv...)
}

// ForceVar, set to "none" in jobshift's environment, makes Probe report no
// namespace (how an operator, or a test, sees the refusal and the warning
// on a host that has namespaces).
const ForceVar = "JOBSHIFT_TASKNS"

// Probe finds the mode this host allows: root makes the namespaces
// itself; otherwise an unprivileged user namespace must be allowed
// (kernel.unprivileged_userns_clone, user.max_user_namespaces, no
// AppArmor restriction). The error says why neither works.
func Probe() (Mode, error) {
	if os.Getenv(ForceVar) == string(ModeNone) {
		return ModeNone, fmt.Errorf("%s=none is set", ForceVar)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return ModeNone, errors.New("unshare (util-linux) is not installed")
	}
	if os.Geteuid() == 0 {
		out, err := exec.Command(unshare, "--mount", "--uts", "--propagation", "private", "true").CombinedOutput()
		if err == nil {
			return ModeRoot, nil
		}
		return ModeNone, fmt.Errorf("unshare --mount --uts: %v: %s", err, strings.TrimSpace(string(out)))
	}
	out, err := exec.Command(unshare, "--user", "--map-root-user", "--mount", "--uts", "true").CombinedOutput()
	if err == nil {
		return ModeUser, nil
	}
	return ModeNone, fmt.Errorf("not root, and unprivileged user namespaces are not allowed (unshare --user: %v: %s)", err, strings.TrimSpace(string(out)))
}

// SiteSetting is what an operator changes so that plain processes get
// their namespaces.
const SiteSetting = "allow unprivileged user namespaces on the nodes (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0), " +
	"run the tasks as root, or run them in containers (Nomad docker/podman driver, Slurm apptainer/pyxis, local -docker)"

// Warning is the note drivers print when tasks keep the host's name.
func Warning(why error) string {
	return fmt.Sprintf("warning: tasks keep this host's name instead of their platform host names (no private UTS namespace: %v); "+
		"programs that treat tasks with one host name as one node will break: OpenMPI's shared-memory transport between ranks of different tasks "+
		"(crashes in mca_btl_vader/sm), NCCL's and Horovod's node-local paths, torchrun's local ranks; to fix it, %s", why, SiteSetting)
}

// ErrUnavailable: a task needs files or data at the job's paths and this
// host allows no private mount namespace.
var ErrUnavailable = errors.New("no private mount namespace for the job's paths")

// Refusal is the detail of a located refusal for what needs path.
func Refusal(path string, why error) string {
	return fmt.Sprintf("The task needs %s at the path the job names, which a plain process gets only through a private mount namespace, "+
		"and this host allows none (%v). To fix it, %s; or map the volume with a site rule (volume \"NAME\" { path = ... }) and mount the "+
		"same path on every node.", path, why, SiteSetting)
}
