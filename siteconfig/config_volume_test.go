package siteconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVolumeRules(t *testing.T) {
	src := `
volume "training" { path = "/lustre/proj/training" }
volume "home-*"   {
  path      = "/gpfs/home/${user}/data"
  read_only = true
}
volume "ckpt" {
  nomad_csi_volume = "ckpt"
  access_mode      = "multi-node-multi-writer"
  attachment_mode  = "file-system"
}
volume "scratch" { path = "/scratch/$${user}" }
`
	cfg, diags := ParseConfig([]byte(src), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		names      []string
		want, path string
	}{
		{[]string{"training"}, "training", "/lustre/proj/training"},
		{[]string{"", "home-alice"}, "home-*", "/gpfs/home/alice/data"},
		{[]string{"nope", "scratch"}, "scratch", "/scratch/alice"},
		{[]string{"ckpt"}, "ckpt", ""},
	} {
		r := cfg.Volume(tc.names...)
		if r == nil || r.Pattern != tc.want {
			t.Errorf("Volume(%q) = %+v, want rule %q", tc.names, r, tc.want)
			continue
		}
		if p, err := r.HostPath("alice"); err != nil || p != tc.path {
			t.Errorf("%s: HostPath = %q, %v; want %q", tc.want, p, err, tc.path)
		}
	}
	if r := cfg.Volume("home-x"); !r.ReadOnly {
		t.Error("read_only lost")
	}
	if r := cfg.Volume("ckpt"); r.NomadCSIVolume != "ckpt" || r.AccessMode != "multi-node-multi-writer" || r.AttachmentMode != "file-system" {
		t.Errorf("csi rule %+v", r)
	}
	if cfg.Volume("other") != nil {
		t.Error("an unmapped name matched")
	}
	// one user's name cannot reach another's tree
	for _, u := range []string{"../bob", "a/b", "..", "", "a\nb"} {
		if p, err := cfg.Volume("home-x").HostPath(u); err == nil {
			t.Errorf("user %q gave %q", u, p)
		}
	}
}

func TestVolumeRulesRefused(t *testing.T) {
	for _, tc := range []struct{ src, at, want string }{
		{`volume "a" { path = "data" }`, "site.hcl:1,21", "must be absolute"},
		{`volume "a" { path = "/lustre/../etc" }`, "site.hcl:1,21", `".." element`},
		{`volume "a" { path = "/" }`, "site.hcl:1,21", "whole file system"},
		{`volume "a" {}`, "site.hcl:1,1", "names none"},
		{"volume \"a\" {\nnomad_host_volume = \"x\"\nnomad_csi_volume = \"y\"\n}", "site.hcl:1,1", "not both"},
		{"volume \"a\" {\nnomad_host_volume = \"x\"\naccess_mode = \"single-node-writer\"\n}", "site.hcl:1,1", "CSI volume's"},
		{"volume \"a\" {\nnomad_csi_volume = \"x\"\naccess_mode = \"rw\"\n}", "site.hcl:3,", "access_mode"},
		{"volume \"a\" {\npath = \"/x\"\nsize = 3\n}", "site.hcl:3,", "size"},
		{`volume "a" { path = "/x/${job}" }`, "site.hcl:1,", "job"},
		{"volume \"a\\nb\" { path = \"/x\" }", "site.hcl:1,", "newline"},
	} {
		_, diags := ParseConfig([]byte(tc.src), "site.hcl")
		msg := diags.Error()
		for _, d := range diags {
			msg += " | " + d.Detail
		}
		if !diags.HasErrors() || !strings.Contains(msg, tc.at) || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: got %q, want an error at %s about %q", tc.src, msg, tc.at, tc.want)
		}
	}
}

