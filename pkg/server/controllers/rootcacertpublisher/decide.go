package rootcacertpublisher

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The published ConfigMap, as kube names and describes it.
const (
	ConfigMapName         = "kube-root-ca.crt"
	DataKey               = "ca.crt"
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Action is what a namespace's ConfigMap needs.
type Action int

const (
	// Keep: nothing to write.
	Keep Action = iota
	// Create the ConfigMap, which the namespace lacks.
	Create
	// Update the ConfigMap, whose data or description differ.
	Update
)

func (a Action) String() string {
	switch a {
	case Keep:
		return "Keep"
	case Create:
		return "Create"
	case Update:
		return "Update"
	}
	return "Action(?)"
}

// Decide is what ns needs given its current ConfigMap (nil when it has
// none) and the bundle ca, with the object to write for Create and
// Update. The current ConfigMap is not modified.
func Decide(ns *corev1.Namespace, current *corev1.ConfigMap, ca []byte) (Action, *corev1.ConfigMap) {
	if ns.Status.Phase != corev1.NamespaceActive {
		return Keep, nil
	}
	data := map[string]string{DataKey: string(ca)}
	if current == nil {
		return Create, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   ns.Name,
				Name:        ConfigMapName,
				Annotations: map[string]string{DescriptionAnnotation: Description},
			},
			Data: data,
		}
	}
	// kube asks only that some description be there, not its text.
	if maps.Equal(current.Data, data) && current.Annotations[DescriptionAnnotation] != "" {
		return Keep, nil
	}
	next := current.DeepCopy()
	next.Data = data
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	next.Annotations[DescriptionAnnotation] = Description
	return Update, next
}

// FieldSelector narrows the ConfigMaps the controller's cache holds to
// the one it publishes; a manager running it sets it for ConfigMaps.
const FieldSelector = "metadata.name=" + ConfigMapName
