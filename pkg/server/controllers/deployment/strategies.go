package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

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
	podPtrs, err := p.pods(p.ctx, p.d.Namespace, sel)
	if err != nil {
		return err
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
