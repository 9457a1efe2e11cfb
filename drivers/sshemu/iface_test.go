package sshemu

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// waitOutlived waits until no process names script or sshDir in its
// command line: the emulation's watcher (a fork of script) and its sshd
// (-f sshDir/sshd_config) outlive the command by up to a second, the
// watcher's poll, and then the sshd logs its stop into sshDir and the
// watcher removes what the script made, which raced with the test's
// removal of its directories (TempDir: "directory not empty", CI).
func waitOutlived(t *testing.T, script, sshDir string) {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !running(script) && !running(sshDir) {
			return
		}
	}
	t.Errorf("%s or its sshd still runs 15 s after its command ended", script)
}

// running: some process has arg in its command line.
func running(arg string) bool {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		if b, err := os.ReadFile(c); err == nil && bytes.Contains(b, []byte(arg)) {
			return true
		}
	}
	return false
}

// hostIPv4 is an IPv4 address of this machine outside lo and the name of
// its interface, as Go's net package sees them.
func hostIPv4(t *testing.T) (addr, dev string) {
	t.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 || i.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.String(), i.Name
			}
		}
	}
	t.Skip("no IPv4 address outside lo")
	return "", ""
}

// cidr is the smallest IPv4 network holding a and b, as OpenMPI's
// if_include takes it.
func cidr(t *testing.T, a, b string) string {
	x, y := net.ParseIP(a).To4(), net.ParseIP(b).To4()
	if x == nil || y == nil {
		t.Fatalf("not IPv4: %s %s", a, b)
	}
	bits := 32
	for i := 0; i < 32; i++ {
		if x[i/8]>>(7-i%8)&1 != y[i/8]>>(7-i%8)&1 {
			bits = i
			break
		}
	}
	n := &net.IPNet{IP: x.Mask(net.CIDRMask(bits, 32)), Mask: net.CIDRMask(bits, 32)}
	return n.String()
}

// TestIfaces: the command gets the interface of its task's address for
// Gloo and NCCL, and the network of its peers for OpenMPI (a container in
// its node's network sees every interface of the node: with none named,
// mpirun hung on a docker0 no peer reaches); OpenMPI's is lo when every
// peer is at the task's own address; what the job set stays.
func TestIfaces(t *testing.T) {
	sshTools(t)
	addr, dev := hostIPv4(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	vars := []string{"OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_oob_tcp_if_include", "GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME"}
	var base []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(vars, k) {
			base = append(base, kv)
		}
	}
	for name, tc := range map[string]struct {
		self, peer string
		env        []string
		want       string
	}{
		"peer on another node": {addr, "192.0.2.254", nil, cidr(t, addr, "192.0.2.254") + " " + cidr(t, addr, "192.0.2.254") + " " + dev + " " + dev},
		"every peer here":      {addr, addr, nil, "lo lo " + dev + " " + dev},
		"loopback":             {"127.0.0.1", "127.0.0.1", nil, "lo lo lo lo"},
		"set by the job":       {addr, "192.0.2.254", []string{"OMPI_MCA_btl_tcp_if_include=mine", "GLOO_SOCKET_IFNAME="}, "mine " + cidr(t, addr, "192.0.2.254") + "  " + dev},
	} {
		t.Run(name, func(t *testing.T) {
			hosts := fmt.Sprintf("%s %d w-0,%s 22 w-1", tc.self, freePort(t), tc.peer)
			sshDir := filepath.Join(t.TempDir(), "ssh")
			cmd := exec.Command("sh", script, "--", "sh", "-c", `echo "$OMPI_MCA_btl_tcp_if_include $OMPI_MCA_oob_tcp_if_include $GLOO_SOCKET_IFNAME $NCCL_SOCKET_IFNAME"`)
			cmd.Env = append(append(slices.Clip(base), "JOBSHIFT_SSH_HOSTS="+hosts, "JOBSHIFT_SSH_SELF=w-0", "JOBSHIFT_SSH_KEY="+key,
				"JOBSHIFT_SSH_DIR="+sshDir), tc.env...)
			out, err := cmd.Output()
			waitOutlived(t, script, sshDir)
			if err != nil || string(out) != tc.want+"\n" {
				t.Errorf("got %q (%v), want %q", out, err, tc.want)
			}
		})
	}
}

// TestSlurmLaunchers: under Slurm the command's mpirun (and Hydra) start
// their daemons over ssh on the peers the command names, not with srun on
// the allocation's nodes; what the job set stays.
func TestSlurmLaunchers(t *testing.T) {
	sshTools(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	vars := []string{"OMPI_MCA_plm", "OMPI_MCA_ras", "I_MPI_HYDRA_BOOTSTRAP", "HYDRA_LAUNCHER", "SLURM_JOB_ID"}
	var base []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(vars, k) {
			base = append(base, kv)
		}
	}
	for name, tc := range map[string]struct {
		env  []string
		want string
	}{
		"not slurm":      {nil, "- - - -"},
		"slurm":          {[]string{"SLURM_JOB_ID=7"}, "rsh ^slurm ssh ssh"},
		"set by the job": {[]string{"SLURM_JOB_ID=7", "OMPI_MCA_plm=slurm"}, "slurm ^slurm ssh ssh"},
	} {
		t.Run(name, func(t *testing.T) {
			hosts := fmt.Sprintf("127.0.0.1 %d w-0", freePort(t))
			sshDir := filepath.Join(t.TempDir(), "ssh")
			cmd := exec.Command("sh", script, "--", "sh", "-c", `echo "${OMPI_MCA_plm:--} ${OMPI_MCA_ras:--} ${I_MPI_HYDRA_BOOTSTRAP:--} ${HYDRA_LAUNCHER:--}"`)
			cmd.Env = append(append(slices.Clip(base), "JOBSHIFT_SSH_HOSTS="+hosts, "JOBSHIFT_SSH_SELF=w-0", "JOBSHIFT_SSH_KEY="+key,
				"JOBSHIFT_SSH_DIR="+sshDir), tc.env...)
			out, err := cmd.Output()
			waitOutlived(t, script, sshDir)
			if err != nil || string(out) != tc.want+"\n" {
				t.Errorf("got %q (%v), want %q", out, err, tc.want)
			}
		})
	}
}
