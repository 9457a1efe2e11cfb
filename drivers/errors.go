package drivers

import "errors"

// Sentinel errors every driver uses, so that callers (and the plugin
// transport, which carries them by name) can tell cases apart with errors.Is.
var (
	// ErrNotFound: the handle names no job the target knows.
	ErrNotFound = errors.New("job not found")
	// ErrUnsupported: the driver cannot do this (e.g. -detach on local).
	ErrUnsupported = errors.New("not supported by this driver")
	// ErrUnavailable: the target is unreachable or not installed.
	ErrUnavailable = errors.New("target unavailable")
)
