package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the newest driver protocol this build speaks. The
// go-plugin handshake negotiates the highest version both sides list in
// VersionedPlugins; a plugin that only speaks an unknown version fails the
// handshake with a clear error instead of hanging.
const ProtocolVersion = 1

// PluginName is the name the driver is dispensed under.
const PluginName = "driver"

// Handshake is jobshift's own handshake: the cookie only tells an executable
// that it was started by jobshift (it is not a security measure), and it is
// deliberately not Nomad's, so a Nomad plugin started by mistake refuses.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "JOBSHIFT_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "b1c3f0f2-jobshift-driver-7d2a",
}

// pluginSets lists, per protocol version, the plugins served or dispensed.
func pluginSets(impl *GRPCDriverPlugin) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{
		1: {PluginName: impl},
	}
}
