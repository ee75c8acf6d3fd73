package deployment

import (
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// rollbackTo is the revision the deprecated rollback annotation asks
// for; ok is false when there is no readable request. (`kubectl rollout
// undo` patches the template itself; this serves old clients.)
func rollbackTo(d *appsv1.Deployment) (rev int64, ok bool) {
	v := d.Annotations[rollbackToAnnotation]
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// Rollback is the outcome of a rollback request: the Deployment to write
// (its template from the chosen revision when it differs, the request
// annotation cleared) and the event to record.
type Rollback struct {
	Deployment *appsv1.Deployment
	EventType  string
	Reason     string
	Message    string
}

// PlanRollback answers d's rollback request over its ReplicaSets:
// revision 0 is the one before the latest.
func PlanRollback(d *appsv1.Deployment, sets []*appsv1.ReplicaSet) Rollback {
	rev, _ := rollbackTo(d)
	next := d.DeepCopy()
	delete(next.Annotations, rollbackToAnnotation)
	out := Rollback{Deployment: next, EventType: corev1.EventTypeWarning, Reason: ReasonRollbackNotFound}
	if rev == 0 {
		if rev = previousRevision(sets); rev == 0 {
			out.Message = "Unable to find last revision."
			return out
		}
	}
	for _, rs := range sets {
		if v, ok := Revision(rs.Annotations); !ok || v != rev {
			continue
		}
		if sameTemplate(&d.Spec.Template, &rs.Spec.Template) {
			out.Reason = ReasonRollbackSameTemplate
			out.Message = fmt.Sprintf("The rollback revision contains the same template as current deployment %q", d.Name)
			return out
		}
		next.Spec.Template.ObjectMeta = *rs.Spec.Template.ObjectMeta.DeepCopy()
		next.Spec.Template.Spec = *rs.Spec.Template.Spec.DeepCopy()
		delete(next.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		kept := map[string]string{}
		for k, v := range next.Annotations {
			if notCopied[k] {
				kept[k] = v
			}
		}
		for k, v := range rs.Annotations {
			if !notCopied[k] {
				kept[k] = v
			}
		}
		next.Annotations = maps.Clone(kept)
		out.EventType, out.Reason = corev1.EventTypeNormal, ReasonRollbackDone
		out.Message = fmt.Sprintf("Rolled back deployment %q to revision %d", d.Name, rev)
		return out
	}
	out.Message = "Unable to find the revision to rollback to."
	return out
}
