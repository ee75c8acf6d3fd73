package deployment

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The annotations a Deployment's ReplicaSets carry, as kube names them.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	// rollbackToAnnotation is the extensions/v1beta1 rollback request,
	// still honoured by kube's controller.
	rollbackToAnnotation = appsv1.DeprecatedRollbackTo
	// maxHistoryChars bounds the revision-history annotation.
	maxHistoryChars = 2000
)

// notCopied are the Deployment annotations that stay off its
// ReplicaSets (and that a rollback keeps on the Deployment): the
// controller's own bookkeeping and kubectl's last applied configuration.
var notCopied = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	RevisionAnnotation:                 true,
	RevisionHistoryAnnotation:          true,
	DesiredReplicasAnnotation:          true,
	MaxReplicasAnnotation:              true,
	rollbackToAnnotation:               true,
}

// copyAnnotations puts d's annotations on rs; it reports a change.
func copyAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if cur, ok := rs.Annotations[k]; notCopied[k] || (ok && cur == v) {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setNewAnnotations brings the new ReplicaSet's annotations up to date:
// d's own annotations, the revision (raised, never lowered, the revision
// it had appended to its history), and for a ReplicaSet being created the
// replica annotations. It reports a change; an unparsable revision
// changes nothing, as in kube.
func setNewAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, revision int64, exists bool) bool {
	changed := copyAnnotations(d, rs)
	old, had := rs.Annotations[RevisionAnnotation]
	var oldRev int64
	if old != "" {
		n, err := strconv.ParseInt(old, 10, 64)
		if err != nil {
			return false
		}
		oldRev = n
	}
	if oldRev < revision {
		rs.Annotations[RevisionAnnotation] = strconv.FormatInt(revision, 10)
		changed = true
		if had {
			appendHistory(rs, old)
		}
	}
	if !exists && setReplicasAnnotations(rs, replicas(d), replicas(d)+MaxSurge(d)) {
		changed = true
	}
	return changed
}

// appendHistory adds old to the revision-history annotation, dropping
// the oldest entries to stay within maxHistoryChars.
func appendHistory(rs *appsv1.ReplicaSet, old string) {
	cur := rs.Annotations[RevisionHistoryAnnotation]
	if cur == "" {
		rs.Annotations[RevisionHistoryAnnotation] = old
		return
	}
	entries := strings.Split(cur, ",")
	total := len(cur) + len(old) + 1
	start := 0
	for total > maxHistoryChars && start < len(entries) {
		total -= len(entries[start]) + 1
		start++
	}
	if total <= maxHistoryChars {
		rs.Annotations[RevisionHistoryAnnotation] = strings.Join(append(entries[start:], old), ",")
	}
}

// setReplicasAnnotations records the Deployment's desired and maximum
// sizes on rs, the base of proportional scaling; it reports a change.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if !replicasAnnotationsStale(rs, desired, maxReplicas) {
		return false
	}
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[DesiredReplicasAnnotation] = strconv.Itoa(int(desired))
	rs.Annotations[MaxReplicasAnnotation] = strconv.Itoa(int(maxReplicas))
	return true
}

func replicasAnnotationsStale(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// annotationInt reads a non-negative int32 annotation.
func annotationInt(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > 1<<31-1 {
		return 0, false
	}
	return int32(n), true
}

// setRevision puts revision on d; it reports a change.
func setRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[RevisionAnnotation] == revision {
		return false
	}
	d.Annotations[RevisionAnnotation] = revision
	return true
}
