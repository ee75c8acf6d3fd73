package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
)

// Cluster is what a controller needs from where it runs: the Go types of
// its kinds and shared informers. A manager is a Cluster.
type Cluster interface {
	Scheme() *runtime.Scheme
	// Informers returns the shared informers that together hold gvk in
	// the cluster's namespaces (one for all namespaces, or one per
	// namespace), creating and starting them on first use.
	// metadataOnly asks for PartialObjectMetadata informers.
	Informers(ctx context.Context, gvk schema.GroupVersionKind, metadataOnly bool) ([]Informer, error)
}

// Informer is a shared informer and the namespace it covers ("" for all
// namespaces or a cluster-scoped kind).
type Informer struct {
	Namespace string
	*cache.Informer[cache.Object]
}

// covers reports whether the informer holds objects of namespace ns.
func (i Informer) covers(ns string) bool { return i.Namespace == "" || i.Namespace == ns }
