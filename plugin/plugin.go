package plugin

import (
	"context"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/jobshift/jobshift/drivers"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"google.golang.org/grpc"
)

// GRPCDriverPlugin is the go-plugin Plugin for drivers: on the plugin side
// Impl is served; on the host side the dispensed value is a *GRPCClient.
type GRPCDriverPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl    drivers.Driver
	Version string
	// Warnings, when set, is what Impl reports its warnings to (ServeWith).
	Warnings *Warnings
	// protocol is the version this set serves (0 = ProtocolVersion).
	protocol int
}

var _ goplugin.GRPCPlugin = (*GRPCDriverPlugin)(nil)

func (p *GRPCDriverPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterDriverServer(s, &grpcServer{impl: p.Impl, version: p.Version, warnings: p.Warnings})
	return nil
}

func (p *GRPCDriverPlugin) GRPCClient(ctx context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	proto := p.protocol
	if proto == 0 {
		proto = ProtocolVersion
	}
	return newGRPCClient(ctx, pb.NewDriverClient(c), proto)
}

// Serve runs d as a plugin on this process's stdio; it returns when the host
// goes away. Call it from main() of a jobshift-driver-<name> binary.
func Serve(d drivers.Driver, version string) { ServeWith(d, version, nil) }

// ServeWith is Serve for a driver built with drivers.Config{Warn:
// w.Report}: its warnings go back to the host with each Render and Submit.
func ServeWith(d drivers.Driver, version string, w *Warnings) {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: pluginSets(&GRPCDriverPlugin{Impl: d, Version: version, Warnings: w}),
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
