package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
)

// FinalizeStrategy is implemented by kinds with a finalize subresource
// (Namespaces): the one write that may change spec.finalizers, and
// nothing else.
type FinalizeStrategy interface {
	// PrepareForFinalize returns the object a finalize write stores:
	// old with the spec finalizers of obj.
	PrepareForFinalize(obj, old map[string]any) map[string]any
}

// ServingStrategy is implemented by kinds whose objects change what the
// server serves (CustomResourceDefinitions). A write of one is answered
// only once the watch cache has applied it, which is when the change is
// served, so "create a CRD, then a custom object" needs no polling.
type ServingStrategy interface {
	ChangesServing()
}

// DeleteAnswerStrategy is implemented by built-in kinds that answer an
// immediate delete with the deleted object rather than a Status, as
// kube-apiserver's Namespaces do. Custom resources always answer with
// the object.
type DeleteAnswerStrategy interface {
	ReturnsDeletedObject()
}

// Creater is the strategy of a kind that is not stored (Verbs without
// "list"): a create is answered by Create, from the request's context,
// as SelfSubjectReview answers who the caller is.
type Creater interface {
	Create(ctx context.Context, obj map[string]any) (map[string]any, error)
}

// AnswersDeleteWithObject reports whether an immediate delete answers
// with the object: custom resources do, and built-in kinds whose strategy
// says so; other built-in kinds answer with a Success Status.
func (r *Resource) AnswersDeleteWithObject() bool {
	if !r.Typed {
		return true
	}
	_, ok := r.Strategy.(DeleteAnswerStrategy)
	return ok
}

// ChangesServing reports whether writes of the resource change what the
// server serves (ServingStrategy).
func (r *Resource) ChangesServing() bool {
	_, ok := r.Strategy.(ServingStrategy)
	return ok
}

// ReturnsDeletedObject: a deleted Namespace is answered with its last
// state, as kube-apiserver does.
func (namespaceStrategy) ReturnsDeletedObject() {}

// PrepareForFinalize takes spec.finalizers from the write and everything
// else from the stored namespace.
func (namespaceStrategy) PrepareForFinalize(obj, old map[string]any) map[string]any {
	next := runtime.DeepCopyJSON(old)
	fins, found := nestedMap(obj, false, "spec")["finalizers"]
	switch {
	case found:
		nestedMap(next, true, "spec")["finalizers"] = runtime.DeepCopyJSONValue(fins)
	default:
		if spec := nestedMap(next, false, "spec"); spec != nil {
			delete(spec, "finalizers")
		}
	}
	return next
}

// ChangesServing: a CRD write changes the served resources.
func (crdStrategy) ChangesServing() {}
