package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
)

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
