package deployment

import (
	"errors"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

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
