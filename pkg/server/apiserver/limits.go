package apiserver

import (
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// The bounds kube-apiserver puts on what one request may make the
// server hold or store.
const (
	// maxJSONPatchOps is the most operations one JSON patch may hold.
	maxJSONPatchOps = 10000
	// maxJSONPatchCopyBytes bounds what the copy operations of one JSON
	// patch may add (kube's JSONPatchMaxCopyBytes): without it a few
	// copies of a subtree into itself double the document each time.
	maxJSONPatchCopyBytes = 3 << 20
)

// The JSON patch library reads its copy limit from a package variable
// (zero means unbounded); kube-apiserver sets it the same way when it
// builds its server.
func init() {
	jsonpatch.AccumulatedCopySizeLimit = maxJSONPatchCopyBytes
}

// maxObjectBytes is the configured bound on stored objects.
func (s *Server) maxObjectBytes() int {
	if s.cfg.MaxObjectBytes > 0 {
		return s.cfg.MaxObjectBytes
	}
	return generic.DefaultMaxObjectBytes
}
