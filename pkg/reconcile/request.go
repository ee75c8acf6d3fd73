package reconcile

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Request names the object to reconcile. It holds no state beyond the
// name: the reconciler reads the object's current state itself, so a
// request that waited in a queue never acts on an old copy.
type Request struct {
	types.NamespacedName
}

// Result says what the controller does after a successful reconcile.
type Result struct {
	// RequeueAfter, if positive, reconciles the object again after this
	// long (unless an event does so first). Zero means the object is done
	// until something changes.
	RequeueAfter time.Duration
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return r.RequeueAfter <= 0 }

// Reconciler brings one object's world in line with its spec. It must be
// idempotent: the same request may run again at any time, and requests
// for different objects run concurrently.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// Func is a function that is a Reconciler.
type Func func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f Func) Reconcile(ctx context.Context, req Request) (Result, error) { return f(ctx, req) }
