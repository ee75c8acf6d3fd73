package client

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// WriteObserver learns of every write a client completes with a context
// that carries it (WithWriteObserver): the kind, namespace, name and the
// resourceVersion the server gave the object. A controller puts one in
// each reconcile's context to know which writes the next reconcile of the
// same object must find in its cache before it runs.
type WriteObserver interface {
	ObserveWrite(w Write)
}

// Write is one completed write.
type Write struct {
	GVK             schema.GroupVersionKind
	Namespace, Name string
	// ResourceVersion is the object's version after the write; empty for
	// deletes, whose answer need not carry one.
	ResourceVersion string
}

type observerKey struct{}

// WithWriteObserver returns ctx carrying o.
func WithWriteObserver(ctx context.Context, o WriteObserver) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// observe tells ctx's observer, if any, of a write.
func observe(ctx context.Context, w Write) {
	if o, ok := ctx.Value(observerKey{}).(WriteObserver); ok && o != nil {
		o.ObserveWrite(w)
	}
}
