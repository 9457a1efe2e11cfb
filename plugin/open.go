package plugin

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/siteconfig"
)

// StartTimeout bounds how long a plugin may take to complete the handshake;
// a binary that is not a jobshift plugin (or hangs) fails within it.
var StartTimeout = 10 * time.Second

// External is a running external driver.
type External struct {
	*GRPCClient
	// Protocol is the negotiated protocol version.
	Protocol int
	Path     string
	client   *goplugin.Client
}

// Close stops the plugin process.
func (e *External) Close() { e.client.Kill() }

// Exited reports whether the plugin process has exited (crashed).
func (e *External) Exited() bool { return e.client.Exited() }

// Open starts the plugin executable at path and connects to it. A binary
// that is not a jobshift driver, speaks no protocol version this build
// knows, crashes or hangs during start-up yields an error naming the path,
// never a hang. The plugin's own log lines go to logs (nil = discarded).
func Open(path string, logs io.Writer) (*External, error) {
	if logs == nil {
		logs = io.Discard
	}
	cmd := exec.Command(path)
	cmd.Env = os.Environ()
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: pluginSets(&GRPCDriverPlugin{}),
		Cmd:              cmd,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		// the plugin's socket is reachable by other local users: mutual
		// TLS with certificates made for this one connection
		AutoMTLS:     true,
		StartTimeout: StartTimeout,
		Logger: hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: logs, Level: hclog.Warn,
			DisableTime: true}),
		SyncStdout: logs,
		SyncStderr: logs,
		// Managed: goplugin.CleanupClients (deferred by the CLI) kills it,
		// so no plugin process outlives the command that started it.
		Managed: true,
	})
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: %w (is it a jobshift driver plugin speaking protocol %d?)", path, err, ProtocolVersion)
	}
	raw, err := rpc.Dispense(PluginName)
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	gc, ok := raw.(*GRPCClient)
	if !ok {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: dispensed %T, not a driver", path, raw)
	}
	return &External{GRPCClient: gc, Protocol: client.NegotiatedVersion(), Path: path, client: client}, nil
}

// OpenDriver finds the external driver called name on the search path and
// opens it. It wraps drivers.ErrUnavailable when there is none, and
// refuses one that is unsafe to run (Candidate.Unsafe).
func OpenDriver(name string, dirs []string, allowed func(base string) bool, logs io.Writer) (*External, error) {
	return openDriver(name, dirs, nil, allowed, logs)
}

// OpenSiteDriver is OpenDriver checking the site config's plugin pins.
func OpenSiteDriver(name string, dirs []string, site *siteconfig.Config, logs io.Writer) (*External, error) {
	return openDriver(name, dirs, site, func(base string) bool { return Allowed(site, base) }, logs)
}

func openDriver(name string, dirs []string, site *siteconfig.Config, allowed func(base string) bool, logs io.Writer) (*External, error) {
	for _, c := range Discover(dirs, site) {
		if c.Name != name {
			continue
		}
		if allowed != nil && !allowed(BinaryPrefix+c.Name) {
			return nil, fmt.Errorf("plugin %s is not allowed by the site config's plugins.allowed patterns: %w", c.Path, drivers.ErrUnavailable)
		}
		if c.Unsafe != "" {
			return nil, fmt.Errorf("plugin %s is not run: %s: %w", c.Path, c.Unsafe, drivers.ErrUnavailable)
		}
		return Open(c.Path, logs)
	}
	return nil, fmt.Errorf("no driver %q: not built in, and no %s%s in %v: %w", name, BinaryPrefix, name, dirs, drivers.ErrUnavailable)
}
