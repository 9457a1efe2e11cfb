package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the newest driver protocol this build speaks. The
// go-plugin handshake negotiates the highest version both sides list in
// VersionedPlugins; a plugin that only speaks an unknown version fails the
// handshake with a clear error instead of hanging.
//
// Version 2 added secret variables, platform files, init containers, the
// step order, the JobSet and Volcano completion fields and the MXJob,
// TrainJob and Volcano extras (proto/driver.proto). Both versions are
// served: with a version 1 plugin the host sends only plans version 1
// carries whole and refuses the others (wire_version.go).
const ProtocolVersion = 2

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
// The messages of version 2 are a superset of version 1's, so one server
// serves both; the host's client remembers which one it speaks.
func pluginSets(impl *GRPCDriverPlugin) map[int]goplugin.PluginSet {
	sets := map[int]goplugin.PluginSet{}
	for v := 1; v <= ProtocolVersion; v++ {
		p := *impl
		p.protocol = v
		sets[v] = goplugin.PluginSet{PluginName: &p}
	}
	return sets
}
