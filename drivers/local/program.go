package local

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// maxArgBytes is the longest command jobshift passes as one argument.
// Linux refuses any single argument or variable over 128 KiB
// (MAX_ARG_STRLEN, E2BIG: "argument list too long", exit 127), and OpenPAI
// never had the limit: it ran commands from a file. Longer commands travel
// as a file too; shorter ones stay in argv, where `ps` and `render` show
// them.
const maxArgBytes = 64 << 10

// programFile is a task's program written into its start directory just
// before the start, instead of travelling in argv: a long command, or a PAI
// v2 script whose `<% $secrets.x %>` references are filled in (values must
// never be in argv, which any user can read in /proc, nor in the run
// directory after the task).
type programFile struct {
	// Path is where the first start of the attempt finds it; each start
	// writes its own copy in its own directory (start).
	Path string
	Data []byte
	// Secret: the file holds secret values: it is 0600 and removed once
	// the task's process group is gone.
	Secret bool
	// Args are the indices of Argv that contain Path (set by buildSpec
	// once Argv is final).
	Args []int
}

// programArgv decides how a PAI command travels: in argv (the common case,
// argv is returned unchanged and prog is nil) or as a file in the start
// directory (translate.Launch.File: the same line PAI ran, reading it).
func programArgv(r *jobs.Role, l translate.Launch, secrets map[string]any, argv []string, firstStart string) (out []string, prog *programFile) {
	c := r.Command
	name := "command.txt"
	n := 0
	switch c.Kind {
	case jobs.CommandBashScript:
		if _, n = fillSecrets(c.Script, secrets); n == 0 && len(l.Argv[2]) <= maxArgBytes { // the prelude and the script
			return argv, nil
		}
		name = translate.PAIScriptName
	case jobs.CommandEval:
		if len(c.Script) <= maxArgBytes {
			return argv, nil
		}
	default:
		return argv, nil
	}
	path := filepath.Join(firstStart, name)
	fargv, text, _ := l.File(path)
	if n > 0 {
		text, _ = fillSecrets(text, secrets)
	}
	return fargv, &programFile{Path: path, Data: []byte(text), Secret: n > 0}
}

// locate records which arguments name the file.
func (p *programFile) locate(argv []string) {
	p.Args = nil
	for i, a := range argv {
		if strings.Contains(a, p.Path) {
			p.Args = append(p.Args, i)
		}
	}
}

// write creates the program file for the start in dir, fresh: O_EXCL (a
// file already there, or a link planted there, is an error, not reused or
// followed) and 0600 for secrets (the umask can only narrow it). It
// returns argv with the path of this start's copy.
func (p *programFile) write(argv []string, dir string) ([]string, string, error) {
	path := filepath.Join(dir, filepath.Base(p.Path))
	mode := os.FileMode(0o644)
	if p.Secret {
		mode = 0o600
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return nil, "", fmt.Errorf("writing the task's program: %w", err)
	}
	if _, err := f.Write(p.Data); err != nil {
		f.Close()
		os.Remove(path)
		return nil, "", fmt.Errorf("writing the task's program %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, "", fmt.Errorf("writing the task's program %s: %w", path, err)
	}
	out := append([]string(nil), argv...)
	for _, i := range p.Args {
		out[i] = strings.ReplaceAll(out[i], p.Path, path)
	}
	return out, path, nil
}

// secretRef is a PAI v2 secret reference, as drivers/slurm reads it (keys of
// letters, digits, _ and -, and [N] indexes).
var (
	secretRef = regexp.MustCompile(`<%\s*\$secrets((?:\.[A-Za-z0-9_-]+|\[[0-9]+\])+)\s*%>`)
)

// fillSecrets replaces every reference that resolves in secrets by its
// value, byte for byte (OpenPAI's runtime put the values into user.sh
// unescaped); references that do not resolve stay as written, as OpenPAI's
// rest-server wrote them back and the Slurm driver keeps them. n counts the
// references filled.
func fillSecrets(s string, secrets map[string]any) (string, int) {
	if len(secrets) == 0 {
		return s, 0
	}
	n := 0
	out := secretRef.ReplaceAllStringFunc(s, func(m string) string {
		path := secretRef.FindStringSubmatch(m)[1]
		v, ok := translate.LookupSecret(secrets, path)
		if !ok {
			return m
		}
		n++
		return v
	})
	return out, n
}
