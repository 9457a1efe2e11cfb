package nomad

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// A PAI v2 script that names a secret is rendered, filled in, under the
// task's secrets/ with mode 0600: local/ is world-writable and Nomad's
// file API serves it to any token with read-fs, so another user of the
// cluster could read the values there. Neither the job's own files nor
// anything else in local/ carries a secret reference.
func TestSecretScriptInSecretsDir(t *testing.T) {
	j := psWorker("sec", "")
	j.Roles = j.Roles[1:]
	j.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: "login --token '<% $secrets.token %>'"}
	j.Secrets = map[string]any{"token": "s3cr3t"}
	job, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	found := false
	for _, tg := range job.TaskGroups {
		for _, task := range tg.Tasks {
			for _, tpl := range task.Templates {
				if tpl.EmbeddedTmpl == nil || !strings.Contains(*tpl.EmbeddedTmpl, "nomadVar") || tpl.DestPath == nil {
					continue
				}
				if !strings.Contains(*tpl.EmbeddedTmpl, "token") {
					continue
				}
				found = true
				if argv := strings.Join(task.Config["args"].([]string), " "); !strings.Contains(argv, "${NOMAD_SECRETS_DIR}/user.sh") {
					t.Errorf("%s: the command does not run the script in secrets/: %s", task.Name, argv)
				}
				if !strings.HasPrefix(*tpl.DestPath, "secrets/") || tpl.Perms == nil || *tpl.Perms != "0600" {
					t.Errorf("%s: a file with secret values at %s, mode %v", task.Name, *tpl.DestPath, deref(tpl.Perms))
				}
			}
		}
	}
	if !found {
		t.Fatal("no template renders the secret")
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
