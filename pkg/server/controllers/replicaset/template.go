package replicaset

import (
	"errors"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errNoLabels refuses a template whose pods no selector could find.
var errNoLabels = errors.New("unable to create pods, no labels")

// podFromTemplate is a new pod of rs: the template's labels, annotations,
// finalizers and spec, rs's controller reference, and a name the server
// generates from rs's.
func podFromTemplate(rs *appsv1.ReplicaSet) (*corev1.Pod, error) {
	t := &rs.Spec.Template
	if len(t.Labels) == 0 {
		return nil, errNoLabels
	}
	prefix := rs.Name + "-"
	if len(validation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = rs.Name
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: rs.Namespace, GenerateName: prefix,
			Labels: maps.Clone(t.Labels), Annotations: maps.Clone(t.Annotations), Finalizers: slices.Clone(t.Finalizers),
			OwnerReferences: []metav1.OwnerReference{controllerRef(rs)},
		},
		Spec: *t.Spec.DeepCopy(),
	}, nil
}
