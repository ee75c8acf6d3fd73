package deployment

import (
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// byAge orders ReplicaSets oldest first, by name when created together,
// as kube's ReplicaSetsByCreationTimestamp.
func byAge(a, b *appsv1.ReplicaSet) int {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return cmpString(a.Name, b.Name)
	}
	if a.CreationTimestamp.Before(&b.CreationTimestamp) {
		return -1
	}
	return 1
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// largestOlderFirst orders ReplicaSets largest first, older first among
// equals (kube's ReplicaSetsBySizeOlder): who loses replicas first.
func largestOlderFirst(a, b *appsv1.ReplicaSet) int {
	if rsReplicas(a) != rsReplicas(b) {
		return int(rsReplicas(b)) - int(rsReplicas(a))
	}
	return byAge(a, b)
}

// largestNewerFirst orders ReplicaSets largest first, newer first among
// equals (kube's ReplicaSetsBySizeNewer): who gains replicas first.
func largestNewerFirst(a, b *appsv1.ReplicaSet) int {
	if rsReplicas(a) != rsReplicas(b) {
		return int(rsReplicas(b)) - int(rsReplicas(a))
	}
	return byAge(b, a)
}

// sameTemplate compares two pod templates ignoring the
// pod-template-hash label, which only ReplicaSets' templates carry.
func sameTemplate(a, b *corev1.PodTemplateSpec) bool {
	ac, bc := a.DeepCopy(), b.DeepCopy()
	delete(ac.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(bc.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return equality.Semantic.DeepEqual(ac, bc)
}

// Split finds d's new ReplicaSet, the oldest whose template is d's, and
// the others, old.
func Split(d *appsv1.Deployment, sets []*appsv1.ReplicaSet) (newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) {
	sorted := slices.Clone(sets)
	slices.SortStableFunc(sorted, byAge)
	for _, rs := range sorted {
		if newRS == nil && sameTemplate(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}

// activeSets are those with replicas wanted.
func activeSets(sets []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range sets {
		if rs != nil && rsReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// Revision is the revision annotation of obj's annotations, 0 when
// absent; ok is false when it is not a number.
func Revision(annotations map[string]string) (rev int64, ok bool) {
	v, found := annotations[RevisionAnnotation]
	if !found {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// maxRevision is the highest revision among sets.
func maxRevision(sets []*appsv1.ReplicaSet) int64 {
	var top int64
	for _, rs := range sets {
		if v, ok := Revision(rs.Annotations); ok && v > top {
			top = v
		}
	}
	return top
}

// previousRevision is the second highest revision among sets, what
// `rollout undo` without a revision goes back to.
func previousRevision(sets []*appsv1.ReplicaSet) int64 {
	var top, second int64
	for _, rs := range sets {
		v, ok := Revision(rs.Annotations)
		switch {
		case !ok:
		case v >= top:
			second, top = top, v
		case v > second:
			second = v
		}
	}
	return second
}

// sum adds f over sets, skipping absent ones.
func sum(sets []*appsv1.ReplicaSet, f func(*appsv1.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range sets {
		if rs != nil {
			n += f(rs)
		}
	}
	return n
}

func specReplicas(rs *appsv1.ReplicaSet) int32   { return rsReplicas(rs) }
func actualReplicas(rs *appsv1.ReplicaSet) int32 { return rs.Status.Replicas }
func readyReplicas(rs *appsv1.ReplicaSet) int32  { return rs.Status.ReadyReplicas }
func availableReplicas(rs *appsv1.ReplicaSet) int32 {
	return rs.Status.AvailableReplicas
}
