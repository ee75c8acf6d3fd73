package statefulset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// maxBatch bounds the steps a Parallel group runs at once.
const maxBatch = 500

// errClaimDeleting: a pod's claim is being deleted, so the pod must wait
// for a new one.
var errClaimDeleting = errors.New("is being deleted")

// run carries out the groups in order, stopping after one in which a
// step failed. st's currentReplicas drops for each pod deleted for the
// rolling update, as kube counts it.
func (r *reconciler) run(ctx context.Context, set, updateSet *appsv1.StatefulSet, groups []Group, ordered bool, st *appsv1.StatefulSetStatus) error {
	for _, g := range groups {
		var err error
		if ordered {
			for _, s := range g {
				if err = r.step(ctx, set, updateSet, s, st); err != nil {
					break
				}
			}
		} else {
			var mu sync.Mutex
			err = slowStart(len(g), func(i int) error {
				local := appsv1.StatefulSetStatus{}
				err := r.step(ctx, set, updateSet, g[i], &local)
				mu.Lock()
				st.CurrentReplicas += local.CurrentReplicas
				mu.Unlock()
				return err
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// step carries out one step. Pods are built from the update revision's
// set, whose claim templates and policy are the set's own.
func (r *reconciler) step(ctx context.Context, set, updateSet *appsv1.StatefulSet, s Step, st *appsv1.StatefulSetStatus) error {
	switch s.Kind {
	case Create:
		return r.create(ctx, set, updateSet, s.Pod)
	case Replace, Condemn:
		return r.deletePod(ctx, set, s.Pod)
	case Roll:
		err := r.deletePod(ctx, set, s.Pod)
		if err != nil && !client.IsNotFound(err) {
			return err
		}
		st.CurrentReplicas--
		return nil
	case Tend:
		return r.tend(ctx, updateSet, s)
	case Release:
		return r.settleClaimOwners(ctx, updateSet, s.Pod)
	}
	return fmt.Errorf("unknown step %v", s.Kind)
}

// create makes pod's claims, then pod, then sets its claims' owners.
// A claim still owned by an earlier pod of the name blocks the create
// until the garbage collector has removed it.
func (r *reconciler) create(ctx context.Context, set, updateSet *appsv1.StatefulSet, pod *corev1.Pod) error {
	if stale, err := r.claimsStale(ctx, updateSet, pod); err != nil || stale {
		return err
	}
	if err := r.createClaims(ctx, set, pod); err != nil {
		r.podEvent("create", set, pod, err)
		return err
	}
	err := r.api.Create(ctx, pod)
	if client.IsAlreadyExists(err) {
		return err
	}
	// As kube, the claims' owners are set even when the create failed.
	if cerr := r.settleClaimOwners(ctx, updateSet, pod); cerr != nil {
		r.podEvent("update", set, pod, cerr)
		return cerr
	}
	r.podEvent("create", set, pod, err)
	return err
}

func (r *reconciler) deletePod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	err := r.api.Delete(ctx, pod.DeepCopy())
	r.podEvent("delete", set, pod, err)
	return err
}

// tend creates a pending pod's missing claims and fixes a pod whose
// identity, volumes or claims' owners are out of line, then updates it.
func (r *reconciler) tend(ctx context.Context, set *appsv1.StatefulSet, s Step) error {
	pod := s.Pod.DeepCopy()
	if s.EnsureClaims {
		if err := r.createClaims(ctx, set, pod); err != nil {
			return err
		}
		if err := r.settleClaimOwners(ctx, set, pod); err != nil {
			r.podEvent("update", set, pod, err)
			return err
		}
	}
	claimsOK := true
	if len(set.Spec.VolumeClaimTemplates) > 0 {
		ok, err := r.claimOwnersMatch(ctx, set, pod)
		claimsOK = ok || err != nil // an unreadable claim is left for a later pass
	}
	if !s.Fix && claimsOK {
		return nil
	}
	var err error
	for range 5 {
		if err = r.fix(ctx, set, pod); err == nil || !client.IsConflict(err) {
			break
		}
		fresh := &corev1.Pod{}
		if gerr := r.cache.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, fresh); gerr == nil {
			pod = fresh
		}
	}
	r.podEvent("update", set, pod, err)
	return err
}

// fix brings pod's identity, volumes and claims in line and writes it.
func (r *reconciler) fix(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	if !identityMatches(set, pod) {
		setIdentity(set, pod)
	}
	if !storageMatches(set, pod) {
		setStorage(set, pod)
		if err := r.createClaims(ctx, set, pod); err != nil {
			return err
		}
	}
	if err := r.settleClaimOwners(ctx, set, pod); err != nil {
		return err
	}
	return r.api.Update(ctx, pod)
}

// createClaims creates the claims of pod that do not exist yet.
func (r *reconciler) createClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	var errs []error
	for _, c := range Claims(set, pod) {
		got := &corev1.PersistentVolumeClaim{}
		err := r.cache.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, got)
		switch {
		case client.IsNotFound(err):
			err := r.api.Create(ctx, c)
			if err != nil {
				errs = append(errs, fmt.Errorf("failed to create PVC %s: %w", c.Name, err))
			}
			if err == nil || !client.IsAlreadyExists(err) {
				r.claimEvent(set, pod, c, err)
			}
		case err != nil:
			errs = append(errs, fmt.Errorf("failed to retrieve PVC %s: %w", c.Name, err))
			r.claimEvent(set, pod, c, err)
		case got.DeletionTimestamp != nil:
			errs = append(errs, fmt.Errorf("pvc %s %w", c.Name, errClaimDeleting))
		}
	}
	return errors.Join(errs...)
}

// claimsStale reports whether one of pod's claims still belongs to an
// earlier pod of its name.
func (r *reconciler) claimsStale(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) (bool, error) {
	if retention(set).WhenScaled == retain {
		return false, nil
	}
	for _, c := range Claims(set, pod) {
		got := &corev1.PersistentVolumeClaim{}
		err := r.cache.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, got)
		switch {
		case client.IsNotFound(err):
		case err != nil:
			return false, err
		case claimIsStale(got, set, pod):
			return true, nil
		}
	}
	return false, nil
}

