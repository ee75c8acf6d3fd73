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
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// List returns the objects of namespace ns (every namespace when empty)
// whose labels match sel (nil matches all), read-only, from m's
// informers for T, which it starts if none runs yet.
func List[T client.Object](ctx context.Context, m *manager.Manager, ns string, sel labels.Selector) ([]T, error) {
	var zero T
	gvk, err := kindOf[T](m.Scheme())
	if err != nil {
		return nil, err
	}
	infs, err := m.Informers(ctx, gvk, false)
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
		if out == nil {
			out = make([]T, 0, len(objs))
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

// kinds remembers the kind of each Go type a scheme names, so a List
// (run on every pass of a workload controller) neither allocates an
// object to ask the scheme nor asks again.
var kinds sync.Map // kindKey -> schema.GroupVersionKind

type kindKey struct {
	scheme *runtime.Scheme
	typ    reflect.Type
}

// kindOf is the kind scheme names T's object type.
func kindOf[T client.Object](scheme *runtime.Scheme) (schema.GroupVersionKind, error) {
	typ := reflect.TypeFor[T]()
	key := kindKey{scheme, typ}
	if gvk, ok := kinds.Load(key); ok {
		return gvk.(schema.GroupVersionKind), nil
	}
	obj, ok := reflect.New(typ.Elem()).Interface().(runtime.Object)
	if !ok {
		return schema.GroupVersionKind{}, fmt.Errorf("listers: %v is not an API object", typ)
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("listers: %w", err)
	}
	kinds.Store(key, gvks[0])
	return gvks[0], nil
}
