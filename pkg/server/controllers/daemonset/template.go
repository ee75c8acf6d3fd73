package daemonset

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// templateGenerationLabel carries, on each pod, the DaemonSet's template
// generation when it was made (kube's extensions/v1beta1 legacy, still
// written and still read to tell pods up to date).
const templateGenerationLabel = "pod-template-generation"

// templateGeneration is the DaemonSet's template generation from its
// deprecated annotation; nil when absent or unreadable.
func templateGeneration(ds *appsv1.DaemonSet) *int64 {
	v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !ok {
		return nil
	}
	g, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return &g
}

// Updated reports whether pod is of ds's current template: its revision
// hash is hash, or its template generation is ds's.
func Updated(pod *corev1.Pod, ds *appsv1.DaemonSet, hash string) bool {
	if hash != "" && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
		return true
	}
	g := templateGeneration(ds)
	return g != nil && pod.Labels[templateGenerationLabel] == fmt.Sprint(*g)
}

// NewPod is the pod ds runs on node: the template with the daemon
// tolerations, labelled with the revision hash and template generation,
// pinned to node by affinity, controlled by ds, named by the server from
// ds's name.
func NewPod(ds *appsv1.DaemonSet, node, hash string) *corev1.Pod {
	t := &ds.Spec.Template
	lbls := maps.Clone(t.Labels)
	if lbls == nil {
		lbls = map[string]string{}
	}
	if g := templateGeneration(ds); g != nil {
		lbls[templateGenerationLabel] = fmt.Sprint(*g)
	}
	if hash != "" {
		lbls[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	}
	prefix := ds.Name + "-"
	if len(validation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = ds.Name
	}
	spec := *t.Spec.DeepCopy()
	spec.Tolerations = DaemonTolerations(&spec)
	spec.Affinity = NodeAffinityFor(spec.Affinity, node)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ds.Namespace, GenerateName: prefix,
			Labels: lbls, Annotations: maps.Clone(t.Annotations), Finalizers: slices.Clone(t.Finalizers),
			OwnerReferences: []metav1.OwnerReference{controllerRef(ds)},
		},
		Spec: spec,
	}
}

// controllerRef is the reference ds's pods and revisions carry.
func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{
		APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "DaemonSet", Name: ds.Name, UID: ds.UID,
		Controller: &t, BlockOwnerDeletion: &t,
	}
}
