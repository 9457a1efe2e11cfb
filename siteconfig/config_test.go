package siteconfig

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// renderConfigResult is what a golden file holds: every diagnostic (with
// position) and then the decoded config as JSON.
func renderConfigResult(cfg *Config, diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		pos := "-"
		if d.Subject != nil {
			pos = fmt.Sprintf("%s:%d:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
		}
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		fmt.Fprintf(&b, "%s: %s: %s\n    %s\n", pos, sev, d.Summary, d.Detail)
	}
	c := *cfg
	c.Path = filepath.Base(c.Path)
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic(err)
	}
	b.Write(js)
	b.WriteString("\n")
	return b.String()
}

func TestParseConfigGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/config/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cfg, diags := ParseConfig(src, f)
			if cfg == nil {
				t.Fatal("ParseConfig returned a nil Config")
			}
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Start.Line < 1 {
					t.Errorf("diagnostic without a position: %s", d.Summary)
				}
			}
			got := renderConfigResult(cfg, diags)
			golden := strings.TrimSuffix(f, ".hcl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
			}
		})
	}
}

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, diags := ParseConfig([]byte(src), "t.hcl")
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	return cfg
}

// First match in file order wins, even when a later pattern is "more
// specific": that is the documented precedence.
func TestRulePrecedence(t *testing.T) {
	cfg := mustParse(t, `
role "work*" { driver = "exec" }
role "worker" { driver = "raw_exec" }
role "*" { driver = "docker" }
image "openpai/*" { replace = "mirror.example/openpai/*" }
image "openpai/standard:*" { replace = "never" }
image "*:latest" { replace = "pinned:1" }
image "docker.io/*/x" { replace = "r/*/x" }
gpu_type "titan*" { model = "TITAN" }
gpu_type "*" { model = "any" }
`)
	roles := map[string]string{"worker": "exec", "workers": "exec", "ps": "docker", "": "docker"}
	gotRoles := map[string]string{}
	for name := range roles {
		gotRoles[name] = cfg.Role(name).Driver
	}
	if diff := cmp.Diff(roles, gotRoles); diff != "" {
		t.Errorf("role driver (-want +got):\n%s", diff)
	}
	images := map[string]string{
		"openpai/standard:python_3.6": "mirror.example/openpai/standard:python_3.6",
		"ubuntu:latest":               "pinned:1",
		"ubuntu:16.04":                "ubuntu:16.04", // no rule
		"docker.io/library/x":         "r/library/x",
		"docker.io/a/b/x":             "r/a/b/x", // "*" crosses "/"
	}
	gotImages := map[string]string{}
	for img := range images {
		gotImages[img] = cfg.Image(img).Rewrite(img)
	}
	if diff := cmp.Diff(images, gotImages); diff != "" {
		t.Errorf("image rewrite (-want +got):\n%s", diff)
	}
	gpus := map[string]string{"titanxp": "TITAN", "v100": "any"}
	gotGPUs := map[string]string{}
	for g := range gpus {
		gotGPUs[g] = cfg.GPUType(g).Model
	}
	if diff := cmp.Diff(gpus, gotGPUs); diff != "" {
		t.Errorf("gpu_type (-want +got):\n%s", diff)
	}
}

func TestNilConfigLookups(t *testing.T) {
	var c *Config
	if c.Image("x") != nil || c.Role("x") != nil || c.GPUType("x") != nil {
		t.Error("a nil Config must match no rule")
	}
	if !c.PluginAllowed("x") {
		t.Error("a nil Config must restrict no plugin")
	}
	if got := (*ImageRule)(nil).Rewrite("img"); got != "img" {
		t.Errorf("nil rule rewrote image to %q", got)
	}
}

