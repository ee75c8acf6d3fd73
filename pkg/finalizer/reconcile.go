package finalizer

import (
	"context"
	"errors"
	"fmt"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Handler is the user's code for one kind of object.
type Handler[T client.Object] struct {
	// Apply brings the world in line with the live object. It runs only
	// once the object carries the finalizer.
	Apply func(ctx context.Context, obj T) (reconcile.Result, error)
	// Cleanup undoes what Apply did, for an object being deleted. The
	// finalizer is removed when it returns a nil error and a zero
	// Result; see the package guarantees.
	Cleanup func(ctx context.Context, obj T) (reconcile.Result, error)
}

// ErrNoHandler is returned when a Handler lacks Apply or Cleanup.
var ErrNoHandler = errors.New("finalizer handler needs both Apply and Cleanup")

// Reconcile runs h for obj, which the caller has just read, under the
// finalizer name:
//
//   - live object: add the finalizer if missing, then Apply;
//   - deleted object with the finalizer: Cleanup, then remove the
//     finalizer once Cleanup is done;
//   - deleted object without it: nothing, as Apply never ran for it.
//
// obj is updated in place by the writes, so Apply sees the object with
// its finalizer; it must be the caller's own copy (as client Get gives),
// never an object shared with a cache. Errors from Apply and Cleanup are returned as they are
// (a reconcile.TerminalError stays terminal); an invalid name or
// handler is a terminal error. A Conflict from the finalizer write is
// returned for the controller to retry with a fresh read.
func Reconcile[T client.Object](ctx context.Context, c Patcher, obj T, name string, h Handler[T]) (reconcile.Result, error) {
	if err := ValidateName(name); err != nil {
		return reconcile.Result{}, reconcile.TerminalError(err)
	}
	if h.Apply == nil || h.Cleanup == nil {
		return reconcile.Result{}, reconcile.TerminalError(ErrNoHandler)
	}
	if obj.GetDeletionTimestamp() == nil {
		if _, err := Add(ctx, c, obj, name); err != nil {
			return reconcile.Result{}, err
		}
		return h.Apply(ctx, obj)
	}
	if !Has(obj, name) {
		return reconcile.Result{}, nil
	}
	res, err := h.Cleanup(ctx, obj)
	if err != nil || !res.IsZero() {
		return res, err
	}
	if _, err := Remove(ctx, c, obj, name); err != nil {
		return reconcile.Result{}, fmt.Errorf("cleanup done: %w", err)
	}
	return reconcile.Result{}, nil
}
