package deployment

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reasons of a Deployment's conditions and events, as kube words them.
const (
	ReasonReplicaSetUpdated    = "ReplicaSetUpdated"
	ReasonFailedRSCreate       = "ReplicaSetCreateError"
	ReasonNewReplicaSet        = "NewReplicaSetCreated"
	ReasonFoundNewRS           = "FoundNewReplicaSet"
	ReasonNewRSAvailable       = "NewReplicaSetAvailable"
	ReasonTimedOut             = "ProgressDeadlineExceeded"
	ReasonPaused               = "DeploymentPaused"
	ReasonResumed              = "DeploymentResumed"
	ReasonMinimumAvailable     = "MinimumReplicasAvailable"
	ReasonMinimumUnavailable   = "MinimumReplicasUnavailable"
	ReasonRollbackNotFound     = "DeploymentRollbackRevisionNotFound"
	ReasonRollbackSameTemplate = "DeploymentRollbackTemplateUnchanged"
	ReasonRollbackDone         = "DeploymentRollback"
)

func newCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) appsv1.DeploymentCondition {
	at := metav1.NewTime(now)
	return appsv1.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: message, LastUpdateTime: at, LastTransitionTime: at}
}

// condition is st's condition of type t, or nil.
func condition(st appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			c := st.Conditions[i]
			return &c
		}
	}
	return nil
}

// setCondition puts c in st as kube does: a condition of the same status
// and reason is left untouched (its times too); one of the same status
// keeps its transition time; the condition moves to the end.
func setCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := condition(*st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

func removeCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var out []appsv1.DeploymentCondition
	for _, c := range st.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	st.Conditions = out
}

// PausedCondition is the Progressing condition a pause or resume sets
// (Unknown, DeploymentPaused or DeploymentResumed), and whether it
// changes; a Deployment without a progress deadline or already timed
// out keeps its condition.
func PausedCondition(d *appsv1.Deployment, now time.Time) (appsv1.DeploymentStatus, bool) {
	st := *d.Status.DeepCopy()
	if !hasProgressDeadline(d) {
		return st, false
	}
	cur := condition(st, appsv1.DeploymentProgressing)
	if cur != nil && cur.Reason == ReasonTimedOut {
		return st, false
	}
	pausedShown := cur != nil && cur.Reason == ReasonPaused
	switch {
	case d.Spec.Paused && !pausedShown:
		setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonPaused, "Deployment is paused", now))
	case !d.Spec.Paused && pausedShown:
		setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonResumed, "Deployment is resumed", now))
	default:
		return st, false
	}
	return st, true
}
