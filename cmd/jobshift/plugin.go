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
	hcl2 "github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/hcl"
	"github.com/jobshift/jobshift/plugin"
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
	allowed := func(base string) bool { return plugin.Allowed(cfg.Site, base) }
	ext, err := plugin.OpenDriver(name, dirs, allowed, cfg.Warnings)
	if err != nil {
		return nil, fmt.Errorf("%w (built-in drivers: %s)", err, strings.Join(drivers.Names(), ", "))
	}
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

Options:
`

func runPlugins(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plugins", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addPluginDirFlag(fs)
	configPath := fs.String("config", "", "site config file (jobshift.hcl)")
	fs.Usage = func() { fmt.Fprint(stderr, pluginsHelp); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return 1
	}
	site, diags := hcl.LoadConfig(*configPath)
	if diags.HasErrors() {
		printDiagsPlain(stderr, diags)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tPROTOCOL\tORIGIN\tSTATUS")
	for _, n := range drivers.Names() {
		fmt.Fprintf(tw, "%s\t%s\t%d\tbuilt-in\tok\n", n, version, plugin.ProtocolVersion)
	}
	for _, c := range plugin.Discover(plugin.SearchDirs(pluginDir, site), site) {
		status, ver, proto := "ok", "-", "-"
		if _, builtin := drivers.Lookup(c.Name); builtin {
			status = "shadowed by the built-in driver"
		}
		if c.Denied {
			status = "not allowed by plugins.allowed"
		} else if ext, err := plugin.Open(c.Path, nil); err != nil {
			status = "error: " + oneLine(err.Error())
		} else {
			ver, proto = ext.Version(), fmt.Sprint(ext.Protocol)
			if ext.Name() != c.Name {
				status = fmt.Sprintf("error: reports name %q", ext.Name())
			}
			ext.Close()
		}
		for _, s := range c.Shadowed {
			status += "; shadows " + s
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Name, ver, proto, c.Path, status)
	}
	tw.Flush()
	return 0
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

const pluginServeHelp = `Usage: jobshift plugin serve [options] DRIVER

  Serves the built-in DRIVER (local, nomad, slurm) over the jobshift plugin
  protocol on standard input/output. jobshift starts plugins itself; run
  this by hand only to test. A copy or symlink of jobshift named
  jobshift-driver-DRIVER does the same when started with no arguments.

Options:
`

func runPluginCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprint(stderr, pluginServeHelp)
		return 1
	}
	fs := flag.NewFlagSet("plugin serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "site config file (jobshift.hcl)")
	fs.Usage = func() { fmt.Fprint(stderr, pluginServeHelp); fs.PrintDefaults() }
	if err := fs.Parse(args[1:]); err != nil {
		return 1
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 1
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
	site, diags := hcl.LoadConfig(configPath)
	if diags.HasErrors() {
		printDiagsPlain(stderr, diags)
		return 1
	}
	// stdout belongs to the plugin protocol: everything else goes to stderr,
	// which go-plugin relays to the host's log.
	d, err := drivers.New(name, drivers.Config{Site: site, Output: stderr, Warnings: stderr})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	plugin.Serve(d, version)
	return 0
}

// printDiagsPlain prints diagnostics as file:line:col: severity: summary.
func printDiagsPlain(w io.Writer, diags hcl2.Diagnostics) {
	for _, d := range diags {
		sev := "error"
		if d.Severity != hcl2.DiagError {
			sev = "warning"
		}
		pos := ""
		if d.Subject != nil {
			pos = fmt.Sprintf("%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(w, "%s%s: %s\n", pos, sev, d.Summary)
		if d.Detail != "" {
			fmt.Fprintf(w, "    %s\n", d.Detail)
		}
	}
}
