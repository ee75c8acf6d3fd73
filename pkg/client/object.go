package client

import (
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is anything the client reads or writes: a registered Go type
// (*corev1.ConfigMap), an *unstructured.Unstructured, or a
// *metav1.PartialObjectMetadata for metadata only.
type Object interface {
	metav1.Object
	runtime.Object
}

// ObjectList is a list of Objects: a registered list type, an
// *unstructured.UnstructuredList or a *metav1.PartialObjectMetadataList.
type ObjectList interface {
	metav1.ListInterface
	runtime.Object
}

// flavor is how an object travels.
type flavor int

const (
	flavorTyped        flavor = iota // a registered Go type: protobuf for built-in kinds, else JSON
	flavorUnstructured               // map content, always JSON
	flavorMetadata                   // PartialObjectMetadata(List): the server strips all but metadata
)

// kindOf returns how obj travels and the kind it stands for. For a list,
// the kind is the item kind and listGVK the list's own.
func (c *Client) kindOf(obj runtime.Object, list bool) (f flavor, gvk, listGVK schema.GroupVersionKind, err error) {
	switch obj.(type) {
	case *unstructured.Unstructured, *unstructured.UnstructuredList:
		f = flavorUnstructured
		gvk = obj.GetObjectKind().GroupVersionKind()
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		f = flavorMetadata
		gvk = obj.GetObjectKind().GroupVersionKind()
	default:
		f = flavorTyped
		if gvk, err = c.typedKind(obj); err != nil {
			return f, gvk, gvk, err
		}
	}
	if gvk.Kind == "" || gvk.Version == "" {
		return f, gvk, gvk, fmt.Errorf("%w: %T", ErrMissingKind, obj)
	}
	if !list {
		return f, gvk, schema.GroupVersionKind{}, nil
	}
	// A list names its kind as <Item>List; metadata-only and unstructured
	// lists may name the item kind instead.
	item, ok := strings.CutSuffix(gvk.Kind, "List")
	switch {
	case ok && item != "":
		return f, gvk.GroupVersion().WithKind(item), gvk, nil
	case f == flavorTyped:
		return f, gvk, gvk, fmt.Errorf("client: %T is not a list kind (%s)", obj, gvk.Kind)
	}
	return f, gvk, gvk.GroupVersion().WithKind(gvk.Kind + "List"), nil
}

// typedKind looks a Go type up in the scheme. A type registered under
// several kinds is resolved by its own TypeMeta when set.
func (c *Client) typedKind(obj runtime.Object) (schema.GroupVersionKind, error) {
	gvks, _, err := c.scheme.ObjectKinds(obj)
	if err != nil {
		// Unwrapped: runtime.IsNotRegisteredError does not unwrap.
		return schema.GroupVersionKind{}, err
	}
	if own := obj.GetObjectKind().GroupVersionKind(); len(gvks) > 1 && !own.Empty() {
		for _, g := range gvks {
			if g == own {
				return g, nil
			}
		}
	}
	return gvks[0], nil
}

// newItem returns an empty object of kind gvk in the given flavor, for
// watch events.
func (c *Client) newItem(f flavor, gvk schema.GroupVersionKind) (runtime.Object, error) {
	switch f {
	case flavorUnstructured:
		return &unstructured.Unstructured{}, nil
	case flavorMetadata:
		return &metav1.PartialObjectMetadata{}, nil
	}
	return c.scheme.New(gvk)
}

// resetObject empties obj so decoding leaves nothing of what it held: a
// protobuf or JSON decode into a map or slice would merge with it.
func resetObject(obj runtime.Object) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		o.Object = nil
	case *unstructured.UnstructuredList:
		o.Object, o.Items = nil, nil
	case interface{ Reset() }:
		o.Reset()
	default:
		v := reflect.ValueOf(obj)
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			v.Elem().SetZero()
		}
	}
}
