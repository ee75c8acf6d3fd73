// Package version identifies the build, for `setpoint version` and, once
// the API server serves it, /version.
package version

import "runtime/debug"

// Version is the release; builds set it with
// -ldflags "-X github.com/setpoint-dev/setpoint/internal/version.Version=v1.2.3".
var Version = "v0.1.0-dev"

// Commit returns the VCS revision the binary was built from, or
// "unknown" when the build did not record it.
func Commit() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}
