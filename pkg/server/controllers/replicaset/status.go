package replicaset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Status is rs's status given the pods it owns and the outcome of this
// pass's creates and deletes (manageErr): the counts, the generation
// observed, and the ReplicaFailure condition, set when creating or
// deleting failed and cleared once a pass succeeds. recheck is when
// a ready pod becomes available (minReadySeconds), if one will.
func Status(rs *appsv1.ReplicaSet, owned []*corev1.Pod, manageErr error, now time.Time) (st appsv1.ReplicaSetStatus, recheck time.Duration) {
	st = *rs.Status.DeepCopy()
	template := labels.SelectorFromSet(rs.Spec.Template.Labels)
	var fully, ready, available int32
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	for _, p := range owned {
		if template.Matches(labels.Set(p.Labels)) {
			fully++
		}
		since := readySince(p)
		if since == nil {
			continue
		}
		ready++
		if minReady == 0 || (!since.IsZero() && since.Add(minReady).Before(now)) {
			available++
		} else if wait := since.Add(minReady).Sub(now); recheck == 0 || wait < recheck {
			recheck = max(wait, time.Second)
		}
	}
	failure := condition(st.Conditions, appsv1.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(owned) - int(replicas(rs)); diff < 0 {
			reason = "FailedCreate"
		} else if diff > 0 {
			reason = "FailedDelete"
		}
		st.Conditions = append(st.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		var kept []appsv1.ReplicaSetCondition
		for _, c := range st.Conditions {
			if c.Type != appsv1.ReplicaSetReplicaFailure {
				kept = append(kept, c)
			}
		}
		st.Conditions = kept
	}
	st.Replicas = int32(len(owned))
	st.FullyLabeledReplicas = fully
	st.ReadyReplicas = ready
	st.AvailableReplicas = available
	st.ObservedGeneration = rs.Generation
	return st, recheck
}

func condition(cs []appsv1.ReplicaSetCondition, t appsv1.ReplicaSetConditionType) *appsv1.ReplicaSetCondition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// replicas is rs's desired count; unset means 1, as defaulted.
func replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}
