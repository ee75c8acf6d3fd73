package apiserver

import (
	"bytes"
	"errors"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	goyaml "go.yaml.in/yaml/v2"
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

// errYAMLTooLarge marks a YAML answer past its bound (yamlBound).
var errYAMLTooLarge = errors.New("the YAML encoding of the response exceeds its bound; request application/json")

// yamlBound is the most YAML written for n bytes of JSON. YAML indents
// every line by its depth, so an object nested thousands of levels deep
// (JSON allows 10,000) grows quadratically: a chain of 9,999 maps, 60 KB
// of JSON, is 100 MB of YAML (kube-apiserver writes 300 MB for it).
// Real objects, nested a few dozen levels at most, stay well within
// four times their JSON; a bare chain passes the bound past about
// 2,000 levels.
func yamlBound(n int) int {
	return 4*n + 4<<20
}

// jsonToYAML converts JSON to YAML as sigs.k8s.io/yaml does (numbers
// keep their type, keys come out sorted) but stops with errYAMLTooLarge
// once the output passes yamlBound.
func jsonToYAML(js []byte) ([]byte, error) {
	var v any
	if err := goyaml.Unmarshal(js, &v); err != nil {
		return nil, err
	}
	out := &cappedBuffer{limit: yamlBound(len(js))}
	enc := goyaml.NewEncoder(out)
	err := enc.Encode(v)
	if err == nil {
		err = enc.Close()
	}
	if out.full {
		return nil, errYAMLTooLarge
	}
	if err != nil {
		return nil, err
	}
	return out.buf.Bytes(), nil
}

// cappedBuffer is a buffer that refuses writes past limit bytes.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
	full  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.limit {
		c.full = true
		return 0, errYAMLTooLarge
	}
	return c.buf.Write(p)
}
