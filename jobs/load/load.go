// Package load reads any job file jobshift understands: it detects the
// format from the content (not the file name) and hands the bytes to the
// reader of that format (jobs/pai or jobs/kubeflow).
package load

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"github.com/jobshift/jobshift/jobs/pai"
	"github.com/jobshift/jobshift/jobs/trainer"
	"github.com/jobshift/jobshift/jobs/volcano"
)

// Stdin is the path that means "read standard input".
const Stdin = "-"

// InternalErrorSummary is the summary of the diagnostic a reader panic
// becomes: a bug in jobshift, never the user's fault.
const InternalErrorSummary = "Internal error while reading the job"

// Formats is the user-facing list of what jobshift reads.
const Formats = "OpenPAI v1 job JSON (jobName, taskRoles), OpenPAI v2 protocol YAML (protocolVersion: 2), " +
	"Kubeflow TFJob (all API versions), PyTorchJob, MPIJob, XGBoostJob, PaddleJob, JAXJob and MXJob (kind: TFJob, PyTorchJob ...), " +
	"Kubeflow Trainer v2 TrainJob with its TrainingRuntime / ClusterTrainingRuntime (kind: TrainJob), " +
	"Volcano Job (batch.volcano.sh/v1alpha1)"

// StdinReader is what path "-" reads (a variable so that tests of the
// CLI can feed standard input in-process).
var StdinReader io.Reader = os.Stdin

// Load reads the job file at path ("-" = standard input).
func Load(path string, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	if opts.Path == "" {
		opts.Path = path
	}
	var src []byte
	var d *hcl.Diagnostic
	if path == Stdin {
		src, d = ReadAllLimited(StdinReader, opts.Path)
	} else {
		src, d = ReadFileLimited(path)
		if d != nil {
			d.Subject.Filename = opts.Path
		}
	}
	if d != nil {
		return nil, hcl.Diagnostics{d}
	}
	return Read(src, opts)
}

// Read reads a job from src; opts.Path names it in diagnostics.
func Read(src []byte, opts jobs.ReadOptions) (job *jobs.Job, diags hcl.Diagnostics) {
	det := Detect(src, opts.Path)
	read := readerFor(det)
	if read == nil {
		return nil, hcl.Diagnostics{undetected(src, det, opts.Path)}
	}
	if det.Family != FamilyPAI && opts.Dialect != "" {
		diags = append(diags, jobs.Warnf(det.Pos, "Dialect ignored",
			"-dialect %s applies to OpenPAI v1 job files; this is a Kubeflow %s.", opts.Dialect, det.Kind))
	}
	defer func() {
		// A reader bug must not crash the CLI; it becomes a diagnostic
		// that asks for a bug report (and fails the corpus sweep test).
		if r := recover(); r != nil {
			job = nil
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: InternalErrorSummary,
				Detail: fmt.Sprintf("The %s reader crashed: %v. This is a jobshift bug; please report it with the file.\n%s",
					det.Family, r, firstLines(string(debug.Stack()), 12)),
				Subject: &hcl.Range{Filename: opts.Path, Start: hcl.Pos{Line: 1, Column: 1, Byte: 0}, End: hcl.Pos{Line: 1, Column: 1, Byte: 0}}})
		}
	}()
	if len(src) > MaxFileBytes {
		// Read is also the entry point of fuzzers and tests; the same
		// limit holds whichever way the bytes came.
		line, col := lineCol(src, MaxFileBytes)
		return nil, append(diags, jobs.Errorf(jobs.Pos{File: opts.Path, Line: line, Col: col}, "File too large",
			"The input is longer than %d bytes (1.5 MiB, the largest object Kubernetes stores; no OpenPAI or Kubeflow job was larger).", MaxFileBytes))
	}
	if d := invalidUTF8(src, opts.Path); d != nil {
		return nil, append(diags, d)
	}
	j, d := read(src, opts)
	diags = append(diags, d...)
	if j != nil {
		j.Lossy = opts.Lossy
		if ld := CheckLimits(j); ld.HasErrors() {
			return nil, append(diags, ld...)
		}
	}
	if j == nil && !diags.HasErrors() {
		diags = append(diags, jobs.Errorf(jobs.Pos{File: opts.Path, Line: 1, Col: 1}, InternalErrorSummary,
			"The %s reader returned no job and no error. This is a jobshift bug; please report it with the file.", det.Family))
	}
	return j, diags
}

type reader func([]byte, jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics)

// readers maps a family to its reader (a variable so tests can check the
// panic guard with a reader that panics).
var readers = map[Family]reader{
	FamilyPAI:      pai.Read,
	FamilyKubeflow: kubeflow.Read,
	FamilyTrainer:  trainer.Read,
	FamilyVolcano:  volcano.Read,
}

func readerFor(det Detection) reader { return readers[det.Family] }

func undetected(src []byte, det Detection, path string) *hcl.Diagnostic {
	// an unterminated /* hides every key after it: say that, where it is
	if off, closed, found := jobs.BlockComment(src); found && !closed && det.Kind == "" && jsonLooking(src) {
		line, col := jobs.LineCol(src, off)
		return jobs.Errorf(jobs.Pos{File: path, Line: line, Col: col}, "Unterminated comment",
			"A /* comment is never closed with */, so nothing after it is read.")
	}
	switch {
	case det.Empty:
		return jobs.Errorf(det.Pos, "No job in file",
			"The file is empty or holds only comments. jobshift reads %s.", Formats)
	case det.Kind != "":
		api := ""
		if det.APIVersion != "" {
			api = " (" + det.APIVersion + ")"
		}
		if kubeflow.ForeignTrainingKind(det.Kind) {
			return jobs.Errorf(det.Pos, "Training job jobshift cannot run",
				"This is a %s%s, a training or batch job of a kind jobshift does not read, so it cannot run it. jobshift reads %s.", det.Kind, api, Formats)
		}
		return jobs.Errorf(det.Pos, "Not a training job jobshift reads",
			"This is a Kubernetes %s%s. jobshift reads %s.", det.Kind, api, Formats)
	}
	return jobs.Errorf(det.Pos, "Unknown job format",
		"None of the keys jobshift looks for is at the top level (protocolVersion, kind/apiVersion, jobName, taskRoles). jobshift reads %s.", Formats)
}

// invalidUTF8 refuses a file that is not UTF-8, at its first bad byte:
// OpenPAI (Node) would have turned such bytes into U+FFFD and Kubernetes
// refuses them, and the targets cannot all carry them (nomad-json replaced
// them, HCL cannot hold them). UTF-16 files (with a byte order mark), which
// YAML allows, are left to the YAML readers.
func invalidUTF8(src []byte, path string) *hcl.Diagnostic {
	if bytes.HasPrefix(src, []byte("\xfe\xff")) || bytes.HasPrefix(src, []byte("\xff\xfe")) || utf8.Valid(src) {
		return nil
	}
	off := 0
	for off < len(src) {
		r, n := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	line, col := jobs.LineCol(src, off)
	return jobs.Errorf(jobs.Pos{File: path, Line: line, Col: col}, "Invalid UTF-8",
		"Byte 0x%02x is not UTF-8. Job files are UTF-8 text (Kubernetes refuses anything else and OpenPAI replaced such bytes with U+FFFD); re-encode the file as UTF-8.", src[off])
}

// jsonLooking: the file starts like JSON (or a JSON comment); in YAML text
// "/*" is usually a shell glob.
func jsonLooking(src []byte) bool {
	t := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")))
	return bytes.HasPrefix(t, []byte("{")) || bytes.HasPrefix(t, []byte("/*")) || bytes.HasPrefix(t, []byte("//"))
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
