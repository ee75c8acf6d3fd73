package pvcprotection

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Finalizer holds a claim a pod uses.
const Finalizer = "kubernetes.io/pvc-protection"

// Action is what to do to a claim's finalizers.
type Action int

const (
	// Keep leaves the claim as it is.
	Keep Action = iota
	// Check: the claim is being deleted and no pod of the cache uses it;
	// remove the finalizer if a live list agrees.
	Check
	// Add gives a claim that is not being deleted the finalizer.
	Add
)

// Decide is what a claim needs given the pods of its namespace the cache
// holds.
func Decide(pvc *corev1.PersistentVolumeClaim, pods []*corev1.Pod) Action {
	has := slices.Contains(pvc.Finalizers, Finalizer)
	switch {
	case pvc.DeletionTimestamp != nil && has:
		if InUse(pvc, pods) {
			return Keep
		}
		return Check
	case pvc.DeletionTimestamp == nil && !has:
		return Add
	}
	return Keep
}

// InUse reports whether one of pods uses pvc: a scheduled pod that
// mounts it by name, or a scheduled pod not yet shut down whose
// ephemeral volume it is. An unscheduled pod never reached a kubelet,
// which refuses to start a pod on a claim being deleted.
func InUse(pvc *corev1.PersistentVolumeClaim, pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p.Namespace != pvc.Namespace || p.Spec.NodeName == "" {
			continue
		}
		for _, v := range p.Spec.Volumes {
			if c := v.PersistentVolumeClaim; c != nil && c.ClaimName == pvc.Name {
				return true
			}
			if v.Ephemeral != nil && !shutDown(p) && p.Name+"-"+v.Name == pvc.Name && ownedBy(pvc, p) {
				return true
			}
		}
	}
	return false
}

// shutDown: deleted with no grace left (force-deleted, or done with by
// its kubelet), only waiting to be removed. Counting such a pod as not
// using its ephemeral claim breaks a cycle with a pod finalizer waiting
// for the claim.
func shutDown(p *corev1.Pod) bool {
	return p.DeletionTimestamp != nil && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds == 0
}

// ownedBy reports whether pod controls pvc, as the claim of one of its
// ephemeral volumes is.
func ownedBy(pvc *corev1.PersistentVolumeClaim, pod *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(pvc)
	return ref != nil && ref.UID == pod.UID
}

// claimsOf are the names of the claims pod's volumes use.
func claimsOf(pod *corev1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, pod.Name+"-"+v.Name)
		}
	}
	return out
}
