package statefulset

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var podKind = corev1.SchemeGroupVersion.WithKind("Pod")

// Claims are the claims set's templates make for pod, in template
// order: each named <template>-<set>-<ordinal>, labelled with the
// template's labels and the set's selector's matchLabels.
func Claims(set *appsv1.StatefulSet, pod *corev1.Pod) []*corev1.PersistentVolumeClaim {
	o := Ordinal(pod)
	var out []*corev1.PersistentVolumeClaim
	for i := range set.Spec.VolumeClaimTemplates {
		c := set.Spec.VolumeClaimTemplates[i].DeepCopy()
		c.Name = ClaimName(set, set.Spec.VolumeClaimTemplates[i].Name, o)
		c.Namespace = set.Namespace
		if set.Spec.Selector != nil {
			if c.Labels == nil {
				c.Labels = map[string]string{}
			}
			maps.Copy(c.Labels, set.Spec.Selector.MatchLabels)
		}
		out = append(out, c)
	}
	return out
}

// retention is set's claim retention policy, Retain for both when unset.
func retention(set *appsv1.StatefulSet) appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy {
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		return *p
	}
	return appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
	}
}

const (
	retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	del    = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
)

// refersTo reports whether ref names obj (kind and name, not UID).
func refersTo(ref metav1.OwnerReference, name, apiVersion, kind string) bool {
	return ref.APIVersion == apiVersion && ref.Kind == kind && ref.Name == name
}

func refersToSet(ref metav1.OwnerReference, set *appsv1.StatefulSet) bool {
	return refersTo(ref, set.Name, appsv1.SchemeGroupVersion.String(), "StatefulSet")
}

func refersToPod(ref metav1.OwnerReference, pod *corev1.Pod) bool {
	return refersTo(ref, pod.Name, "v1", "Pod")
}

// staleRef reports whether claim's first reference to the set (or pod)
// by name has another UID: the claim belongs to an earlier object of
// that name.
func staleRef(claim *corev1.PersistentVolumeClaim, match func(metav1.OwnerReference) bool, uid string) bool {
	for _, r := range claim.OwnerReferences {
		if match(r) {
			return string(r.UID) != uid
		}
	}
	return false
}

// foreignController reports whether, under a policy that deletes
// claims, something other than set and pod controls claim (or a stale
// set or pod does).
func foreignController(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if p := retention(set); p.WhenScaled == retain && p.WhenDeleted == retain {
		return false
	}
	for _, r := range claim.OwnerReferences {
		switch {
		case refersToSet(r, set):
			if r.UID != set.UID {
				return true
			}
		case refersToPod(r, pod):
			if r.UID != pod.UID {
				return true
			}
		case r.Controller != nil && *r.Controller:
			return true
		}
	}
	return false
}

func ownedBy(claim *corev1.PersistentVolumeClaim, owner metav1.Object) bool {
	for _, r := range claim.OwnerReferences {
		if r.UID == owner.GetUID() {
			return true
		}
	}
	return false
}

// ownersUpToDate reports whether claim's owners follow set's retention
// policy for pod, as kube judges it:
//
//	Retain on scale down and on deletion: neither set nor pod owns it;
//	Retain on scale down, Delete on deletion: the set does;
//	Delete on scale down, Retain on deletion: the pod does once scaled away;
//	Delete on both: the set does while the pod is in range, the pod after.
//
// A claim held by stale references is left alone, as is one another
// controller holds, unless set or pod also own it.
func ownersUpToDate(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if staleRef(claim, func(r metav1.OwnerReference) bool { return refersToSet(r, set) }, string(set.UID)) ||
		staleRef(claim, func(r metav1.OwnerReference) bool { return refersToPod(r, pod) }, string(pod.UID)) {
		return true
	}
	if foreignController(claim, set, pod) {
		return !ownedBy(claim, set) && !ownedBy(claim, pod)
	}
	for _, r := range claim.OwnerReferences {
		if (r.UID == set.UID || r.UID == pod.UID) && (r.Controller == nil || !*r.Controller) {
			return false
		}
	}
	p := retention(set)
	scaledDown := !inRange(set, pod)
	switch {
	case p.WhenScaled == retain && p.WhenDeleted == del:
		return ownedBy(claim, set) && !ownedBy(claim, pod)
	case p.WhenScaled == del && p.WhenDeleted == retain:
		return !ownedBy(claim, set) && scaledDown == ownedBy(claim, pod)
	case p.WhenScaled == del && p.WhenDeleted == del:
		return scaledDown != ownedBy(claim, set) && scaledDown == ownedBy(claim, pod)
	}
	return !ownedBy(claim, set) && !ownedBy(claim, pod)
}

// setOwners rewrites claim's references to set and pod by set's
// retention policy: none under a foreign controller, else the set as
// controller while the claim should go with the set, the pod once the
// claim should go with the scaled-down pod.
func setOwners(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) {
	foreign := foreignController(claim, set, pod)
	var refs []metav1.OwnerReference
	for _, r := range claim.OwnerReferences {
		if !refersToSet(r, set) && !refersToPod(r, pod) {
			refs = append(refs, r)
		}
	}
	if !foreign {
		p := retention(set)
		scaledDown := !inRange(set, pod)
		switch {
		case p.WhenScaled == retain && p.WhenDeleted == del:
			refs = appendRef(refs, controllerRef(set))
		case p.WhenScaled == del && p.WhenDeleted == retain && scaledDown:
			refs = appendRef(refs, *metav1.NewControllerRef(pod, podKind))
		case p.WhenScaled == del && p.WhenDeleted == del && scaledDown:
			refs = appendRef(refs, *metav1.NewControllerRef(pod, podKind))
		case p.WhenScaled == del && p.WhenDeleted == del:
			refs = appendRef(refs, controllerRef(set))
		}
	}
	if refs == nil {
		refs = []metav1.OwnerReference{}
	}
	claim.OwnerReferences = refs
}

func appendRef(refs []metav1.OwnerReference, ref metav1.OwnerReference) []metav1.OwnerReference {
	for _, r := range refs {
		if r.UID == ref.UID {
			return refs
		}
	}
	return append(refs, ref)
}

// claimIsStale reports whether claim, under a Delete-on-scale-down
// policy, still names an earlier pod of pod's name: creating pod must
// wait until the garbage collector has taken it.
func claimIsStale(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if retention(set).WhenScaled == retain {
		return false
	}
	return staleRef(claim, func(r metav1.OwnerReference) bool { return refersToPod(r, pod) }, string(pod.UID))
}
