package local

import (
	"path/filepath"
	"strings"
)

// checkTaskProgram is checkProgram for a task's own program, except one
// its view puts in place (a platform file such as a ConfigMap's entrypoint
// script, or a path under a mounted volume): that exists only inside the
// task's namespace, so exec there reports it if it is missing.
func checkTaskProgram(spec *taskSpec, argv []string, dir string) error {
	if len(argv) > 0 && spec.View.provides(argv[0]) {
		return nil
	}
	return checkProgram(argv, dir)
}

// provides reports whether the view places prog: a file at that path or
// a bind over it.
func (v *taskView) provides(prog string) bool {
	if v == nil || !filepath.IsAbs(prog) {
		return false
	}
	prog = filepath.Clean(prog)
	for _, f := range v.files {
		if filepath.Clean(f.dst) == prog {
			return true
		}
	}
	for _, b := range v.spec.Binds {
		d := filepath.Clean(b.Dst)
		if prog == d || strings.HasPrefix(prog, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
