package garbagecollector

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// attemptToOrphan releases an owner deleted with Orphan: every
// dependent loses its references to the owner, then the owner loses
// the orphan finalizer, which lets the server delete it.
func (c *collector) attemptToOrphan(ctx context.Context, uid types.UID) error {
	if !c.gate.complete(ctx) {
		// dependents of kinds just watched may not be known yet
		return errGraphIncomplete
	}
	owner, deps, ok := c.graph.dependentsOf(uid)
	if !ok {
		return nil
	}
	var errs []error
	for _, dep := range deps {
		if err := removeOwners(ctx, c.api, dep, uid); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		// The finalizer stays until every dependent is released.
		return err
	}
	c.log.DebugContext(ctx, "dependents orphaned; releasing the owner", "object", owner.String(), "dependents", len(deps))
	return removeFinalizer(ctx, c.api, owner, metav1.FinalizerOrphanDependents)
}
