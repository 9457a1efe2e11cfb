package taskns

import (
	"bytes"
	"strings"
)

// The script's reading of its spec and environment, for ExecDirect: each
// function names the script's function it stands for and keeps its order
// and its tests of a value, quirks included, so that the two give one
// view (TestPrecomputedSameView).

// specFile is a spec as the script reads it.
type specFile struct {
	first map[string]string // the first value of each key (its one pass)
	hosts [][2]string       // the host lines' address and names (hosts)
	binds bool              // a bind, dir or empty line (binds)
}

// readSpec reads data as the script's loops do: lines as `read -r` sees
// them (a last line without its newline is not read), the first pass
// keeping each key's first value (its `seen` list of keys between
// spaces), hosts and binds splitting fields as `IFS=<TAB> read -r` does.
// A line of a kind it does not know is the script's: one added to the
// script is never skipped here.
func readSpec(data []byte) (*specFile, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, decline("a NUL in the spec")
	}
	lines := strings.Split(string(data), "\n")
	sp := &specFile{first: map[string]string{}}
	seen := " "
	for _, l := range lines[:len(lines)-1] {
		if k, v, ok := strings.Cut(l, "\t"); ok && !strings.Contains(seen, " "+k+" ") {
			seen += k + " "
			sp.first[k] = v
		}
		f := readFields(l, 3)
		switch f[0] {
		case "host":
			sp.hosts = append(sp.hosts, [2]string{f[1], f[2]})
		case "bind", "dir", "empty":
			sp.binds = true
		case "", "mode", "scratch", "hostname", "addr", "ifaddrs":
		default: // an item of the script's that ExecDirect does not give
			return nil, decline("a %q line", f[0])
		}
	}
	if _, ok := sp.first["mode"]; !ok {
		return nil, decline("no mode in the spec")
	}
	return sp, nil
}

// readFields splits line into n fields as `IFS=<TAB> read -r` does into n
// variables: TAB is white space to the shell, so runs of it separate one
// field, leading and trailing ones are dropped, and the last variable
// takes the rest of the line.
func readFields(line string, n int) []string {
	out := make([]string, n)
	s := strings.TrimLeft(line, "\t")
	for i := 0; i < n-1 && s != ""; i++ {
		j := strings.IndexByte(s, '\t')
		if j < 0 {
			out[i], s = s, ""
			break
		}
		out[i], s = s[:j], strings.TrimLeft(s[j:], "\t")
	}
	out[n-1] = strings.TrimRight(s, "\t")
	return out
}

// viewState is what the script knows while it builds the view: its spec,
// its environment (the command's, as the script changes it) and this
// node's addresses.
type viewState struct {
	sp    *specFile
	env   []string
	pairs [][2]string // the spec's ifaddrs: interface, address
	node  map[string]bool
}

// nodeAddrs reads this node's addresses from the spec's ifaddrs line
// (given, here); without it the script runs ip, which only it does, or,
// without ip on its PATH, knows none and names no interface.
func (st *viewState) nodeAddrs() error {
	st.node = map[string]bool{}
	v := st.sp.first["ifaddrs"]
	if v == "" {
		if path, _ := lookup(st.env, "PATH"); lookIn(path, "ip") != "" {
			return decline("the node's addresses are not in the spec")
		}
		return nil
	}
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' })
	for i := 0; i+1 < len(f); i += 2 {
		st.pairs = append(st.pairs, [2]string{f[i], f[i+1]})
		st.node[f[i+1]] = true
	}
	return nil
}

