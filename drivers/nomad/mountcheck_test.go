package nomad

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/taskns"
)

// TestDriverMountLinkRefused: on docker and podman, a user whose ${user}
// directory is a link (mallory's, to bob's) is refused at submission,
// located at each role's volume; a real directory, or one this machine
// does not see, is not; raw_exec leaves the check to the task view.
func TestDriverMountLinkRefused(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bob"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bob", filepath.Join(root, "mallory")); err != nil {
		t.Fatal(err)
	}
	rules := `volume "checkpoints" { path = "` + root + `/${user}" }
volume "training-data" { path = "/lustre/proj/training" }
volume "scratch" { path = "/scratch/shared" }
`
	for _, c := range []struct {
		driver, user string
		refused      bool
	}{
		{"docker", "mallory", true},
		{"podman", "mallory", true},
		{"docker", "bob", false},
		{"docker", "carol", false}, // not on this machine
		{"raw_exec", "mallory", false},
	} {
		p, err := claimsPlan(t, c.driver, c.user, rules)
		if err != nil {
			t.Fatalf("%s %s: %v", c.driver, c.user, err)
		}
		_, shape, diags := buildJob(p, nil)
		if diags.HasErrors() {
			t.Fatalf("%s %s: %v", c.driver, c.user, diags)
		}
		err = checkDriverMounts(p, shape)
		if !c.refused {
			if err != nil {
				t.Errorf("%s %s: %v", c.driver, c.user, err)
			}
			continue
		}
		if !errors.Is(err, taskns.ErrValue) {
			t.Fatalf("%s %s: err = %v, want ErrValue", c.driver, c.user, err)
		}
		// both roles' ckpt mounts, at their lines of claims.yaml
		for _, want := range []string{"claims.yaml:20:15:", "claims.yaml:47:15:", filepath.Join(root, "mallory") + " is a symbolic link"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: refusal lacks %q: %v", c.driver, want, err)
			}
		}
	}
}
