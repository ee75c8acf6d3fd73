package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// Bind serves a create on an object's binding subresource: the kind's
// BindStrategy checks the binding and assigns the object, whose uid and
// resourceVersion in the binding's metadata are preconditions. As in
// kube-apiserver, a binding the object's state refuses is a 409 on
// "<resource>/binding", and an invalid binding a 500 (kube answers its
// validation errors unwrapped).
func (s *Store) Bind(ctx context.Context, res *registry.Resource, ns, name string, binding map[string]any, dryRun bool) error {
	bs, ok := res.Strategy.(registry.BindStrategy)
	if !ok {
		return apierror.PathNotFound()
	}
	b := &unstructured.Unstructured{Object: binding}
	if b.GetName() != name {
		return apierror.BadRequest("name in URL does not match name in Binding object")
	}
	if errs := bs.ValidateBinding(binding); len(errs) > 0 {
		return apierror.Unknown(errs.ToAggregate().Error())
	}
	uid, rv := string(b.GetUID()), b.GetResourceVersion()
	sub := schema.GroupResource{Group: res.Group, Resource: res.Plural + "/binding"}
	_, err := s.Update(ctx, res, ns, name, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		if uid != "" && string(cur.GetUID()) != uid {
			return nil, apierror.Conflict(res.GroupResource(), name, "Precondition failed: UID in precondition: "+uid+", UID in object meta: "+string(cur.GetUID()))
		}
		if err := bs.Bind(s.now(), cur.Object, binding); err != nil {
			return nil, apierror.Conflict(sub, name, err.Error())
		}
		// The binding's resourceVersion, when set, is the precondition.
		cur.SetResourceVersion(rv)
		return cur, nil
	}, UpdateOptions{Subresource: registry.SubresourceBinding, DryRun: dryRun, applied: true})
	return err
}
