package deployment

import (
	"math"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Fenceposts resolves a rolling update's maxSurge and maxUnavailable
// against desired replicas as kube does: a percentage of surge rounds
// up, one of unavailability rounds down, and when both come to zero one
// pod may be unavailable, or the rollout could never move.
func Fenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (surge, unavailable int32, err error) {
	zero := intstr.FromInt32(0)
	s, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, zero), int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, zero), int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

func rolling(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// MaxSurge is how many pods d may run above its replicas; zero for
// Recreate.
func MaxSurge(d *appsv1.Deployment) int32 {
	if !rolling(d) || d.Spec.Strategy.RollingUpdate == nil {
		return 0
	}
	s, _, _ := Fenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, replicas(d))
	return s
}

// MaxUnavailable is how many of d's replicas may be unavailable, at
// most all of them; zero for Recreate and for zero replicas.
func MaxUnavailable(d *appsv1.Deployment) int32 {
	if !rolling(d) || d.Spec.Strategy.RollingUpdate == nil || replicas(d) == 0 {
		return 0
	}
	_, u, _ := Fenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, replicas(d))
	return min(u, replicas(d))
}

func replicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

func rsReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}

// hasProgressDeadline: kube treats MaxInt32 as no deadline.
func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

func hasHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}
