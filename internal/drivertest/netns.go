package drivertest

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// taskNetAnchor is the host's device of a job's task network (each task
// its own network on a shared host: drivers/taskns taskns.sh netns).
var taskNetAnchor = regexp.MustCompile(`(?m)^[0-9]+: (jsn[0-9a-f]{8})[@:]`)

// NoTaskNetLeft fails when a task network's link is still on this host
// after a job ended: the kernel removes it with the job's last task
// (cleanup_net runs on a workqueue, so it is given a few seconds).
func NoTaskNetLeft(t *testing.T) {
	t.Helper()
	var left []string
	for range 100 {
		out, err := exec.Command("ip", "-o", "link", "show").Output()
		if err != nil {
			t.Fatalf("ip link: %v", err)
		}
		left = left[:0]
		for _, m := range taskNetAnchor.FindAllStringSubmatch(string(out), -1) {
			left = append(left, m[1])
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("task network links left on the host: %s", strings.Join(left, " "))
}
