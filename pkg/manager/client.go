package manager

import (
	"context"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// cachedClient reads from the manager's informers and writes through
// the API client. Reads hand out deep copies: the caller owns what it
// gets and may modify it, as with a server read.
type cachedClient struct {
	*client.Client
	m *Manager
}

// Get reads obj from the cache.
func (c *cachedClient) Get(ctx context.Context, key types.NamespacedName, obj client.Object) error {
	gvk, err := c.kindOf(obj, false)
	if err != nil {
		return err
	}
	inf, err := c.informerFor(ctx, gvk, key.Namespace, isMetadata(obj))
	if err != nil {
		return err
	}
	cached, ok := inf.Indexer().Get(storeKey(key))
	if !ok {
		return client.NewNotFound(c.resource(gvk), key.Name)
	}
	return copyInto(cached, obj, inf.Compact())
}

// List reads the objects opts select from the cache. Label selectors
// and the metadata.name and metadata.namespace field selectors are
// supported; paging options are ignored, as every object is at hand.
func (c *cachedClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := c.kindOf(list, true)
	if err != nil {
		return err
	}
	var o client.ListOptions
	for _, opt := range opts {
		opt.ApplyToList(&o)
	}
	lsel, fsel, err := selectors(o)
	if err != nil {
		return err
	}
	infs, err := c.m.Informers(ctx, gvk, isMetadata(list))
	if err != nil {
		return err
	}
	var items []runtime.Object
	rv := ""
	for _, inf := range infs {
		if o.Namespace != "" && inf.Namespace != "" && inf.Namespace != o.Namespace {
			continue
		}
		if err := cache.WaitForSync(ctx, inf.Informer); err != nil {
			return err
		}
		lister := inf.Lister()
		var objs []cache.Object
		if o.Namespace != "" {
			objs = lister.Namespace(o.Namespace).List(lsel)
		} else {
			objs = lister.List(lsel)
		}
		for _, obj := range objs {
			if !fsel.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}) {
				continue
			}
			item, err := c.itemFor(list, obj, inf.Compact())
			if err != nil {
				return err
			}
			items = append(items, item)
		}
		rv = inf.ResourceVersion()
	}
	if o.Namespace != "" && !c.m.covers(o.Namespace) {
		return fmt.Errorf("manager: namespace %q is not cached (the manager watches %v)", o.Namespace, c.m.opts.Namespaces)
	}
	if err := meta.SetList(list, items); err != nil {
		return err
	}
	list.SetResourceVersion(rv)
	return nil
}

// kindOf is the kind of obj, or of list's items.
func (c *cachedClient) kindOf(obj runtime.Object, list bool) (schema.GroupVersionKind, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		gvks, _, err := c.Scheme().ObjectKinds(obj)
		if err != nil {
			return schema.GroupVersionKind{}, fmt.Errorf("manager: %w", err)
		}
		gvk = gvks[0]
	}
	if list {
		if len(gvk.Kind) <= len("List") || gvk.Kind[len(gvk.Kind)-4:] != "List" {
			return schema.GroupVersionKind{}, fmt.Errorf("manager: %s is not a list kind", gvk.Kind)
		}
		gvk.Kind = gvk.Kind[:len(gvk.Kind)-4]
	}
	return gvk, nil
}

// informerFor is the synced informer that holds namespace ns of gvk.
func (c *cachedClient) informerFor(ctx context.Context, gvk schema.GroupVersionKind, ns string, metadataOnly bool) (controller.Informer, error) {
	if !c.m.covers(ns) {
		return controller.Informer{}, fmt.Errorf("manager: namespace %q is not cached (the manager watches %v)", ns, c.m.opts.Namespaces)
	}
	infs, err := c.m.Informers(ctx, gvk, metadataOnly)
	if err != nil {
		return controller.Informer{}, err
	}
	for _, inf := range infs {
		if inf.Namespace == "" || inf.Namespace == ns {
			if err := cache.WaitForSync(ctx, inf.Informer); err != nil {
				return controller.Informer{}, err
			}
			return inf, nil
		}
	}
	return controller.Informer{}, fmt.Errorf("manager: no informer holds %s in namespace %q", gvk.Kind, ns)
}

