package deployment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// eventRecorder records events on a Deployment.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// reconciler runs one pass of a Deployment: claim its ReplicaSets, then
// pause bookkeeping, a rollback, a proportional scaling or one step of
// its rollout strategy, then its status.
type reconciler struct {
	cache  client.Reader // Deployments, ReplicaSets and Pods, from informers
	api    *client.Client
	events eventRecorder
	clock  clock.Clock
}

// pass is one reconcile of one Deployment; d is the working copy,
// refreshed by every write of it.
type pass struct {
	*reconciler
	ctx     context.Context
	d       *appsv1.Deployment
	now     time.Time
	recheck time.Duration
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cached := &appsv1.Deployment{}
	if err := r.cache.Get(ctx, req.NamespacedName, cached); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	p := &pass{reconciler: r, ctx: ctx, d: cached.DeepCopy(), now: r.clock.Now()}
	err := p.sync()
	return reconcile.Result{RequeueAfter: p.recheck}, err
}

func (p *pass) sync() error {
	d := p.d
	if d.Spec.Selector == nil || (len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0) {
		p.events.Eventf(d, corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			return p.writeStatus(d.Status)
		}
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return fmt.Errorf("deployment %s/%s has invalid label selector: %w", d.Namespace, d.Name, err)
	}
	sets, err := p.claim(sel)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		newRS, old, err := p.newAndOld(sets, false)
		if err != nil {
			return err
		}
		return p.syncStatus(append(old, newRS), newRS)
	}
	if st, changed := PausedCondition(d, p.now); changed {
		if err := p.writeStatus(st); err != nil {
			return err
		}
	}
	_, requested := rollbackTo(d)
	switch {
	case d.Spec.Paused:
		return p.scaleOnly(sets, requested)
	case requested:
		return p.rollback(sets)
	}
	newRS, old, err := p.newAndOld(sets, false)
	if err != nil {
		return err
	}
	if ScalingEvent(d, append(old, newRS)) {
		return p.scaleOnly(sets, false)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return p.recreate(sets, sel)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return p.rollingUpdate(sets)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// claim lists the namespace's ReplicaSets, adopts and releases as Claim
// decides and returns those the Deployment owns.
func (p *pass) claim(sel labels.Selector) ([]*appsv1.ReplicaSet, error) {
	list := &appsv1.ReplicaSetList{}
	if err := p.cache.List(p.ctx, list, client.InNamespace(p.d.Namespace)); err != nil {
		return nil, err
	}
	all := make([]*appsv1.ReplicaSet, len(list.Items))
	for i := range list.Items {
		all[i] = &list.Items[i]
	}
	c := Claim(p.d, sel, all)
	if len(c.Adopt) > 0 {
		// Adopt only if the Deployment, read afresh, is still the same
		// object and not being deleted.
		fresh := &appsv1.Deployment{}
		if err := p.api.Get(p.ctx, types.NamespacedName{Namespace: p.d.Namespace, Name: p.d.Name}, fresh); err != nil {
			return nil, err
		}
		if fresh.UID != p.d.UID {
			return nil, fmt.Errorf("original Deployment %s/%s is gone: got uid %s, wanted %s", p.d.Namespace, p.d.Name, fresh.UID, p.d.UID)
		}
		if fresh.DeletionTimestamp != nil {
			return nil, fmt.Errorf("%s/%s has just been deleted at %v", p.d.Namespace, p.d.Name, fresh.DeletionTimestamp)
		}
	}
	dropped := map[types.UID]bool{}
	t := true
	for _, rs := range c.Adopt {
		ref := metav1.OwnerReference{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment", Name: p.d.Name, UID: p.d.UID, Controller: &t, BlockOwnerDeletion: &t}
		if err := p.patchOwner(rs, ref); err != nil {
			if !client.IsNotFound(err) {
				return nil, err
			}
			dropped[rs.UID] = true
		}
	}
	for _, rs := range c.Release {
		if err := p.patchOwner(rs, map[string]any{"$patch": "delete", "uid": p.d.UID}); err != nil && !client.IsNotFound(err) {
			return nil, err
		}
	}
	owned := make([]*appsv1.ReplicaSet, 0, len(c.Owned))
	for _, rs := range c.Owned {
		if !dropped[rs.UID] {
			owned = append(owned, rs)
		}
	}
	return owned, nil
}

// patchOwner changes one entry of rs's ownerReferences with a strategic
// merge patch naming rs's UID, so a ReplicaSet recreated under the same
// name is left alone.
func (p *pass) patchOwner(rs *appsv1.ReplicaSet, ref any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}, "uid": rs.UID}})
	if err != nil {
		return err
	}
	return p.api.Patch(p.ctx, rs.DeepCopy(), types.StrategicMergePatchType, patch)
}

