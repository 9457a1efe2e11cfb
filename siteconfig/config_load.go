package siteconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
)

// ConfigFileName is the site config's file name.
const ConfigFileName = "jobshift.hcl"

// ConfigEnv names the environment variable holding a site config path.
const ConfigEnv = "JOBSHIFT_CONFIG"

// LoadConfig finds, reads and parses the site config. Lookup order, first
// hit wins (files are not merged):
//
//  1. explicitPath (the -config flag): must exist;
//  2. $JOBSHIFT_CONFIG: must exist;
//  3. $XDG_CONFIG_HOME/jobshift/jobshift.hcl, where XDG_CONFIG_HOME
//     defaults to ~/.config.
//
// A ./jobshift.hcl is not read unless named (-config ./jobshift.hcl or
// $JOBSHIFT_CONFIG): the current directory may be anyone's (a cloned
// repository, a shared project directory), and a site config decides
// which plugin binaries run and where NOMAD_TOKEN is sent. Its presence is
// a warning saying so. (Reading it with those settings ignored would still
// let it redirect state directories and add setup commands.)
//
// When none exists the result is the zero Config (Path ""), which is
// valid. The returned Config is never nil.
func LoadConfig(explicitPath string) (*Config, hcl.Diagnostics) {
	return loadConfig(explicitPath, os.Getenv, os.UserHomeDir)
}

func loadConfig(explicit string, getenv func(string) string, home func() (string, error)) (*Config, hcl.Diagnostics) {
	path, must, origin := explicit, true, "-config"
	if path == "" {
		path, origin = getenv(ConfigEnv), "$"+ConfigEnv
	}
	var warn hcl.Diagnostics
	if path == "" {
		must = false
		if _, err := os.Stat(ConfigFileName); err == nil {
			warn = hcl.Diagnostics{{Severity: hcl.DiagWarning,
				Summary: "./" + ConfigFileName + " not read",
				Detail: "A site config in the current directory is read only when named: it decides which plugins run and where " +
					"NOMAD_TOKEN is sent. If you trust it, pass -config ./" + ConfigFileName + " or set " + ConfigEnv + "."}}
		}
		dir := getenv("XDG_CONFIG_HOME")
		if dir == "" {
			if h, err := home(); err == nil && h != "" {
				dir = filepath.Join(h, ".config")
			}
		}
		if dir != "" {
			path = filepath.Join(dir, "jobshift", ConfigFileName)
		}
	}
	if path == "" {
		return &Config{}, warn
	}
	src, err := os.ReadFile(path)
	if err != nil {
		if !must && errors.Is(err, fs.ErrNotExist) {
			return &Config{}, warn
		}
		return &Config{}, hcl.Diagnostics{{Severity: hcl.DiagError,
			Summary: "Cannot read site config",
			Detail:  fmt.Sprintf("%v (named by %s). Fix the path or unset it.", err, originOr(origin, must))}}
	}
	cfg, diags := ParseConfig(src, path)
	return cfg, append(warn, diags...)
}

func originOr(origin string, must bool) string {
	if must {
		return origin
	}
	return "the default lookup"
}
