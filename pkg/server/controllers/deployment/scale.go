package deployment

import (
	"fmt"
	"math"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Scale is one ReplicaSet's new size.
type Scale struct {
	RS *appsv1.ReplicaSet
	To int32
}

// NewReplicas is the size the new ReplicaSet may grow to now: Recreate
// jumps to replicas; RollingUpdate grows it by what is left under
// replicas+maxSurge counting every ReplicaSet's wanted size, never past
// replicas.
func NewReplicas(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return replicas(d), nil
	case appsv1.RollingUpdateDeploymentStrategyType:
		var ms *intstr.IntOrString
		if d.Spec.Strategy.RollingUpdate != nil {
			ms = d.Spec.Strategy.RollingUpdate.MaxSurge
		}
		surge, err := intstr.GetScaledValueFromIntOrPercent(ms, int(replicas(d)), true)
		if err != nil {
			return 0, err
		}
		limit := replicas(d) + int32(surge)
		current := sum(all, specReplicas)
		if current >= limit {
			return rsReplicas(newRS), nil
		}
		up := min(limit-current, replicas(d)-rsReplicas(newRS))
		return rsReplicas(newRS) + up, nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

// ScaleDownOld is a rolling update's shrinking of the old ReplicaSets
// (old: those with replicas), in two steps written one after the other
// as kube does: first the unavailable pods of the oldest ones, which
// cost no availability, then available ones while more than
// replicas-maxUnavailable pods stay available, oldest ReplicaSet first.
// A ReplicaSet shrunk in both steps appears twice, in order. Nothing
// shrinks while the new ReplicaSet's own unavailable pods use up the
// budget.
func ScaleDownOld(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) []Scale {
	if sum(old, specReplicas) == 0 {
		return nil
	}
	all := append(slices.Clone(old), newRS)
	minAvailable := replicas(d) - MaxUnavailable(d)
	budget := sum(all, specReplicas) - minAvailable - (rsReplicas(newRS) - newRS.Status.AvailableReplicas)
	if budget <= 0 {
		return nil
	}
	sorted := slices.Clone(old)
	slices.SortStableFunc(sorted, byAge)
	sizes := make([]int32, len(sorted))
	var out []Scale
	var cleaned int32
	for i, rs := range sorted {
		sizes[i] = rsReplicas(rs)
		if cleaned >= budget || sizes[i] == 0 || sizes[i] == rs.Status.AvailableReplicas {
			continue
		}
		n := min(budget-cleaned, sizes[i]-rs.Status.AvailableReplicas)
		sizes[i] -= n
		cleaned += n
		out = append(out, Scale{RS: rs, To: sizes[i]})
	}
	available := sum(all, availableReplicas)
	if available <= minAvailable {
		return out
	}
	want := available - minAvailable
	var done int32
	for i, rs := range sorted {
		if done >= want {
			break
		}
		if sizes[i] == 0 {
			continue
		}
		n := min(sizes[i], want-done)
		sizes[i] -= n
		done += n
		out = append(out, Scale{RS: rs, To: sizes[i]})
	}
	return out
}

// ActiveOrLatest is the one ReplicaSet with replicas, or, when none has
// any, the new one or else the newest old one; nil when more than one
// has replicas.
func ActiveOrLatest(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(old) == 0 {
		return nil
	}
	newestFirst := slices.Clone(old)
	slices.SortStableFunc(newestFirst, func(a, b *appsv1.ReplicaSet) int { return byAge(b, a) })
	active := activeSets(append(slices.Clone(newestFirst), newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return newestFirst[0]
	case 1:
		return active[0]
	}
	return nil
}

// Saturated: the new ReplicaSet runs all of d's replicas, available.
func Saturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := annotationInt(rs, DesiredReplicasAnnotation)
	return ok && rsReplicas(rs) == replicas(d) && desired == replicas(d) && rs.Status.AvailableReplicas == replicas(d)
}

// ScalingEvent reports whether d's replicas changed since its active
// ReplicaSets were last sized: their desired-replicas annotation says
// another number.
func ScalingEvent(d *appsv1.Deployment, sets []*appsv1.ReplicaSet) bool {
	for _, rs := range activeSets(sets) {
		if desired, ok := annotationInt(rs, DesiredReplicasAnnotation); ok && desired != replicas(d) {
			return true
		}
	}
	return false
}

// Proportional sizes d's ReplicaSets after a change of its replicas.
// One ReplicaSet with replicas (or none) simply takes the new count; a
// saturated new one leaves the old ones at zero; in the middle of a
// rolling update the difference to replicas+maxSurge is shared in
// proportion to each ReplicaSet's size against the maximum it was sized
// for, largest first, the rounding leftover to the first. Recreate in the
// middle of a rollout waits.
func Proportional(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) []Scale {
	if one := ActiveOrLatest(newRS, old); one != nil {
		if rsReplicas(one) == replicas(d) {
			return nil
		}
		return []Scale{{RS: one, To: replicas(d)}}
	}
	if Saturated(d, newRS) {
		var out []Scale
		for _, rs := range activeSets(old) {
			out = append(out, Scale{RS: rs, To: 0})
		}
		return out
	}
	if !rolling(d) {
		return nil
	}
	all := activeSets(append(slices.Clone(old), newRS))
	var allowed int32
	if replicas(d) > 0 {
		allowed = replicas(d) + MaxSurge(d)
	}
	toAdd := allowed - sum(all, specReplicas)
	switch {
	case toAdd > 0:
		slices.SortStableFunc(all, largestNewerFirst)
	case toAdd < 0:
		slices.SortStableFunc(all, largestOlderFirst)
	}
	sizes := make([]int32, len(all))
	var added int32
	for i, rs := range all {
		sizes[i] = rsReplicas(rs)
		if toAdd != 0 {
			p := proportion(rs, d, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	out := make([]Scale, 0, len(all))
	for i, rs := range all {
		if i == 0 && toAdd != 0 {
			sizes[0] = max(sizes[0]+toAdd-added, 0)
		}
		// Every ReplicaSet is written, even at its size: the write
		// brings its replica annotations up to date.
		out = append(out, Scale{RS: rs, To: sizes[i]})
	}
	return out
}

// proportion is rs's share of toAdd, of which added is handed out.
func proportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rsReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	f := fraction(rs, d)
	left := toAdd - added
	if toAdd > 0 {
		return min(f, left)
	}
	return max(f, left)
}

// fraction is how much rs grows or shrinks when sized again for d's
// replicas+maxSurge instead of the maximum it was last sized for.
func fraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if replicas(d) == 0 {
		return -rsReplicas(rs)
	}
	target := replicas(d) + MaxSurge(d)
	before, ok := annotationInt(rs, MaxReplicasAnnotation)
	if !ok || before == 0 {
		before = d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	size := float64(rsReplicas(rs)*target) / float64(before)
	return int32(math.Floor(size+0.5)) - rsReplicas(rs)
}
