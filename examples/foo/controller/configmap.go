package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
)

// ValueKey is the ConfigMap key that mirrors spec.value.
const ValueKey = "value"

// ConfigMapName is the name of the ConfigMap a Foo owns, in its
// namespace.
func ConfigMapName(foo *foov1.Foo) string { return foo.Name + "-foo" }

// ensureConfigMap creates or updates foo's ConfigMap so it holds
// spec.value, writing only when something differs.
func ensureConfigMap(ctx context.Context, c client.Interface, foo *foov1.Foo) error {
	cm := &corev1.ConfigMap{}
	err := c.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: ConfigMapName(foo)}, cm)
	switch {
	case client.IsNotFound(err):
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: foo.Namespace, Name: ConfigMapName(foo),
				// Makes the controller's Owns source map the ConfigMap's
				// events to this Foo, and lets a cluster's garbage
				// collector remove it should the finalizer be forced off.
				OwnerReferences: []metav1.OwnerReference{ownerRef(foo)},
			},
			Data: map[string]string{ValueKey: foo.Spec.Value},
		}
		return c.Create(ctx, cm)
	case err != nil:
		return err
	}
	if v, ok := cm.Data[ValueKey]; ok && v == foo.Spec.Value {
		return nil
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[ValueKey] = foo.Spec.Value
	return c.Update(ctx, cm)
}

// deleteConfigMap deletes foo's ConfigMap and reports whether it was
// there; one already gone is what cleanup wants too.
func deleteConfigMap(ctx context.Context, c client.Interface, foo *foov1.Foo) (bool, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: ConfigMapName(foo)}}
	err := c.Delete(ctx, cm)
	if client.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func ownerRef(foo *foov1.Foo) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion: foov1.GroupVersion.String(), Kind: "Foo",
		Name: foo.Name, UID: foo.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}
}
