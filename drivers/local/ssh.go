package local

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/jobshift/jobshift/drivers/sshemu"
	"github.com/jobshift/jobshift/internal/freshfile"
	"github.com/jobshift/jobshift/translate"
)

// The ssh emulation (drivers/sshemu) on this machine: the wrapper and the
// attempt's job key live in the run directory's ssh/ (the key 0600, removed
// when the attempt ends: it is a secret), each task's sshd files in its
// own task directory, the MPIJob launcher's hostfile in mpi/.

func sshScriptPath(runDir string) string { return filepath.Join(runDir, "ssh", "sshemu.sh") }

func sshKeyPath(runDir string, attempt int) string {
	return filepath.Join(runDir, "ssh", fmt.Sprintf("key-%d", attempt))
}

// sshFiles writes the wrapper and a fresh key for attempt a; cleanup
// removes the key.
func sshFiles(p *translate.Plan, runDir string, a int) (cleanup func(), err error) {
	cleanup = func() {}
	if !p.Compiled().SSH {
		return cleanup, nil
	}
	if err := os.MkdirAll(filepath.Join(runDir, "ssh"), 0o700); err != nil {
		return cleanup, fmt.Errorf("ssh emulation: %w", err)
	}
	if err := freshfile.Write(sshScriptPath(runDir), []byte(sshemu.Script), 0o644); err != nil {
		return cleanup, fmt.Errorf("ssh emulation: %w", err)
	}
	priv, _, err := sshemu.NewKey()
	if err != nil {
		return cleanup, err
	}
	key := sshKeyPath(runDir, a)
	if err := freshfile.Write(key, priv, 0o600); err != nil {
		return cleanup, fmt.Errorf("ssh emulation: %w", err)
	}
	return func() { _ = os.Remove(key) }, nil
}

// sshWrap puts task s of role rp under the wrapper: its argv (an idle
// MPIJob worker runs only the sshd) and the key and directory variables.
func sshWrap(rp translate.RolePlan, s *taskSpec, argv []string, runDir string, attempt int) []string {
	if !rp.SSH {
		return argv
	}
	s.Added = append(s.Added,
		envVar{Name: sshemu.KeyVar, Value: sshKeyPath(runDir, attempt)},
		envVar{Name: sshemu.DirVar, Value: filepath.Join(s.TaskDir, fmt.Sprintf("ssh-%d", attempt))})
	if rp.SSHFiles != "" {
		// the task's view places a private directory there (view.go)
		s.Added = append(s.Added, envVar{Name: sshemu.FilesVar, Value: rp.SSHFiles})
	}
	return sshemu.Wrap(rp.SSHIdle, sshScriptPath(runDir), argv)
}