func (c *cachedClient) resource(gvk schema.GroupVersionKind) schema.GroupResource {
	if m, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
		return m.Resource.GroupResource()
	}
	return schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}
}

// itemFor is a copy of cached in the item type of list; owned says
// cached is the caller's already (a compact cache's read).
func (c *cachedClient) itemFor(list client.ObjectList, cached cache.Object, owned bool) (runtime.Object, error) {
	switch list.(type) {
	case *unstructured.UnstructuredList:
		u := &unstructured.Unstructured{}
		return u, copyInto(cached, u, owned)
	case *metav1.PartialObjectMetadataList:
		p := &metav1.PartialObjectMetadata{}
		return p, copyInto(cached, p, owned)
	}
	if owned {
		return cached, nil
	}
	return cached.DeepCopyObject(), nil
}

func isMetadata(obj runtime.Object) bool {
	switch obj.(type) {
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return true
	}
	return false
}

// storeKey is a cache key: "namespace/name" or "name".
func storeKey(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.String()
}

// copyInto makes dst a deep copy of the cached src, converting between
// typed, unstructured and metadata-only forms as needed. When owned, src
// is the caller's already (a compact cache decodes each read) and dst may
// take its parts without copying them.
func copyInto(src cache.Object, dst client.Object, owned bool) error {
	switch d := dst.(type) {
	case *unstructured.Unstructured:
		if u, ok := src.(*unstructured.Unstructured); ok {
			if owned {
				d.Object = u.Object
			} else {
				d.Object = runtime.DeepCopyJSON(u.Object)
			}
			return nil
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(src)
		if err != nil {
			return err
		}
		d.Object = m
		if d.GetKind() == "" {
			d.GetObjectKind().SetGroupVersionKind(src.GetObjectKind().GroupVersionKind())
		}
		return nil
	case *metav1.PartialObjectMetadata:
		if p, ok := src.(*metav1.PartialObjectMetadata); ok {
			if owned {
				*d = *p
			} else {
				p.DeepCopyInto(d)
			}
			return nil
		}
		acc, err := meta.Accessor(src)
		if err != nil {
			return err
		}
		d.TypeMeta = metav1.TypeMeta{APIVersion: src.GetObjectKind().GroupVersionKind().GroupVersion().String(), Kind: src.GetObjectKind().GroupVersionKind().Kind}
		d.ObjectMeta = *acc.(*metav1.ObjectMeta).DeepCopy()
		return nil
	}
	cp := runtime.Object(src)
	if !owned {
		cp = src.DeepCopyObject()
	}
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(cp)
	if dv.Type() != sv.Type() {
		return fmt.Errorf("manager: the cache holds %T, not %T", cp, dst)
	}
	dv.Elem().Set(sv.Elem())
	return nil
}

func selectors(o client.ListOptions) (labels.Selector, fields.Selector, error) {
	lsel, fsel := labels.Everything(), fields.Everything()
	var err error
	if o.LabelSelector != "" {
		if lsel, err = labels.Parse(o.LabelSelector); err != nil {
			return nil, nil, fmt.Errorf("manager: label selector: %w", err)
		}
	}
	if o.FieldSelector != "" {
		if fsel, err = fields.ParseSelector(o.FieldSelector); err != nil {
			return nil, nil, fmt.Errorf("manager: field selector: %w", err)
		}
		for _, r := range fsel.Requirements() {
			if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
				return nil, nil, fmt.Errorf("manager: the cache cannot select on field %q; read from APIReader", r.Field)
			}
		}
	}
	return lsel, fsel, nil
}
