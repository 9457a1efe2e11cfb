package local

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// holdInBand listens on a port of the band on loopback (the first free one
// from start) and returns it with its listener.
func holdInBand(t *testing.T, start int) (int, net.Listener) {
	t.Helper()
	for p := start; p <= portMax; p++ {
		if l, err := net.Listen("tcp", net.JoinHostPort(loopback, strconv.Itoa(p))); err == nil {
			t.Cleanup(func() { l.Close() })
			return p, l
		}
	}
	t.Fatalf("no free port in %d–%d", start, portMax)
	return 0, nil
}

// seq picks the given ports in turn, then the last one forever.
func seq(ports ...int) func() int {
	i := 0
	return func() int {
		p := ports[min(i, len(ports)-1)]
		i++
		return p
	}
}

// TestBandPortsSkipsTaken: a port something else holds, or that this
// allocation already holds, is skipped for the next candidate; Release
// gives the ports back.
func TestBandPortsSkipsTaken(t *testing.T) {
	taken, _ := holdInBand(t, portMin)
	free, l := holdInBand(t, taken+1)
	l.Close() // free again, known to be bindable
	other, l2 := holdInBand(t, free+1)
	l2.Close()

	k := &bandPorts{host: loopback, pick: seq(taken, taken, free, free, other)}
	got, err := k.Free(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{free, other}; got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Free(2) = %v, want %v (skip the taken %d, then the one already held)", got, want, taken)
	}
	if _, err := net.Listen("tcp", net.JoinHostPort(loopback, strconv.Itoa(free))); err == nil {
		t.Fatalf("port %d is not held before Release", free)
	}
	k.Release()
	l3, err := net.Listen("tcp", net.JoinHostPort(loopback, strconv.Itoa(free)))
	if err != nil {
		t.Fatalf("port %d not given back by Release: %v", free, err)
	}
	l3.Close()
}

// TestBandPortsInBand: the default picker hands out distinct ports of
// the band, below the kernel's ephemeral range and Nomad's dynamic ports.
func TestBandPortsInBand(t *testing.T) {
	k := &bandPorts{host: loopback}
	defer k.Release()
	got, err := k.Free(50)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range got {
		if p < portMin || p > portMax || seen[p] {
			t.Errorf("port %d: outside %d–%d or given twice (%v)", p, portMin, portMax, got)
		}
		seen[p] = true
	}
	if portMax >= 20000 {
		t.Errorf("band reaches Nomad's dynamic ports (20000–32000): %d", portMax)
	}
}

// TestBandPortsGivesUp: when every candidate is taken, Free says so and
// names the band instead of looping.
func TestBandPortsGivesUp(t *testing.T) {
	taken, _ := holdInBand(t, portMin)
	k := &bandPorts{host: loopback, pick: seq(taken)}
	defer k.Release()
	_, err := k.Free(1)
	if err == nil || !strings.Contains(err.Error(), "finding a free port in 12000–19999") {
		t.Fatalf("Free with every candidate taken: %v", err)
	}
}
