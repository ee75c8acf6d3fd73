package deployment

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NewReplicaSet is the ReplicaSet d's template asks for: named
// <deployment>-<hash>, the hash also on its selector, its labels and its
// template's labels (so the ReplicaSets of one Deployment never select
// each other's pods), owned by d, at the size NewReplicas gives among
// sets, stamped with revision.
func NewReplicaSet(d *appsv1.Deployment, old []*appsv1.ReplicaSet, revision int64) (*appsv1.ReplicaSet, error) {
	template := *d.Spec.Template.DeepCopy()
	hash := TemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	template.Labels = withLabel(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	selector := d.Spec.Selector.DeepCopy()
	if selector == nil {
		selector = &metav1.LabelSelector{}
	}
	selector.MatchLabels = withLabel(selector.MatchLabels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	zero := int32(0)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: template},
	}
	n, err := NewReplicas(d, append(old, rs), rs)
	if err != nil {
		return nil, err
	}
	rs.Spec.Replicas = &n
	setNewAnnotations(d, rs, revision, false)
	return rs, nil
}

func withLabel(l map[string]string, k, v string) map[string]string {
	out := maps.Clone(l)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}
