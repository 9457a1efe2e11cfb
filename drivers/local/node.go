package local

import (
	"fmt"
	"net"
	"os"
)

// thisNode is the node every local task runs on, as a pod's
// spec.nodeName and status.hostIP give it (contract.UsesNode): the
// machine's host name and its primary address.
//
// The primary address is the kubelet's choice for a node without
// --node-ip: the global unicast address of the interface that carries the
// default route (k8s.io/apimachinery pkg/util/net/interface.go
// ChooseHostInterface @v0.31.0), here the source address the kernel picks
// for a route to the outside (a UDP socket sends nothing when it
// connects). A machine with no such route has no address its peers could
// reach but loopback: then the first global unicast address of an
// interface that is up, else 127.0.0.1.
func thisNode() (name, addr string, err error) {
	name, err = os.Hostname()
	if err != nil {
		return "", "", fmt.Errorf("the machine's host name (spec.nodeName): %w", err)
	}
	return name, primaryAddr(), nil
}

func primaryAddr() string {
	for _, probe := range []string{"192.0.2.1:9", "[2001:db8::1]:9"} { // TEST-NET and documentation ranges
		c, err := net.Dial("udp", probe)
		if err != nil {
			continue
		}
		a, ok := c.LocalAddr().(*net.UDPAddr)
		c.Close()
		if ok && a.IP.IsGlobalUnicast() {
			return a.IP.String()
		}
	}
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		as, _ := ifc.Addrs()
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
				return n.IP.String()
			}
		}
	}
	return "127.0.0.1"
}