// TestVolumeMap: a mount's source and the tree it must stay in: the
// rule's path, or for a ${user} path the user's own directory (no link);
// a subPath that leaves it is refused.
func TestVolumeMap(t *testing.T) {
	cfg, diags := ParseConfig([]byte(`
volume "training" { path = "/lustre/proj/training" }
volume "home"     { path = "/gpfs/home/${user}/data" }
volume "scratch"  { path = "/scratch/run-${user}" }
`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		name, sub string
		want      Mapped
	}{
		{"training", "", Mapped{Src: "/lustre/proj/training", Tree: "/lustre/proj/training"}},
		{"training", "mnist/v1", Mapped{Src: "/lustre/proj/training/mnist/v1", Tree: "/lustre/proj/training"}},
		{"home", "", Mapped{Src: "/gpfs/home/alice/data", Tree: "/gpfs/home/alice", NoLink: true}},
		{"home", "ckpt", Mapped{Src: "/gpfs/home/alice/data/ckpt", Tree: "/gpfs/home/alice", NoLink: true}},
		{"scratch", "", Mapped{Src: "/scratch/run-alice", Tree: "/scratch/run-alice", NoLink: true}},
	} {
		if got, err := cfg.Volume(tc.name).Map("alice", tc.sub); err != nil || got != tc.want {
			t.Errorf("%s %q: %+v, %v; want %+v", tc.name, tc.sub, got, err, tc.want)
		}
	}
	for _, sub := range []string{"../bob", "a/../../x", "/etc", "a\nb", ".."} {
		if got, err := cfg.Volume("home").Map("alice", sub); err == nil {
			t.Errorf("subPath %q gave %+v", sub, got)
		}
	}
}

// TestSecretsBlock: the secrets dir keeps ${user}; its files are the
// YAML and JSON ones, sorted; a relative dir and a missing one are
// refused at the block.
func TestSecretsBlock(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "alice", "sub.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"b.yml", "a.yaml", "c.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, "alice", f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := ParseConfig([]byte(`secrets { dir = "`+dir+`/${user}" }`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	files, err := cfg.Secrets.Files("alice")
	want := []string{filepath.Join(dir, "alice", "a.yaml"), filepath.Join(dir, "alice", "b.yml"), filepath.Join(dir, "alice", "c.json")}
	if err != nil || strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, %v; want %q", files, err, want)
	}
	if files, err := cfg.Secrets.Files("bob"); err != nil || len(files) != 0 {
		t.Errorf("bob's missing directory: %q, %v", files, err)
	}
	if _, err := cfg.Secrets.Files("../alice"); err == nil {
		t.Error("user ../alice was accepted")
	}
	for _, src := range []string{`secrets { dir = "rel" }`, `secrets {}`} {
		if _, diags := ParseConfig([]byte(src), "site.hcl"); !diags.HasErrors() || diags[0].Subject == nil {
			t.Errorf("%s: %v, want a located error", src, diags)
		}
	}
}

// TestSecretsNomadVariable: the Variables' path prefix keeps ${user};
// a user name that is no path element, and prefixes Nomad would refuse
// or that lie in its own nomad/ tree, are refused, located.
func TestSecretsNomadVariable(t *testing.T) {
	cfg, diags := ParseConfig([]byte(`secrets { nomad_variable = "jobshift/secrets/${user}" }`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p, err := cfg.Secrets.VariablePrefix("alice"); err != nil || p != "jobshift/secrets/alice" {
		t.Errorf("alice's prefix %q, %v", p, err)
	}
	if files, err := cfg.Secrets.Files("alice"); err != nil || files != nil {
		t.Errorf("no dir: files %q, %v", files, err)
	}
	for _, user := range []string{"", "../bob", "bob/x", "a.b", "bob\nx"} {
		if p, err := cfg.Secrets.VariablePrefix(user); err == nil {
			t.Errorf("user %q was accepted: %q", user, p)
		}
	}
	for _, src := range []string{
		`secrets { nomad_variable = "nomad/jobs/x" }`,
		`secrets { nomad_variable = "/jobshift/secrets" }`,
		`secrets { nomad_variable = "jobshift/../secrets" }`,
		`secrets { nomad_variable = "jobshift//secrets" }`,
		`secrets { nomad_variable = "jobshift/secrets/" }`,
		"secrets { nomad_variable = \"jobshift/a\\nb\" }",
		`secrets { nomad_variable = "jobshift/sec rets" }`,
	} {
		_, diags := ParseConfig([]byte(src), "site.hcl")
		if !diags.HasErrors() || diags[0].Subject == nil || diags[0].Subject.Start.Line != 1 || diags[0].Subject.Start.Column < 11 {
			t.Errorf("%s: %v, want an error at the attribute", src, diags)
		}
	}
}
