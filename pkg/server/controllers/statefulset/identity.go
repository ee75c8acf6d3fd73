package statefulset

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ordinalName splits a pod name into the set it belongs to and its
// ordinal: "web-2" is ("web", 2). The longest prefix wins, so "a-1-2"
// is ("a-1", 2).
var ordinalName = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// ParentAndOrdinal is the set pod's name says it belongs to and its
// ordinal, or ("", -1) when the name carries no ordinal.
func ParentAndOrdinal(pod *corev1.Pod) (string, int) {
	m := ordinalName.FindStringSubmatch(pod.Name)
	if m == nil {
		return "", -1
	}
	n, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return m[1], -1
	}
	return m[1], int(n)
}

// Ordinal is pod's ordinal, -1 if its name has none.
func Ordinal(pod *corev1.Pod) int {
	_, o := ParentAndOrdinal(pod)
	return o
}

// startOrdinal is the set's first ordinal: spec.ordinals.start, or 0.
func startOrdinal(set *appsv1.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// endOrdinal is the set's last ordinal, inclusive.
func endOrdinal(set *appsv1.StatefulSet) int {
	return startOrdinal(set) + int(replicas(set)) - 1
}

func inRange(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	o := Ordinal(pod)
	return o >= startOrdinal(set) && o <= endOrdinal(set)
}

// PodName is the name of set's pod with ordinal.
func PodName(set *appsv1.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

// ClaimName is the name of the claim template makes for the pod with
// ordinal: <template>-<set>-<ordinal>.
func ClaimName(set *appsv1.StatefulSet, template string, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", template, set.Name, ordinal)
}

// isMember reports whether pod's name makes it one of set's.
func isMember(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, _ := ParentAndOrdinal(pod)
	return parent == set.Name
}

// identityMatches reports whether pod has the name, namespace and
// pod-name label of set's member at its ordinal.
func identityMatches(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, o := ParentAndOrdinal(pod)
	return o >= 0 && parent == set.Name && pod.Name == PodName(set, o) && pod.Namespace == set.Namespace &&
		pod.Labels[appsv1.StatefulSetPodNameLabel] == pod.Name
}

// storageMatches reports whether pod mounts, under each claim
// template's name, the claim made for its ordinal.
func storageMatches(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	o := Ordinal(pod)
	if o < 0 {
		return false
	}
	for _, t := range set.Spec.VolumeClaimTemplates {
		i := slices.IndexFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == t.Name })
		if i < 0 {
			return false
		}
		c := pod.Spec.Volumes[i].PersistentVolumeClaim
		if c == nil || c.ClaimName != ClaimName(set, t.Name, o) {
			return false
		}
	}
	return true
}

// setIdentity gives pod the name, namespace and labels of set's member
// at its ordinal.
func setIdentity(set *appsv1.StatefulSet, pod *corev1.Pod) {
	o := Ordinal(pod)
	pod.Name = PodName(set, o)
	pod.Namespace = set.Namespace
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	// PodIndexLabel is GA and locked on in kube 1.33.
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(o)
}

// setStorage mounts the claims of set's templates in pod, replacing any
// volume of the same name and keeping the others after them.
func setStorage(set *appsv1.StatefulSet, pod *corev1.Pod) {
	o := Ordinal(pod)
	var vols []corev1.Volume
	names := map[string]bool{}
	for _, t := range set.Spec.VolumeClaimTemplates {
		names[t.Name] = true
		vols = append(vols, corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ClaimName(set, t.Name, o)},
		}})
	}
	for _, v := range pod.Spec.Volumes {
		if !names[v.Name] {
			vols = append(vols, v)
		}
	}
	pod.Spec.Volumes = vols
}

// newPod is set's pod at ordinal, built from set's template (which the
// caller has set to the revision it wants) and labelled with revision.
// Like kube it keeps the generateName its pods would have had, names
// the pod, and sets hostname and subdomain, which cannot change later.
func newPod(set *appsv1.StatefulSet, ordinal int, revision string) *corev1.Pod {
	t := &set.Spec.Template
	prefix := set.Name + "-"
	if len(validation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = set.Name
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: prefix, Name: PodName(set, ordinal), Namespace: set.Namespace,
			Labels: maps.Clone(t.Labels), Annotations: maps.Clone(t.Annotations), Finalizers: slices.Clone(t.Finalizers),
			OwnerReferences: []metav1.OwnerReference{controllerRef(set)},
		},
		Spec: *t.Spec.DeepCopy(),
	}
	setIdentity(set, pod)
	pod.Spec.Hostname = pod.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
	setStorage(set, pod)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetRevisionLabel] = revision
	return pod
}

// Revision is the revision pod's label says it was made from.
func Revision(pod *corev1.Pod) string {
	return pod.Labels[appsv1.StatefulSetRevisionLabel]
}

// controllerRef is the reference set's pods and revisions carry.
func controllerRef(set *appsv1.StatefulSet) metav1.OwnerReference {
	return *metav1.NewControllerRef(set, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))
}

// replicas is set's desired count; unset means 1, as defaulted.
func replicas(set *appsv1.StatefulSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return *set.Spec.Replicas
}
