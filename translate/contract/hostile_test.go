package contract

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hostileValues are addresses and ports as a forged topology snapshot (or
// a strange node name) might hold them, with good ones between.
var hostileValues = []string{
	"10.0.0.1", "node-1.cluster_a", "fe80::1", "2001:db8::1", "1", "80", "65535", "65536", "0", "00", "080", "+80", "-1",
	"99999", "", " ", "10.0.0.1 ", "10.0.0.1\nProxyCommand sh -c id", "a\rb", "a\tb", `a"b`, "a'b", "a%b", "a$(id)", "a;b",
	"a`id`", "a\\b", "a/b", "a#b", "a=b", "a\x00b", "é", "a,b", "[::1]",
}

// TestAddressGrammarAgrees: the oracle (validAddr), the snapshot grammar
// the Nomad templates and the in-task helper use (snapshotAddr) and the
// shell stage (_js_addr) accept exactly the same addresses, and the same
// ports (snapshotPort; _js_ports); the hostile ones are refused by all.
func TestAddressGrammarAgrees(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	addrRE := regexp.MustCompile(`^` + snapshotAddr + `$`)
	portRE := regexp.MustCompile(`^` + snapshotPort + `$`)
	for _, v := range hostileValues {
		if strings.ContainsRune(v, 0) {
			continue // no environment value holds a NUL
		}
		shellAddr := exec.Command(sh, "-c", shellPrelude+sharedPrelude+`_js_addr 0 0`)
		shellAddr.Env = []string{"JS_R0_ADDR_0=" + v}
		shellPort := exec.Command(sh, "-c", shellPrelude+sharedPrelude+`_js_ports 0 0 0 1`)
		shellPort.Env = []string{"JS_R0_PORT_0_0=" + v}
		a, ga, sa := validAddr(v), addrRE.MatchString(v), shellAddr.Run() == nil
		if a != ga || a != sa {
			t.Errorf("address %q: oracle %v, snapshot grammar %v, shell %v", v, a, ga, sa)
		}
		n, nerr := strconv.Atoi(v)
		canonical := nerr == nil && strconv.Itoa(n) == v && n >= 1 && n <= 65535
		gp, sp := portRE.MatchString(v), shellPort.Run() == nil
		if canonical != gp || canonical != sp {
			t.Errorf("port %q: 1..65535 in decimal %v, snapshot grammar %v, shell %v", v, canonical, gp, sp)
		}
	}
}
