package generic

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// Put serves a PUT of the whole object u: an update, or, for kinds that
// allow it (registry.Resource.CreatesOnUpdate: Leases, Events, Services,
// Endpoints), a create when no such object exists, as kube-apiserver's
// AllowCreateOnUpdate does. created says which happened.
func (s *Store) Put(ctx context.Context, res *registry.Resource, ns, name string, u *unstructured.Unstructured, opts UpdateOptions) (obj []byte, created bool, err error) {
	b, err := s.Update(ctx, res, ns, name, func(*unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return u.DeepCopy(), nil
	}, opts)
	var se *apierror.StatusError
	if !res.CreatesOnUpdate || opts.Subresource != registry.SubresourceNone ||
		!errors.As(err, &se) || se.Status.Reason != metav1.StatusReasonNotFound {
		return b, false, err
	}
	if u.GetName() != name {
		return nil, false, apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), name)
	}
	b, err = s.Create(ctx, res, ns, u, CreateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, named: true})
	return b, err == nil, err
}