// claimOwnersMatch reports whether every existing claim of pod has the
// owners set's retention policy wants.
func (r *reconciler) claimOwnersMatch(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) (bool, error) {
	for _, c := range Claims(set, pod) {
		got := &corev1.PersistentVolumeClaim{}
		err := r.cache.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, got)
		switch {
		case client.IsNotFound(err):
		case err != nil:
			return false, fmt.Errorf("could not retrieve claim %s for %s when checking PVC deletion policy: %w", c.Name, pod.Name, err)
		case !ownersUpToDate(got, set, pod):
			return false, nil
		}
	}
	return true, nil
}

// settleClaimOwners rewrites the owners of pod's existing claims by the
// retention policy, warning when another controller holds one.
func (r *reconciler) settleClaimOwners(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	for _, c := range Claims(set, pod) {
		got := &corev1.PersistentVolumeClaim{}
		err := r.cache.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Name}, got)
		switch {
		case client.IsNotFound(err):
			continue
		case err != nil:
			return fmt.Errorf("could not retrieve claim %s not found for %s when checking PVC deletion policy: %w", c.Name, pod.Name, err)
		}
		if foreignController(got, set, pod) {
			r.events.Event(set, corev1.EventTypeWarning, "ConflictingController",
				fmt.Sprintf("PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", c.Name))
		}
		if ownersUpToDate(got, set, pod) {
			continue
		}
		setOwners(got, set, pod)
		if err := r.api.Update(ctx, got); err != nil {
			return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", c.Name, err)
		}
	}
	return nil
}

// podEvent records verb ("create", "update", "delete") done to pod in
// kube's words.
func (r *reconciler) podEvent(verb string, set *appsv1.StatefulSet, pod *corev1.Pod, err error) {
	title := strings.ToUpper(verb[:1]) + verb[1:]
	if err == nil {
		r.events.Event(set, corev1.EventTypeNormal, "Successful"+title,
			fmt.Sprintf("%s Pod %s in StatefulSet %s successful", verb, pod.Name, set.Name))
		return
	}
	r.events.Event(set, corev1.EventTypeWarning, "Failed"+title,
		fmt.Sprintf("%s Pod %s in StatefulSet %s failed error: %s", verb, pod.Name, set.Name, err))
}

// claimEvent records the creation of claim for pod in kube's words.
func (r *reconciler) claimEvent(set *appsv1.StatefulSet, pod *corev1.Pod, claim *corev1.PersistentVolumeClaim, err error) {
	if err == nil {
		r.events.Event(set, corev1.EventTypeNormal, "SuccessfulCreate",
			fmt.Sprintf("create Claim %s Pod %s in StatefulSet %s success", claim.Name, pod.Name, set.Name))
		return
	}
	r.events.Event(set, corev1.EventTypeWarning, "FailedCreate",
		fmt.Sprintf("create Claim %s for Pod %s in StatefulSet %s failed error: %s", claim.Name, pod.Name, set.Name, err))
}

// slowStart calls fn for 0..count-1 in batches of 1, 2, 4, ... (at most
// maxBatch), each batch at once, stopping after a batch in which a call
// failed.
func slowStart(count int, fn func(i int) error) error {
	next := 0
	for batch := min(count, 1); batch > 0; batch = min(2*batch, count-next, maxBatch) {
		errs := make([]error, batch)
		var wg sync.WaitGroup
		for j := range batch {
			i := next + j
			wg.Go(func() { errs[j] = fn(i) })
		}
		wg.Wait()
		next += batch
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	return nil
}
