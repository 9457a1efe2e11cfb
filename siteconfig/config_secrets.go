package siteconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
)

// SecretsConfig is the `secrets {}` block: where the site keeps the
// Kubernetes Secrets and ConfigMaps its jobs name, as a cluster keeps
// them created beforehand (kubectl apply), per user if the path says so:
//
//	secrets { dir = "/etc/jobshift/secrets/${user}" }
//	secrets { nomad_variable = "jobshift/secrets/${user}" }
//
// A command given no -secrets file reads every *.yaml, *.yml and *.json
// file of Dir (sorted by name) as one; each holds Secret or ConfigMap
// documents (or a v1 List of them). The Nomad Variable NomadVariable/NAME
// (in the namespace the Nomad client uses) is the Secret NAME, its items
// the Secret's keys and values: the site keeps them where Nomad's ACLs
// guard them (a user's token reads its own path only), and no file of them
// lies on a disk. Nomad is asked only for a Secret a job names that neither
// the job file nor Dir holds, so a job naming none needs no Nomad.
type SecretsConfig struct {
	// Dir is the directory, "${user}" not yet substituted ("" = none).
	Dir string
	// NomadVariable is the Variables' path prefix, "${user}" not yet
	// substituted ("" = none).
	NomadVariable string
	Range         hcl.Range
}

func decodeSecrets(b *hcl.Block) (*SecretsConfig, hcl.Diagnostics) {
	s := &SecretsConfig{Range: b.DefRange}
	d := newDecoder(b, attrs("dir", "nomad_variable"))
	dir, nv := d.attrs["dir"], d.attrs["nomad_variable"]
	if dir == nil && nv == nil {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing secrets source",
			Detail: "A secrets block names where the site's Secrets and ConfigMaps are: dir = \"/etc/jobshift/secrets/${user}\" (a directory of their YAML files), nomad_variable = \"jobshift/secrets/${user}\" (a Nomad Variable per Secret below that path), or both.", Subject: b.DefRange.Ptr()})
		return s, d.diags
	}
	if dir != nil {
		if ds := gohcl.DecodeExpression(dir.Expr, userVar, &s.Dir); ds.HasErrors() {
			d.diags = append(d.diags, ds...)
		} else if err := checkVolumePath(s.Dir); err != nil {
			d.errAt(dir, "Invalid secrets dir", "%v", err)
		}
	}
	if nv != nil {
		if ds := gohcl.DecodeExpression(nv.Expr, userVar, &s.NomadVariable); ds.HasErrors() {
			d.diags = append(d.diags, ds...)
		} else if err := checkVariablePath(s.NomadVariable); err != nil {
			d.errAt(nv, "Invalid secrets nomad_variable", "%v", err)
		}
	}
	return s, d.diags
}

// checkVariablePath: p (with ${user}) is a Nomad Variable path prefix:
// elements of letters, digits, '-', '_' and '~' joined by '/', at most
// 128 bytes with the Secret's name (nomad/structs/variables.go,
// validVariablePath, v1.11.3), outside Nomad's own nomad/ tree, which
// only jobs' Variables (nomad/jobs/...) may use.
func checkVariablePath(p string) error {
	for _, el := range strings.Split(strings.ReplaceAll(p, "${user}", "u"), "/") {
		if el == "" || strings.Trim(el, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~") != "" {
			return fmt.Errorf("%q is no Nomad Variable path (elements of letters, digits, '-', '_' and '~' joined by '/', no leading or trailing '/')", p)
		}
	}
	if p == "nomad" || strings.HasPrefix(p, "nomad/") {
		return fmt.Errorf("%q lies in Nomad's own nomad/ tree (each job's Variable); keep the site's Secrets elsewhere, such as jobshift/secrets/${user}", p)
	}
	if len(p) > 100 {
		return fmt.Errorf("%q is too long: Nomad takes Variable paths of 128 bytes, the Secret's name included", p)
	}
	return nil
}

// VariablePrefix is the Nomad Variable path of user's Secrets ("" when
// the site names none). A user name that is no path element is refused.
func (s *SecretsConfig) VariablePrefix(user string) (string, error) {
	p := s.NomadVariable
	if !strings.Contains(p, "${user}") {
		return p, nil
	}
	if user == "" || strings.Trim(user, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~") != "" {
		return "", fmt.Errorf("secrets nomad_variable %s: the user name %q cannot stand for ${user} (a Variable path element is letters, digits, '-', '_' and '~')", p, user)
	}
	return strings.ReplaceAll(p, "${user}", user), nil
}

// Files are the files of s's directory for user, sorted by name; a
// missing directory holds none. A user name that would leave the
// directory's tree is refused.
func (s *SecretsConfig) Files(user string) ([]string, error) {
	dir := s.Dir
	if dir == "" {
		return nil, nil
	}
	if strings.Contains(dir, "${user}") {
		if user == "" || user == "." || user == ".." || strings.ContainsAny(user, "/\n\r\t\x00") {
			return nil, fmt.Errorf("secrets dir %s: the user name %q cannot stand for ${user}", s.Dir, user)
		}
		dir = strings.ReplaceAll(dir, "${user}", user)
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
