// Package plugin packages drivers as hashicorp/go-plugin plugins: the
// handshake, the gRPC service for drivers.Driver, serving a built-in driver
// as a plugin and loading external jobshift-driver-* binaries.
package plugin
