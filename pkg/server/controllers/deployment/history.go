package deployment

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
)

// Prunable are the old ReplicaSets past d's revisionHistoryLimit that
// may go: the lowest revisions (oldest on a tie or an unreadable
// revision) beyond the limit, skipping any that still has pods, wants
// some, has a spec its controller has not yet seen, or is being deleted.
func Prunable(d *appsv1.Deployment, old []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	if !hasHistoryLimit(d) {
		return nil
	}
	var alive []*appsv1.ReplicaSet
	for _, rs := range old {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	extra := len(alive) - int(*d.Spec.RevisionHistoryLimit)
	if extra <= 0 {
		return nil
	}
	slices.SortStableFunc(alive, byRevision)
	var out []*appsv1.ReplicaSet
	for _, rs := range alive[:extra] {
		if rs.Status.Replicas != 0 || rsReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		out = append(out, rs)
	}
	return out
}

func byRevision(a, b *appsv1.ReplicaSet) int {
	ra, oka := Revision(a.Annotations)
	rb, okb := Revision(b.Annotations)
	if !oka || !okb || ra == rb {
		return byAge(a, b)
	}
	if ra < rb {
		return -1
	}
	return 1
}
