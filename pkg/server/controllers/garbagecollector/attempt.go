package garbagecollector

import (
	"context"
	"log/slog"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// collector holds what the workers act with.
type collector struct {
	graph  *graph
	api    objects
	scopes scopes
	absent *absentOwners
	// toDelete is the graph's, for dependents a foreground deletion
	// waits on.
	toDelete enqueuer
	// gate says whether the graph holds every watched kind's objects;
	// nil means it does.
	gate *syncGate
	log  *slog.Logger
}

// attemptToDelete decides the fate of one node from the server's
// current state of it and of its owners: keep it, strip its dangling
// references, or delete it (and how).
func (c *collector) attemptToDelete(ctx context.Context, uid types.UID) error {
	it, ok := c.graph.item(uid)
	if !ok {
		return nil
	}
	if it.beingDeleted && !it.deletingDependents {
		// Deletion is under way; the informer's delete wakes the
		// dependents.
		return nil
	}
	latest, err := c.latest(ctx, it.id)
	if err != nil {
		return err
	}
	if it.deletingDependents {
		return c.processDeletingDependents(ctx, it.id)
	}
	refs := latest.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := c.classify(ctx, it.id, refs)
	if err != nil {
		return err
	}
	log := c.log.With("object", it.id.String())
	switch {
	case len(solid) > 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// References to owners waiting on their dependents must go
		// too, or those owners wait for this object forever.
		gone := append(uids(dangling), uids(waiting)...)
		log.DebugContext(ctx, "removing references to absent or foreground-deleting owners", "owners", gone)
		return removeOwners(ctx, c.api, it.id, gone...)
	case len(waiting) > 0 && !c.gate.complete(ctx):
		// Whether it has dependents, and so how to delete it, may
		// not be known yet.
		return errGraphIncomplete
	case len(waiting) > 0 && it.dependents > 0:
		if c.graph.waitsInCycle(uid, uids(waiting)) {
			// An owner waits for this object, which will wait for a
			// dependent that is itself waiting: possibly a cycle back
			// to the owner. Stop blocking the owners so the chain
			// can end.
			log.DebugContext(ctx, "unblocking foreground-deleting owners to break a possible cycle", "owners", uids(waiting))
			patched, err := unblockOwners(ctx, c.api, it.id, uids(waiting)...)
			if err != nil {
				return err
			}
			if patched != nil {
				// The patch only relaxed the references; the
				// judgement stands for the state it left.
				latest, refs = patched, patched.OwnerReferences
			}
		}
		log.DebugContext(ctx, "deleting object in the foreground: an owner waits for it and it has dependents")
		return deleteObject(ctx, c.api, it.id, latest.ResourceVersion, refs, metav1.DeletePropagationForeground)
	default:
		policy := metav1.DeletePropagationBackground
		switch {
		case slices.Contains(latest.Finalizers, metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case slices.Contains(latest.Finalizers, metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		log.DebugContext(ctx, "deleting object: no owner is left", "propagation", policy)
		return deleteObject(ctx, c.api, it.id, latest.ResourceVersion, refs, policy)
	}
}

// latest reads id from the server. An object that is not there (or is
// another incarnation) is reported to the graph and is errAbsent.
func (c *collector) latest(ctx context.Context, id objectRef) (*metav1.PartialObjectMetadata, error) {
	latest, err := getLatest(ctx, c.api, id)
	if err != nil && !client.IsNotFound(err) {
		return nil, err
	}
	if err != nil || latest.UID != id.UID {
		if ns, nerr := namespaced(c.scopes, id); nerr == nil && !ns {
			// A virtual node of a cluster-scoped kind carries its first
			// dependent's namespace; the absent object has none.
			id.Namespace = ""
		}
		c.graph.virtualDelete(id)
		return nil, errAbsent
	}
	return latest, nil
}

// processDeletingDependents moves a foreground deletion on: with no
// blocking dependent left the owner may go; otherwise its blocking
// dependents are deleted.
func (c *collector) processDeletingDependents(ctx context.Context, id objectRef) error {
	blocking := c.graph.blockingDependents(id.UID)
	if len(blocking) == 0 {
		if !c.gate.complete(ctx) {
			return errGraphIncomplete
		}
		c.log.DebugContext(ctx, "no blocking dependent is left; releasing the owner", "object", id.String())
		return removeFinalizer(ctx, c.api, id, metav1.FinalizerDeleteDependents)
	}
	if dep, ok := c.graph.blockingCycle(id.UID); ok {
		c.log.DebugContext(ctx, "foreground deletions wait on each other; unblocking one", "object", id.String(), "dependent", dep.String())
		_, err := unblockOwners(ctx, c.api, dep, id.UID)
		return err
	}
	for _, dep := range blocking {
		if !dep.deletingDependents {
			c.toDelete.Add(dep.id.UID)
		}
	}
	return nil
}

// classify sorts refs: owners that exist and stay (solid), owners that
// do not exist (dangling), and owners being deleted in the foreground,
// waiting for their dependents (waiting).
func (c *collector) classify(ctx context.Context, dep objectRef, refs []metav1.OwnerReference) (solid, dangling, waiting []metav1.OwnerReference, err error) {
	for _, ref := range refs {
		owner, err := c.owner(ctx, ref, dep)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case owner == nil:
			dangling = append(dangling, ref)
		case owner.DeletionTimestamp != nil && slices.Contains(owner.Finalizers, metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// owner reads the owner ref names from dependent dep; nil means it is
// absent: not found where the reference points (the dependent's
// namespace, or the cluster for a cluster-scoped kind), or found with
// another uid.
func (c *collector) owner(ctx context.Context, ref metav1.OwnerReference, dep objectRef) (*metav1.PartialObjectMetadata, error) {
	id := ownerRef(ref, "")
	if c.absent.has(id) {
		return nil, nil
	}
	id.Namespace = dep.Namespace
	if c.absent.has(id) {
		return nil, nil
	}
	ns, err := namespaced(c.scopes, id)
	if err != nil {
		return nil, err
	}
	if !ns {
		id.Namespace = ""
	} else if dep.Namespace == "" {
		return nil, ErrNamespacedOwnerOfClusterScoped
	}
	owner, err := getLatest(ctx, c.api, id)
	if client.IsNotFound(err) || (err == nil && owner.UID != ref.UID) {
		c.absent.add(id)
		return nil, nil
	}
	return owner, err
}

func uids(refs []metav1.OwnerReference) []types.UID {
	out := make([]types.UID, len(refs))
	for i, ref := range refs {
		out[i] = ref.UID
	}
	return out
}