// writeStatus writes st as the Deployment's status (with its current
// annotations, which a Deployment's status write may change).
func (p *pass) writeStatus(st appsv1.DeploymentStatus) error {
	next := p.d.DeepCopy()
	next.Status = st
	if err := p.api.UpdateStatus(p.ctx, next); err != nil {
		return err
	}
	p.d = next
	return nil
}

// syncStatus writes the plain status (no Progressing bookkeeping) when
// it changed.
func (p *pass) syncStatus(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st := Status(p.d, all, newRS, p.now)
	if equality.Semantic.DeepEqual(st, p.d.Status) {
		return nil
	}
	return p.writeStatus(st)
}

// syncRolloutStatus writes RolloutStatus when it changed, else asks to
// be back when the progress deadline passes.
func (p *pass) syncRolloutStatus(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st, recheck := RolloutStatus(p.d, all, newRS, p.now)
	if equality.Semantic.DeepEqual(st, p.d.Status) {
		p.recheck = recheck
		return nil
	}
	return p.writeStatus(st)
}

// scale sets rs's size to n and its replica annotations to the
// Deployment's; it records an event when the size changed.
func (p *pass) scale(rs *appsv1.ReplicaSet, n int32) (*appsv1.ReplicaSet, bool, error) {
	desired, limit := replicas(p.d), replicas(p.d)+MaxSurge(p.d)
	resize := rsReplicas(rs) != n
	if !resize && !replicasAnnotationsStale(rs, desired, limit) {
		return rs, false, nil
	}
	from := rsReplicas(rs)
	next := rs.DeepCopy()
	next.Spec.Replicas = &n
	setReplicasAnnotations(next, desired, limit)
	if err := p.api.Update(p.ctx, next); err != nil {
		return rs, false, err
	}
	if resize {
		way := "down"
		if from < n {
			way = "up"
		}
		p.events.Eventf(p.d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", way, next.Name, from, n)
	}
	return next, resize, nil
}

// scaleIfResized is scale when the size changes, else nothing.
func (p *pass) scaleIfResized(rs *appsv1.ReplicaSet, n int32) (*appsv1.ReplicaSet, bool, error) {
	if rsReplicas(rs) == n {
		return rs, false, nil
	}
	return p.scale(rs, n)
}

// applyScales carries out scales in order, a ReplicaSet scaled twice
// from its first write; it reports whether a size changed.
func (p *pass) applyScales(scales []Scale, always bool) (bool, error) {
	latest := map[types.UID]*appsv1.ReplicaSet{}
	scaled := false
	for _, s := range scales {
		rs := s.RS
		if l, ok := latest[rs.UID]; ok {
			rs = l
		}
		var changed bool
		var err error
		if always {
			rs, changed, err = p.scale(rs, s.To)
		} else {
			rs, changed, err = p.scaleIfResized(rs, s.To)
		}
		if err != nil {
			return scaled, err
		}
		latest[rs.UID] = rs
		scaled = scaled || changed
	}
	return scaled, nil
}

// scaleOnly is kube's sync: size the ReplicaSets for the Deployment's
// replicas without rolling out, prune history when paused, write status.
func (p *pass) scaleOnly(sets []*appsv1.ReplicaSet, rollbackRequested bool) error {
	newRS, old, err := p.newAndOld(sets, false)
	if err != nil {
		return err
	}
	// Proportional scaling writes every ReplicaSet it sizes (to
	// refresh their annotations); the simple cases only resized ones.
	always := ActiveOrLatest(newRS, old) == nil && !Saturated(p.d, newRS)
	if _, err := p.applyScales(Proportional(p.d, newRS, old), always); err != nil {
		return err
	}
	if p.d.Spec.Paused && !rollbackRequested {
		if err := p.prune(old); err != nil {
			return err
		}
	}
	return p.syncStatus(append(old, newRS), newRS)
}

// prune deletes the old ReplicaSets beyond the history limit.
func (p *pass) prune(old []*appsv1.ReplicaSet) error {
	for _, rs := range Prunable(p.d, old) {
		if err := p.api.Delete(p.ctx, rs.DeepCopy()); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// rollback answers the deprecated rollback annotation.
func (p *pass) rollback(sets []*appsv1.ReplicaSet) error {
	newRS, old, err := p.newAndOld(sets, true)
	if err != nil {
		return err
	}
	plan := PlanRollback(p.d, append(old, newRS))
	if err := p.api.Update(p.ctx, plan.Deployment); err != nil {
		return err
	}
	p.events.Eventf(p.d, plan.EventType, plan.Reason, "%s", plan.Message)
	return nil
}

// rollingUpdate is one step of a RollingUpdate: grow the new
// ReplicaSet, else shrink the old ones, else prune; then status.
func (p *pass) rollingUpdate(sets []*appsv1.ReplicaSet) error {
	newRS, old, err := p.newAndOld(sets, true)
	if err != nil {
		return err
	}
	all := append(old, newRS)
	// An oversized new ReplicaSet shrinks straight to replicas.
	want := replicas(p.d)
	if rsReplicas(newRS) < want {
		if want, err = NewReplicas(p.d, all, newRS); err != nil {
			return err
		}
	}
	_, up, err := p.scaleIfResized(newRS, want)
	if err != nil {
		return err
	}
	if up {
		return p.syncRolloutStatus(all, newRS)
	}
	down, err := p.applyScales(ScaleDownOld(p.d, newRS, activeSets(old)), false)
	if err != nil {
		// Kube reports no error here and tries again with the next
		// change.
		reconcile.Logger(p.ctx).InfoContext(p.ctx, "scaling down old replica sets failed", "err", err)
		return nil
	}
	if down {
		return p.syncRolloutStatus(all, newRS)
	}
	if Complete(p.d, &p.d.Status) {
		if err := p.prune(old); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(all, newRS)
}

// recreate is one step of a Recreate: old ReplicaSets to zero, wait for
// their pods to go, then the new one to full size.
func (p *pass) recreate(sets []*appsv1.ReplicaSet, sel labels.Selector) error {
	newRS, old, err := p.newAndOld(sets, false)
	if err != nil {
		return err
	}
	all := append(old, newRS)
	var downs []Scale
	for _, rs := range activeSets(old) {
		downs = append(downs, Scale{RS: rs, To: 0})
	}
	down, err := p.applyScales(downs, false)
	if err != nil {
		return err
	}
	if down {
		return p.syncRolloutStatus(all, newRS)
	}
	pods := &corev1.PodList{}
	if err := p.cache.List(p.ctx, pods, client.InNamespace(p.d.Namespace)); err != nil {
		return err
	}
	var podPtrs []*corev1.Pod
	for i := range pods.Items {
		if sel.Matches(labels.Set(pods.Items[i].Labels)) {
			podPtrs = append(podPtrs, &pods.Items[i])
		}
	}
	if OldPodsRunning(newRS, old, podPtrs) {
		return p.syncRolloutStatus(all, newRS)
	}
	if newRS == nil {
		if newRS, old, err = p.newAndOld(sets, true); err != nil {
			return err
		}
		all = append(old, newRS)
	}
	if _, _, err := p.scaleIfResized(newRS, replicas(p.d)); err != nil {
		return err
	}
	if Complete(p.d, &p.d.Status) {
		if err := p.prune(old); err != nil {
			return err
		}
	}
	return p.syncRolloutStatus(all, newRS)
}

// newAndOld splits the Deployment's ReplicaSets into the new one
// (brought up to date, or created when create is set and it is missing)
// and the old ones, recording the revision on the Deployment.
func (p *pass) newAndOld(sets []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	existing, old := Split(p.d, sets)
	revision := maxRevision(old) + 1
	if existing != nil {
		rs, err := p.refreshNew(existing, revision)
		if err != nil {
			return nil, old, err
		}
		// Later steps of this pass see the ReplicaSet as written, not
		// as listed, so a second write of it does not conflict.
		for i := range sets {
			if sets[i] == existing {
				sets[i] = rs
			}
		}
		return rs, old, nil
	}
	if !create {
		return nil, old, nil
	}
	rs, err := p.createNew(old, revision)
	return rs, old, err
}

// refreshNew brings the existing new ReplicaSet's annotations and
// minReadySeconds up to date, else records its revision on the
// Deployment and, first time, that it was found.
func (p *pass) refreshNew(existing *appsv1.ReplicaSet, revision int64) (*appsv1.ReplicaSet, error) {
	next := existing.DeepCopy()
	changed := setNewAnnotations(p.d, next, revision, true)
	if changed || next.Spec.MinReadySeconds != p.d.Spec.MinReadySeconds {
		next.Spec.MinReadySeconds = p.d.Spec.MinReadySeconds
		if err := p.api.Update(p.ctx, next); err != nil {
			return nil, err
		}
		return next, nil
	}
	d := p.d.DeepCopy()
	write := setRevision(d, next.Annotations[RevisionAnnotation])
	if hasProgressDeadline(d) && condition(d.Status, appsv1.DeploymentProgressing) == nil {
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonFoundNewRS,
			fmt.Sprintf("Found new replica set %q", next.Name), p.now))
		write = true
	}
	if write {
		p.d.Annotations = d.Annotations
		if err := p.writeStatus(d.Status); err != nil {
			return nil, err
		}
	}
	return next, nil
}

// createNew creates the new ReplicaSet. A name taken by a ReplicaSet
// with another template is a hash collision: the collision count goes up
// so the next pass hashes to another name.
func (p *pass) createNew(old []*appsv1.ReplicaSet, revision int64) (*appsv1.ReplicaSet, error) {
	rs, err := NewReplicaSet(p.d, old, revision)
	if err != nil {
		return nil, err
	}
	size := rsReplicas(rs)
	created := rs.DeepCopy()
	err = p.api.Create(p.ctx, created)
	exists := false
	switch {
	case client.IsAlreadyExists(err):
		exists = true
		found := &appsv1.ReplicaSet{}
		if getErr := p.cache.Get(p.ctx, types.NamespacedName{Namespace: rs.Namespace, Name: rs.Name}, found); getErr != nil {
			return nil, getErr
		}
		if ref := metav1.GetControllerOfNoCopy(found); ref != nil && ref.UID == p.d.UID && sameTemplate(&p.d.Spec.Template, &found.Spec.Template) {
			created, err = found, nil
			break
		}
		st := *p.d.Status.DeepCopy()
		if st.CollisionCount == nil {
			st.CollisionCount = new(int32)
		}
		*st.CollisionCount++
		if werr := p.writeStatus(st); werr == nil {
			reconcile.Logger(p.ctx).InfoContext(p.ctx, "deployment hash collision, collisionCount raised", "collisionCount", *st.CollisionCount)
		}
		return nil, err
	case namespaceTerminating(err):
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
		if hasProgressDeadline(p.d) {
			st := *p.d.Status.DeepCopy()
			setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonFailedRSCreate, msg, p.now))
			_ = p.writeStatus(st)
		}
		p.events.Eventf(p.d, corev1.EventTypeWarning, ReasonFailedRSCreate, "%s", msg)
		return nil, err
	}
	if !exists && size > 0 {
		p.events.Eventf(p.d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, size)
	}
	d := p.d.DeepCopy()
	write := setRevision(d, strconv.FormatInt(revision, 10))
	if !exists && hasProgressDeadline(d) {
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewReplicaSet,
			fmt.Sprintf("Created new replica set %q", created.Name), p.now))
		write = true
	}
	if write {
		p.d.Annotations = d.Annotations
		if err := p.writeStatus(d.Status); err != nil {
			return created, err
		}
	}
	return created, nil
}

func namespaceTerminating(err error) bool {
	se, ok := errors.AsType[*client.StatusError](err)
	if !ok || se.ErrStatus.Details == nil {
		return false
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if c.Type == corev1.NamespaceTerminatingCause {
			return true
		}
	}
	return false
}
