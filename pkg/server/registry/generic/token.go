package generic

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// IssueToken serves a create on an object's token subresource
// (serviceaccounts/token): the kind's TokenStrategy answers the request
// in u, reading the objects it needs through the store. Nothing is
// stored, so a dry run is answered alike, as kube-apiserver answers it.
// It returns the answer and the warnings to send with it.
func (s *Store) IssueToken(ctx context.Context, res *registry.Resource, ns, name string, u *unstructured.Unstructured) ([]byte, []string, error) {
	ts, ok := res.Strategy.(registry.TokenStrategy)
	if !ok {
		return nil, nil, apierror.PathNotFound()
	}
	// As on every create, the server owns these, and a namespace in the
	// body must be the URL's.
	for _, k := range []string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", k)
	}
	switch got := u.GetNamespace(); {
	case got == "":
		u.SetNamespace(ns)
	case got != ns:
		return nil, nil, apierror.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	answer, warnings, err := ts.IssueToken(ctx, s.now(), ns, name, u.Object, objectGetter{s})
	if err != nil {
		return nil, nil, apierror.From(err, res.GroupResource(), name)
	}
	b, err := jsonMarshal(answer)
	if err != nil {
		return nil, nil, err
	}
	return b, warnings, nil
}

// objectGetter reads objects for a strategy, from storage, as a get of
// each would.
type objectGetter struct{ s *Store }

func (g objectGetter) Get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (map[string]any, error) {
	res, ok := g.s.reg.Get(gvr)
	if !ok {
		return nil, fmt.Errorf("%s is not served", gvr)
	}
	if name == "" {
		return nil, &registry.BadRequestError{Message: "Name parameter required."}
	}
	o, err := g.s.Get(ctx, res, ns, name, GetOptions{})
	var se *apierror.StatusError
	if errors.As(err, &se) && se.Status.Reason == metav1.StatusReasonNotFound {
		return nil, &registry.NotFoundError{Resource: res.GroupResource(), Name: name}
	}
	if err != nil {
		return nil, err
	}
	u, err := ParseObject(o.Served())
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}