// hostsLines are the task's own /etc/hosts lines (hosts): the spec's
// host lines, the peers' names (peers, peer_host), and the names of the
// tasks the ssh emulation reaches and of every task on other nodes
// (ssh_hosts, peer_hosts, ssh_host_line).
func (st *viewState) hostsLines() ([]byte, error) {
	var b bytes.Buffer
	for _, h := range st.sp.hosts {
		b.WriteString(h[0] + "\t" + h[1] + "\n")
	}
	peers, err := st.entries("JOBSHIFT_HOSTS")
	if err != nil {
		return nil, err
	}
	for _, e := range peers {
		if len(e) < 2 || !nameChars(e[0]+e[1]) {
			continue
		}
		a, err := resolve(e[0])
		if err != nil {
			return nil, err
		}
		b.WriteString(a + "\t" + e[1] + "\n")
	}
	ssh, _ := lookup(st.env, "JOBSHIFT_SSH_HOSTS")
	peer, _ := lookup(st.env, "JOBSHIFT_PEER_HOSTS")
	if ssh+peer == "" {
		return b.Bytes(), nil
	}
	line := func(a string, names []string) bool {
		if !st.node[a] {
			b.WriteString(a + "\t" + strings.Join(names, " ") + "\n")
		}
		return true
	}
	if _, err := st.hostEntries("JOBSHIFT_SSH_HOSTS", 1, line); err != nil {
		return nil, err
	}
	if _, err := st.hostEntries("JOBSHIFT_PEER_HOSTS", 0, line); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// peerAddrs puts each peer's address in place of its name at the start
// of its variables' values (mode none: peers, peer_addr).
func (st *viewState) peerAddrs() error {
	peers, err := st.entries("JOBSHIFT_HOSTS")
	if err != nil {
		return err
	}
	for _, e := range peers {
		if len(e) < 2 || !nameChars(e[0]+e[1]) {
			continue
		}
		for _, v := range e[2:] {
			if v[0] >= '0' && v[0] <= '9' || !shellName(v) {
				continue
			}
			if shellOwn(v) {
				return decline("%s, a variable the script itself uses, in JOBSHIFT_HOSTS", v)
			}
			if val, _ := lookup(st.env, v); strings.HasPrefix(val, e[1]) {
				st.env = setVar(st.env, v, e[0]+val[len(e[1]):])
			}
		}
	}
	return nil
}

// ifaceVars names the interface of the task's address for OpenMPI, Gloo
// and NCCL, never over a set variable; OpenMPI's is lo when every task the
// ssh emulation reaches is on this node (iface, ssh_peers_here).
func (st *viewState) ifaceVars(addr string) error {
	if addr == "" {
		return nil
	}
	a, err := resolve(addr)
	if err != nil {
		return err
	}
	dev := ""
	for _, p := range st.pairs {
		if p[1] == a {
			dev = p[0]
			break
		}
	}
	if dev == "" {
		return nil
	}
	mpi := dev
	if dev != "lo" {
		here, err := st.sshPeersHere()
		if err != nil {
			return err
		}
		if here {
			mpi = "lo"
		}
	}
	for _, v := range [][2]string{{"OMPI_MCA_btl_tcp_if_include", mpi}, {"OMPI_MCA_oob_tcp_if_include", mpi},
		{"GLOO_SOCKET_IFNAME", dev}, {"NCCL_SOCKET_IFNAME", dev}} {
		if _, set := lookup(st.env, v[0]); !set {
			st.env = setVar(st.env, v[0], v[1])
		}
	}
	return nil
}

// sshPeersHere: every task the ssh emulation reaches is at an address of
// this node (ssh_peers_here).
func (st *viewState) sshPeersHere() (bool, error) {
	if v, _ := lookup(st.env, "JOBSHIFT_SSH_HOSTS"); v == "" {
		return false, nil
	}
	return st.hostEntries("JOBSHIFT_SSH_HOSTS", 1, func(a string, _ []string) bool { return st.node[a] })
}

// hostEntries calls fn(ADDR, NAMES) for each entry "ADDR [skip fields]
// NAME..." of the list in variable name whose fields are all in the name
// grammar, until fn returns false (then so does hostEntries:
// host_entries).
func (st *viewState) hostEntries(name string, skip int, fn func(string, []string) bool) (bool, error) {
	list, err := st.entries(name)
	if err != nil {
		return false, err
	}
	for _, e := range list {
		if len(e) < skip+2 || !allNameChars(e) {
			continue
		}
		a, err := resolve(e[0])
		if err != nil {
			return false, err
		}
		if !fn(a, e[skip+1:]) {
			return false, nil
		}
	}
	return true, nil
}

// entries splits the list in variable name as the script's loops do:
// entries at each ',', fields at each run of spaces. The script's loops
// expand their words as file name patterns too, so a list holding a
// pattern's character is the script's.
func (st *viewState) entries(name string) ([][]string, error) {
	v, _ := lookup(st.env, name)
	if strings.ContainsAny(v, "*?[") {
		return nil, decline("%s holds a file name pattern", name)
	}
	var out [][]string
	for _, e := range strings.Split(v, ",") {
		if f := strings.FieldsFunc(e, func(r rune) bool { return r == ' ' }); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out, nil
}

// resolve is addr when it is numeric (the script's test: only digits,
// '.', ':' and hex letters); a name the script resolves with getent, so
// the script runs.
func resolve(addr string) (string, error) {
	for i := 0; i < len(addr); i++ {
		if !strings.ContainsRune("0123456789.:abcdefABCDEF", rune(addr[i])) {
			return "", decline("%s is a name the script resolves", addr)
		}
	}
	return addr, nil
}

// nameChars: the script's name grammar, [A-Za-z0-9.:_-]*.
func nameChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == ':' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func allNameChars(fields []string) bool {
	for _, f := range fields {
		if !nameChars(f) {
			return false
		}
	}
	return true
}

// shellName: [A-Za-z0-9_]+, what the script takes for a variable's name.
func shellName(s string) bool {
	return s != "" && nameChars(s) && !strings.ContainsAny(s, ".:-")
}

// shellOwn: a variable the script or its shell sets or reads itself, whose
// change would change the script's own work.
func shellOwn(v string) bool {
	switch v {
	case "IFS", "PATH", "PWD", "OLDPWD", "PPID", "OPTIND", "OPTARG", "PS1", "PS2", "PS4", "LINENO":
		return true
	}
	return strings.HasPrefix(v, "_jsn_")
}
