package cache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// ListerWatcher lists and watches one kind in one scope.
type ListerWatcher interface {
	// List returns a list object (a typed list, an UnstructuredList or a
	// PartialObjectMetadataList).
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Object is what the cache holds: an API object with metadata, such as
// *unstructured.Unstructured, *metav1.PartialObjectMetadata or a typed
// pointer like *corev1.ConfigMap.
type Object interface {
	metav1.Object
	runtime.Object
}
