package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/plugin"
	"github.com/jobshift/jobshift/siteconfig"
)

func init() {
	register("plugins", "List every driver: built-in ones and external plugins", runPlugins)
	register("plugin", "Serve a built-in driver as a plugin (plugin serve DRIVER)", runPluginCmd)
	// Drivers that are not built in are looked up as plugins.
	drivers.External = openExternal
}

// pluginDir is the -plugin-dir flag of the command being run (every command
// that resolves a driver registers it with addPluginDirFlag).
var pluginDir string

func addPluginDirFlag(fs *flag.FlagSet) {
	fs.StringVar(&pluginDir, "plugin-dir", "", "Extra `directory` (a list, like $PATH) searched first for jobshift-driver-<name> plugins.")
}

// openExternal loads jobshift-driver-<name> from the plugin search path.
func openExternal(name string, cfg drivers.Config) (drivers.Driver, error) {
	dirs := plugin.SearchDirs(pluginDir, cfg.Site)
	ext, err := plugin.OpenSiteDriver(name, dirs, cfg.Site, cfg.Warnings)
	if err != nil {
		return nil, fmt.Errorf("%w (built-in drivers: %s)", err, strings.Join(drivers.Names(), ", "))
	}
	ext.Warn = cfg.Report // counted and printed as a built-in driver's
	return ext, nil
}

// cleanupPlugins stops every plugin process this run started.
func cleanupPlugins() { goplugin.CleanupClients() }

// servedDriverName returns DRIVER when this binary was started under the
// name jobshift-driver-DRIVER (a symlink or copy): it then is that plugin.
func servedDriverName(argv0 string) (string, bool) {
	base := filepath.Base(argv0)
	if strings.HasPrefix(base, plugin.BinaryPrefix) && len(base) > len(plugin.BinaryPrefix) {
		return strings.TrimPrefix(base, plugin.BinaryPrefix), true
	}
	return "", false
}

const pluginsHelp = `Usage: jobshift plugins [options]

  Lists every driver jobshift can use: the built-in ones and the external
  jobshift-driver-<name> executables on the plugin search path (-plugin-dir,
  $JOBSHIFT_PLUGIN_PATH, ~/.config/jobshift/plugins, the site config's
  plugins.dirs), with version, protocol and origin. External plugins are
  started briefly to ask their version; one that fails says why.
`

func runPlugins(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plugins", pluginsHelp, stderr)
	addPluginDirFlag(fs)
	configPath := fs.String("config", "", "site config file (jobshift.hcl)")
	asJSON := fs.Bool("json", false, "Print a JSON array of the drivers instead of the table.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	site, diags := siteconfig.LoadConfig(*configPath)
	if diags.HasErrors() {
		printDiags(stderr, diags)
		return 1
	}
	var list []pluginInfo
	for _, n := range drivers.Names() {
		list = append(list, pluginInfo{Name: n, Version: version, Protocol: plugin.ProtocolVersion, Origin: "built-in", Status: "ok", OK: true})
	}
	for _, c := range plugin.Discover(plugin.SearchDirs(pluginDir, site), site) {
		status, ver, proto := "ok", "", 0
		if _, builtin := drivers.Lookup(c.Name); builtin {
			status = "shadowed by the built-in driver"
		}
		if c.Denied {
			status = "not allowed by plugins.allowed"
		} else if c.Unsafe != "" {
			status = "not run: " + c.Unsafe
		} else if ext, err := plugin.Open(c.Path, nil); err != nil {
			status = "error: " + oneLine(err.Error())
		} else {
			ver, proto = ext.Version(), ext.Protocol
			if ext.Name() != c.Name {
				status = fmt.Sprintf("error: reports name %q", ext.Name())
			}
			ext.Close()
		}
		for _, s := range c.Shadowed {
			status += "; shadows " + s
		}
		list = append(list, pluginInfo{Name: c.Name, Version: ver, Protocol: proto, Origin: c.Path, Status: status,
			OK: status == "ok" || strings.HasPrefix(status, "ok;"), Shadows: c.Shadowed})
	}
	if *asJSON {
		return writeJSON(stdout, stderr, list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tPROTOCOL\tORIGIN\tSTATUS")
	for _, p := range list {
		ver, proto := p.Version, fmt.Sprint(p.Protocol)
		if ver == "" {
			ver = "-"
		}
		if p.Protocol == 0 {
			proto = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, ver, proto, p.Origin, p.Status)
	}
	tw.Flush()
	return 0
}

// pluginInfo is one line of `jobshift plugins` (one object of -json).
type pluginInfo struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`  // "" when it could not be asked
	Protocol int    `json:"protocol,omitempty"` // 0 when it could not be asked
	// Origin is "built-in" or the executable's path.
	Origin string `json:"origin"`
	// OK: usable under this name; Status says why not otherwise.
	OK      bool     `json:"ok"`
	Status  string   `json:"status"`
	Shadows []string `json:"shadows,omitempty"`
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

const pluginServeHelp = `Usage: jobshift plugin serve [options] DRIVER

  Serves the built-in DRIVER (local, nomad, slurm) over the jobshift plugin
  protocol on standard input/output. jobshift starts plugins itself; run
  this by hand only to test. A copy or symlink of jobshift named
  jobshift-driver-DRIVER does the same when started with no arguments.

`

func runPluginCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) == 1 && isHelpArg(args[0]) {
			fmt.Fprint(stdout, pluginServeHelp)
			return exitOK
		}
		fmt.Fprint(stderr, pluginServeHelp)
		return exitUsage
	}
	fs := newFlagSet("plugin serve", pluginServeHelp, stderr)
	configPath := fs.String("config", "", "site config file (jobshift.hcl)")
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return code
	}
	if fs.NArg() != 1 {
		usageError(fs)
		return exitUsage
	}
	return servePlugin(fs.Arg(0), *configPath, stderr)
}

func servePlugin(name, configPath string, stderr io.Writer) int {
	if _, ok := drivers.Lookup(name); !ok {
		fmt.Fprintf(stderr, "jobshift plugin serve: no built-in driver %q (built-in: %s)\n", name, strings.Join(drivers.Names(), ", "))
		return 1
	}
	if os.Getenv(plugin.Handshake.MagicCookieKey) != plugin.Handshake.MagicCookieValue {
		fmt.Fprintln(stderr, "This is a jobshift driver plugin: jobshift starts it itself (see 'jobshift plugins').")
		return 1
	}
	site, diags := siteconfig.LoadConfig(configPath)
	if diags.HasErrors() {
		printDiags(stderr, diags)
		return 1
	}
	// stdout belongs to the plugin protocol: everything else goes to stderr,
	// which go-plugin relays to the host's log.
	ws := plugin.Warnings{Outside: drivers.Config{Warnings: stderr}.Report}
	d, err := drivers.New(name, drivers.Config{Site: site, Output: stderr, Warnings: stderr, Warn: ws.Report})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	plugin.ServeWith(d, version, &ws)
	return 0
}