// Rewrite is total: rules ParseConfig rejects, or images the rule does not
// match, leave the image as it is (found by FuzzParseConfig: a replace "*"
// with a star-less pattern sliced out of range).
func TestRewriteTotal(t *testing.T) {
	cases := map[string]struct {
		rule ImageRule
		in   string
		want string
	}{
		"no match":                  {ImageRule{Pattern: "a/*", Replace: "b/*"}, "c/x", "c/x"},
		"star replace, no star pat": {ImageRule{Pattern: "0", Replace: "*"}, "0", "0"},
		"two stars in pattern":      {ImageRule{Pattern: "a*b*", Replace: "x/*"}, "aXbY", "aXbY"},
		"literal replace":           {ImageRule{Pattern: "a*", Replace: "lit"}, "abc", "lit"},
		"capture empty":             {ImageRule{Pattern: "a/*", Replace: "b/*"}, "a/", "b/"},
		"overlapping prefix/suffix": {ImageRule{Pattern: "ab*ba", Replace: "<*>"}, "aba", "aba"},
	}
	for name, tc := range cases {
		if got := tc.rule.Rewrite(tc.in); got != tc.want {
			t.Errorf("%s: Rewrite(%q) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}

func TestPluginAllowed(t *testing.T) {
	cfg := mustParse(t, `plugins { allowed = ["jobshift-driver-*", "exact"] }`)
	want := map[string]bool{"jobshift-driver-k8s": true, "exact": true, "jobshift-other": false, "exact2": false}
	got := map[string]bool{}
	for n := range want {
		got[n] = cfg.PluginAllowed(n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !(&Config{}).PluginAllowed("jobshift-driver-k8s") || !(&Config{Plugins: &PluginsConfig{}}).PluginAllowed("x") {
		t.Error("with no allowed patterns every plugin may load")
	}
}

func TestLoadConfigLookup(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, src string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	explicit := write("explicit.hcl", `slurm { partition = "explicit" }`)
	envFile := write("env.hcl", `slurm { partition = "env" }`)
	write("cwd/jobshift.hcl", `slurm { partition = "cwd" }`)
	write("home/.config/jobshift/jobshift.hcl", `slurm { partition = "home" }`)
	write("xdg/jobshift/jobshift.hcl", `slurm { partition = "xdg" }`)
	write("empty/.keep", "")

	type env struct{ explicit, jobshiftConfig, cwd, xdg string }
	cases := map[string]struct {
		in   env
		want string // partition, "" = zero config
		err  bool
	}{
		"explicit wins":           {env{explicit, envFile, "cwd", ""}, "explicit", false},
		"env var next":            {env{"", envFile, "cwd", ""}, "env", false},
		"./jobshift.hcl unnamed":  {env{"", "", "cwd", ""}, "home", false},
		"./jobshift.hcl named":    {env{"jobshift.hcl", "", "cwd", ""}, "cwd", false},
		"then ~/.config":          {env{"", "", "empty", ""}, "home", false},
		"XDG_CONFIG_HOME honored": {env{"", "", "empty", filepath.Join(dir, "xdg")}, "xdg", false},
		"missing explicit errors": {env{filepath.Join(dir, "nope.hcl"), "", "cwd", ""}, "", true},
		"missing env errors":      {env{"", filepath.Join(dir, "nope.hcl"), "cwd", ""}, "", true},
		"none found is zero":      {env{"", "", "empty", filepath.Join(dir, "nowhere")}, "", false},
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.Chdir(filepath.Join(dir, tc.in.cwd)); err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string {
				switch k {
				case ConfigEnv:
					return tc.in.jobshiftConfig
				case "XDG_CONFIG_HOME":
					return tc.in.xdg
				}
				return ""
			}
			home := func() (string, error) { return filepath.Join(dir, "home"), nil }
			cfg, diags := loadConfig(tc.in.explicit, getenv, home)
			if cfg == nil {
				t.Fatal("nil config")
			}
			if diags.HasErrors() != tc.err {
				t.Fatalf("errors = %v, want %v: %s", diags.HasErrors(), tc.err, diags.Error())
			}
			got := ""
			if cfg.Slurm != nil {
				got = cfg.Slurm.Partition
			}
			if got != tc.want {
				t.Errorf("partition = %q, want %q (path %q)", got, tc.want, cfg.Path)
			}
		})
	}
}

// FuzzParseConfig: any input gives a Config and located diagnostics, never
// a panic.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/config/*.hcl")
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, diags := ParseConfig(src, "f.hcl")
		if cfg == nil {
			t.Fatal("nil Config")
		}
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line < 1 {
				t.Errorf("diagnostic without a position: %s: %s", d.Summary, d.Detail)
			}
		}
		for _, r := range cfg.Images {
			_ = r.Rewrite("some/image:tag") // must not panic whatever the rule
		}
	})
}

