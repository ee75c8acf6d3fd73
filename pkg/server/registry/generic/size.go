package generic

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// storable encodes u for storage within the object size bound. Every
// create and update (and so every patch and apply) is stored through
// here. As kube-apiserver does, a write other than an apply that is too
// large is tried once more without managedFields, which can be large
// and which the server can rebuild; u then loses them too, so the
// answer shows what was stored.
func (s *Store) storable(res *registry.Resource, u *unstructured.Unstructured, apply bool) ([]byte, error) {
	st, err := storageForm(res, u)
	if err != nil {
		return nil, err
	}
	b, err := storedBytes(st)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	if len(b) <= s.maxBytes {
		return b, nil
	}
	if !apply && len(u.GetManagedFields()) > 0 {
		u.SetManagedFields(nil)
		return s.storable(res, u, true)
	}
	return nil, apierror.StoreTooLarge()
}

func jsonMarshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return b, nil
}
