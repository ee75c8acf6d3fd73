package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// admit asks the kind's AdmitStrategy whether the caller in ctx may
// write u (old is the stored object, nil on create); named says the
// request's URL names the object.
func (s *Store) admit(ctx context.Context, res *registry.Resource, named bool, u, old *unstructured.Unstructured) error {
	a, ok := res.Strategy.(registry.AdmitStrategy)
	if !ok {
		return nil
	}
	var name string
	if named {
		name = u.GetName()
	}
	var oldObj map[string]any
	if old != nil {
		oldObj = old.Object
	}
	if err := a.Admit(ctx, name, u.Object, oldObj); err != nil {
		return apierror.From(err, res.GroupResource(), u.GetName())
	}
	return nil
}

// admitValidated asks the kind's ValidatedAdmitStrategy whether the
// caller in ctx may store u, prepared and validated, through sub (old is
// the stored object, nil on create).
func (s *Store) admitValidated(ctx context.Context, res *registry.Resource, sub registry.Subresource, u, old *unstructured.Unstructured) error {
	a, ok := res.Strategy.(registry.ValidatedAdmitStrategy)
	if !ok {
		return nil
	}
	var oldObj map[string]any
	if old != nil {
		oldObj = old.Object
	}
	if err := a.AdmitValidated(ctx, sub, u.Object, oldObj); err != nil {
		return apierror.From(err, res.GroupResource(), u.GetName())
	}
	return nil
}

// admitted is the object an update's AdmitStrategy sees: u, except that
// a server-side apply without a resourceVersion carries the stored one,
// as kube-apiserver applies to the live object. The store clears it
// only so that it is no precondition.
func admitted(u, old *unstructured.Unstructured, applied bool) *unstructured.Unstructured {
	if !applied || u.GetResourceVersion() != "" {
		return u
	}
	meta, _ := u.Object["metadata"].(map[string]any)
	withRV := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		withRV[k] = v
	}
	withRV["resourceVersion"] = old.GetResourceVersion()
	view := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		view[k] = v
	}
	view["metadata"] = withRV
	return &unstructured.Unstructured{Object: view}
}
