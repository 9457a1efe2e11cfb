package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

func TestFillSecrets(t *testing.T) {
	secrets := map[string]any{
		"token": `t0k$n 'v4lue'`,
		"hosts": []any{"a.example", "b.example"},
		"db":    map[string]any{"user": "u", "port": 5432},
	}
	for name, tc := range map[string]struct {
		in, want string
		n        int
	}{
		"plain":             {"echo <% $secrets.token %>", `echo t0k$n 'v4lue'`, 1},
		"no spaces":         {"<%$secrets.token%>", `t0k$n 'v4lue'`, 1},
		"index":             {"<% $secrets.hosts[1] %>", "b.example", 1},
		"index as .N":       {"<% $secrets.hosts.0 %>", "a.example", 1},
		"nested number":     {"<% $secrets.db.port %>", "5432", 1},
		"object as JSON":    {"<% $secrets.db %>", `{"port":5432,"user":"u"}`, 1},
		"missing kept":      {"<% $secrets.nope %> <% $secrets.hosts[5] %>", "<% $secrets.nope %> <% $secrets.hosts[5] %>", 0},
		"parameters kept":   {"<% $parameters.x %>", "<% $parameters.x %>", 0},
		"two in one line":   {"<% $secrets.hosts[0] %>,<% $secrets.hosts[1] %>", "a.example,b.example", 2},
		"no refs untouched": {"echo $HOME '<%' %>", "echo $HOME '<%' %>", 0},
	} {
		t.Run(name, func(t *testing.T) {
			got, n := fillSecrets(tc.in, secrets)
			if got != tc.want || n != tc.n {
				t.Errorf("fillSecrets(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
			}
		})
	}
	if got, n := fillSecrets("<% $secrets.token %>", nil); got != "<% $secrets.token %>" || n != 0 {
		t.Errorf("without secrets: %q, %d", got, n)
	}
}

// The program file is created fresh: a file or a symlink planted at its
// path is refused, never reused or followed, and a secret one is 0600.
func TestProgramFileFresh(t *testing.T) {
	p := &programFile{Path: "/first/start/user.sh", Data: []byte("echo hi\n"), Secret: true}
	argv := []string{"bash", "-c", translate.PAIScriptFile, p.Path}
	p.locate(argv)

	dir := t.TempDir()
	got, path, err := p.write(argv, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "user.sh"); path != want || got[3] != want || argv[3] != "/first/start/user.sh" {
		t.Errorf("argv %q, path %s; want the copy's path %s in a new argv", got, path, want)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if _, _, err := p.write(argv, dir); err == nil {
		t.Error("an existing program file was overwritten")
	}

	planted := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.Symlink(victim, filepath.Join(planted, "user.sh")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.write(argv, planted); err == nil {
		t.Error("wrote through a planted symlink")
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("the symlink's target exists: %v", err)
	}
}

// Render shows where the script with secrets goes, never the values.
func TestRenderHidesSecrets(t *testing.T) {
	j := paiV1("sec", 0, roleDef{name: "w", n: 1})
	j.Roles[0].Command.Kind = jobs.CommandBashScript
	j.Roles[0].Command.Script = "echo <% $secrets.token %>"
	j.Secrets = map[string]any{"token": "v4lue-XYZ"}
	d, err := New(Options{RunDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	art, err := d.Render(t.Context(), planOf(j))
	if err != nil {
		t.Fatal(err)
	}
	text := string(art.Files[0].Data)
	if strings.Contains(text, "v4lue-XYZ") {
		t.Errorf("render shows a secret value:\n%s", text)
	}
	if !strings.Contains(text, "program file: ") || !strings.Contains(text, "user.sh (the script with its secrets filled in") {
		t.Errorf("render does not say where the script goes:\n%s", text)
	}
}

// The pid a start records (and reports in its event) is the task's own
// process, the leader of its group, as before tasks had a supervisor: the
// supervisor stays outside the group.
func TestPidIsTheTasks(t *testing.T) {
	j := paiV1("pid", 0, roleDef{name: "w", n: 1, cmd: `echo "$$ $(ps -o pgid= -p $$)"`})
	res, dir, _ := runJob(t, j, Options{})
	if res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	out, _ := os.ReadFile(filepath.Join(dir, "w-0", "attempt-1", "stdout"))
	pid, _ := os.ReadFile(filepath.Join(dir, "w-0", "attempt-1", "pid"))
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != f[1] || f[0] != strings.TrimSpace(string(pid)) {
		t.Errorf("task says pid, pgid = %q; pid file %q; want all equal", out, pid)
	}
}
