package main

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/load"
)

// printDiags prints diagnostics for people through the one text writer
// (diag.Text): `file:line:col: severity: summary`, the detail indented, then
// the source line the diagnostic points at.
func printDiags(w io.Writer, diags hcl.Diagnostics) {
	if !colorOn(w) {
		diag.Text(w, diags, sourceOf)
		return
	}
	var b bytes.Buffer
	diag.Text(&b, diags, sourceOf)
	_, _ = w.Write(colorDiags(b.Bytes()))
}

// stdinText is what this process read from standard input as a job or
// secrets file: it cannot be read twice, so diagnostics quote it from here.
var stdinText struct {
	sync.Mutex
	src []byte
}

// secretFiles are the -secrets files this process read: a diagnostic
// about one names the place but never quotes its line, which holds a
// secret.
var secretFiles sync.Map

// rememberStdin keeps src, read from standard input, for sourceOf.
func rememberStdin(src []byte) {
	stdinText.Lock()
	defer stdinText.Unlock()
	stdinText.src = src
}

// sourceOf is the text a diagnostic's file name refers to: standard input
// as it was read, else the file read again (within the job-file size
// limit, regular files only; nil when it cannot be read, and no source
// line is quoted).
func sourceOf(name string) []byte {
	if _, secret := secretFiles.Load(name); secret {
		return nil
	}
	if name == load.Stdin {
		stdinText.Lock()
		defer stdinText.Unlock()
		return stdinText.src
	}
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return nil // a FIFO read once cannot be read again (opening it would wait for a writer)
	}
	src, d := load.ReadFileLimited(name)
	if d != nil {
		return nil
	}
	return src
}
