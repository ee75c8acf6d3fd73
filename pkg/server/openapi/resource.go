package openapi

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Resource is one served resource as the documents describe it.
type Resource struct {
	GVK        schema.GroupVersionKind
	ListKind   string
	Plural     string
	Namespaced bool
	// Subresources are the served subresources: "status", "scale".
	Subresources []string
	// StrategicMerge is true for built-in kinds: they accept
	// application/strategic-merge-patch+json (and are served as protobuf).
	StrategicMerge bool
	// Root names the kind's definition in Definitions; Definitions holds
	// it and everything it references (ObjectMeta, etc.). The schemas are
	// shared, never modified by this package, and must not be modified by
	// the caller once handed over. When Definitions has no definition for
	// the list kind (named like Root with ListKind for Kind), one is made.
	Root        string
	Definitions map[string]*spec.Schema
}

// listRoot names the definition of the resource's list kind: Root's
// prefix with ListKind in place of Kind, as both kube's Go type names
// (io.k8s.api.core.v1.ConfigMapList) and its CRD names (com.example.v1.FooList)
// do.
func (r *Resource) listRoot() string {
	prefix := r.Root
	if len(prefix) >= len(r.GVK.Kind) && prefix[len(prefix)-len(r.GVK.Kind):] == r.GVK.Kind {
		prefix = prefix[:len(prefix)-len(r.GVK.Kind)]
	} else {
		prefix += "."
	}
	return prefix + r.listKind()
}

func (r *Resource) listKind() string {
	if r.ListKind != "" {
		return r.ListKind
	}
	return r.GVK.Kind + "List"
}

func (r *Resource) hasSubresource(name string) bool {
	for _, s := range r.Subresources {
		if s == name {
			return true
		}
	}
	return false
}