// An unnamed ./jobshift.hcl (a cloned repository's, a shared directory's)
// is not read, and the user is told why and how to opt in: it could run
// its plugin binaries and send NOMAD_TOKEN to its nomad address.
func TestCwdConfigNotTrusted(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ConfigFileName), []byte("plugins {\n  dirs = [\"./evil\"]\n}\n"), 0o644)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	none := func(string) string { return "" }
	cfg, diags := loadConfig("", none, func() (string, error) { return filepath.Join(dir, "nohome"), nil })
	if cfg.Plugins != nil || cfg.Path != "" {
		t.Errorf("./%s was read: %+v", ConfigFileName, cfg)
	}
	if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || !strings.Contains(diags[0].Detail, "-config ./jobshift.hcl") {
		t.Errorf("want one warning naming the opt-in, got %v", diags)
	}
}

// plugins.sha256 pins plugin binaries; a digest that is not 64 lower-case
// hex digits is an error at its place.
func TestPluginPins(t *testing.T) {
	good := strings.Repeat("ab", 32)
	cfg, diags := ParseConfig([]byte("plugins {\n  sha256 = { \"jobshift-driver-x\" = \""+good+"\" }\n}\n"), "site.hcl")
	if diags.HasErrors() || cfg.Plugins.SHA256["jobshift-driver-x"] != good {
		t.Fatalf("%v %+v", diags, cfg.Plugins)
	}
	_, diags = ParseConfig([]byte("plugins {\n  sha256 = { \"jobshift-driver-x\" = \"ABC\" }\n}\n"), "site.hcl")
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "site.hcl:2,") {
		t.Fatalf("a bad digest: %v", diags)
	}
}

// TestDockerNetworkNames: nomad.docker_network takes a user-defined
// network's name and refuses, where it is written, Docker's modes (whose
// containers' names no embedded DNS resolves) and names outside the
// grammar jobshift takes.
func TestDockerNetworkNames(t *testing.T) {
	for _, c := range []struct {
		name, err string
	}{
		{"jobshift", ""},
		{"tf.net_1-a", ""},
		{"j", ""},
		{"bridge", "is a Docker network mode"},
		{"host", "is a Docker network mode"},
		{"none", "is a Docker network mode"},
		{"default", "is a Docker network mode"},
		{"container:abc", "is a Docker network mode"},
		{"my net", "is not a network name"},
		{"-net", "is not a network name"},
		{"jobs/tf", "is not a network name"},
	} {
		src := fmt.Sprintf("nomad {\n  docker_network = %q\n}\n", c.name)
		cfg, diags := ParseConfig([]byte(src), "site.hcl")
		switch {
		case c.err == "" && (diags.HasErrors() || cfg.Nomad.DockerNetwork != c.name):
			t.Errorf("%q: %v, network %q", c.name, diags, cfg.Nomad.DockerNetwork)
		case c.err != "" && (len(diags) != 1 || !strings.Contains(diags[0].Detail, c.err) || diags[0].Subject.Start.Line != 2 || diags[0].Subject.Start.Column != 20):
			t.Errorf("%q: %v, want one error at 2:20 saying %q", c.name, diags, c.err)
		case c.err != "" && cfg.Nomad.DockerNetwork != "":
			t.Errorf("%q: refused but kept", c.name)
		}
	}
}
