// Package sshemu is OpenPAI's ssh runtime plugin and mpi-operator's ssh
// set-up, emulated on every target: a job key pair, an sshd per task on its
// `ssh` port, `<role>-<i>` (or MPIJob pod host name) aliases that ssh,
// mpirun and horovodrun resolve through a job-private client config, the
// sshbarrier, and an MPIJob launcher's hostfile. The work on the node is
// done by Script (sshemu.sh), which wraps the task's command; the drivers
// deliver the key (a secret) and the wrapper, and ask the contract for the
// emulation's variables (contract.Options.SSH).
package sshemu

import (
	"crypto/ed25519"
	"crypto/rand"
	_ "embed"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"golang.org/x/crypto/ssh"
)

// Script is the node-side wrapper: `sh <script> [--idle] [--] argv...`.
//
//go:embed sshemu.sh
var Script string

// Environment the driver sets beside the contract's variables.
const (
	// KeyVar names the job's private key file (0600, never in an
	// artifact: it travels the way the target carries secrets).
	KeyVar = "JOBSHIFT_SSH_KEY"
	// DirVar names the task's own directory for its sshd and client
	// files, in a directory no other user can write ("" = a fresh one
	// under $TMPDIR, or /tmp where $TMPDIR is open to others).
	DirVar = "JOBSHIFT_SSH_DIR"
	// FilesVar names where the platform's ssh files go
	// (translate.RolePlan.SSHFiles, the path the job reads: a TrainJob's
	// mpi.sshAuthMountPath, Volcano's --ssh-key-file-path): the target
	// places a private writable directory there (a mount point of the
	// task's view or container) and sets it only then; the wrapper
	// refuses any other directory. It writes id_rsa (a copy of the job
	// key), id_rsa.pub, authorized_keys and config (every peer's
	// address and port).
	FilesVar = "JOBSHIFT_SSH_FILES"
)

// IdleFlag makes the wrapper run only the sshd, in the foreground.
const IdleFlag = "--idle"

// Enabled reports whether any task of job runs the emulation.
func Enabled(job *jobs.Job) bool { return contract.SSHRoles(job) != nil }

// RoleEnabled reports whether the tasks of role k run the emulation.
func RoleEnabled(job *jobs.Job, k int) bool {
	rs := contract.SSHRoles(job)
	return rs != nil && rs[k]
}

// Wrap is the argv that runs argv under the wrapper at scriptPath (sh is
// looked up on the task's PATH). An idle role (translate.RolePlan.SSHIdle:
// its own command is replaced by the emulation's sshd) ignores argv.
func Wrap(idle bool, scriptPath string, argv []string) []string {
	if idle {
		return []string{"sh", scriptPath, IdleFlag}
	}
	return append([]string{"sh", scriptPath, "--"}, argv...)
}

// NewKey makes the job's key pair: an ed25519 private key in OpenSSH
// form (what ssh reads from IdentityFile) and its authorized_keys line.
func NewKey() (private []byte, public string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", fmt.Errorf("ssh key: %w", err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "jobshift job key")
	if err != nil {
		return nil, "", fmt.Errorf("ssh key: %w", err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, "", fmt.Errorf("ssh key: %w", err)
	}
	return pem.EncodeToMemory(blk), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp))), nil
}
