package apiserver

import (
	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// The bounds kube-apiserver puts on what one request may make the
// server hold or store.
const (
	// maxBodyBytes is kube-apiserver's --max-request-bytes default
	// (MaxRequestBodyBytes).
	maxBodyBytes = 3 << 20
	// maxJSONPatchOps is the most operations one JSON patch may hold.
	maxJSONPatchOps = 10000
	// maxJSONPatchCopyBytes bounds what the copy operations of one JSON
	// patch may add (kube's JSONPatchMaxCopyBytes): without it a few
	// copies of a subtree into itself double the document each time.
	maxJSONPatchCopyBytes = 3 << 20
	// DefaultMaxObjectBytes is the largest encoded object stored: etcd's
	// default --max-request-bytes, which is what bounds objects in kube.
	DefaultMaxObjectBytes = 3 << 19
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
	return DefaultMaxObjectBytes
}

// storable encodes u for storage within the object size bound. Every
// create and update (and so every patch and apply) is stored through
// here. As kube-apiserver does, a write other than an apply that is too
// large is tried once more without managedFields, which can be large
// and which the server can rebuild; u then loses them too, so the
// answer shows what was stored.
func (s *Server) storable(res *registry.Resource, u *unstructured.Unstructured, apply bool) ([]byte, error) {
	st, err := storageForm(res, u)
	if err != nil {
		return nil, err
	}
	b, err := storedBytes(st)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	if len(b) <= s.maxObjectBytes() {
		return b, nil
	}
	if !apply && len(u.GetManagedFields()) > 0 {
		u.SetManagedFields(nil)
		return s.storable(res, u, true)
	}
	return nil, apierror.StoreTooLarge()
}
