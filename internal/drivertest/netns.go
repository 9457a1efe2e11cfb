package drivertest

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// taskNetAnchor is the host's device of a job's task network (each task
// its own network on a shared host: drivers/taskns taskns.sh netns).
var taskNetAnchor = regexp.MustCompile(`(?m)^[0-9]+: (jsn[0-9a-f]{8})[@:]`)

// NoTaskNetLeft fails when a task network's link is still on this host
// after a job ended: the kernel removes it with the job's last task, but
// asynchronously (the namespace's devices go in cleanup_net, run on a
// workqueue that batches the namespaces of the whole machine: on a loaded
// 2-core host it took over 5 s), so it is given 30 s.
func NoTaskNetLeft(t *testing.T) {
	t.Helper()
	var left []string
	start := time.Now()
	for deadline := start.Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, err := exec.Command("ip", "-o", "link", "show").Output()
		if err != nil {
			t.Fatalf("ip link: %v", err)
		}
		left = left[:0]
		for _, m := range taskNetAnchor.FindAllStringSubmatch(string(out), -1) {
			left = append(left, m[1])
		}
		if len(left) == 0 {
			if d := time.Since(start); d > time.Second {
				t.Logf("the task network's link was gone after %v", d.Round(100*time.Millisecond))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("task network links left on the host: %s", strings.Join(left, " "))
			return
		}
	}
}

// TaskNetAnchor is the host's device of the task network of key, as
// taskns.sh names it: jsn and the POSIX cksum(1) of the key, 8 hex digits.
func TaskNetAnchor(t *testing.T, key string) string {
	t.Helper()
	c := exec.Command("cksum")
	c.Stdin = strings.NewReader(key)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("cksum: %v", err)
	}
	var sum uint32
	if _, err := fmt.Sscan(string(out), &sum); err != nil {
		t.Fatalf("cksum %q: %v", out, err)
	}
	return fmt.Sprintf("jsn%08x", sum)
}

// SeeTaskNets records every task network's device that appears on this
// host (polled every 50ms) until the returned function is called, which
// returns them.
func SeeTaskNets(t *testing.T) func() map[string]bool {
	t.Helper()
	seen, stop, done := map[string]bool{}, make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	go func() {
		defer close(done)
		for {
			if out, err := exec.Command("ip", "-o", "link", "show").Output(); err == nil {
				mu.Lock()
				for _, m := range taskNetAnchor.FindAllStringSubmatch(string(out), -1) {
					seen[m[1]] = true
				}
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() map[string]bool {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}
