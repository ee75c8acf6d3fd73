// Package listers reads the manager's informer caches without copying,
// as kube-controller-manager's controllers read theirs through listers.
// The cached client deep-copies every object it lists, which a workload
// controller listing its namespace's pods on every pass pays for with
// every pod of the namespace; these objects are the cache's own, shared
// with every reader, and must not be modified.
package listers

import (
	"context"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// List returns the objects of namespace ns (every namespace when empty)
// whose labels match sel (nil matches all), read-only, from m's
// informers for T, which it starts if none runs yet.
func List[T client.Object](ctx context.Context, m *manager.Manager, ns string, sel labels.Selector) ([]T, error) {
	var zero T
	obj, ok := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("listers: %T is not an API object", zero)
	}
	gvks, _, err := m.Scheme().ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("listers: %w", err)
	}
	infs, err := m.Informers(ctx, gvks[0], false)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, inf := range infs {
		if ns != "" && inf.Namespace != "" && inf.Namespace != ns {
			continue
		}
		if err := cache.WaitForSync(ctx, inf.Informer); err != nil {
			return nil, err
		}
		var objs []cache.Object
		if ns != "" {
			objs = inf.Lister().Namespace(ns).List(sel)
		} else {
			objs = inf.Lister().List(sel)
		}
		for _, o := range objs {
			t, ok := o.(T)
			if !ok {
				return nil, fmt.Errorf("listers: the cache holds %T, not %T", o, zero)
			}
			out = append(out, t)
		}
	}
	return out, nil
}
