package rootcacertpublisher

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/cache"
)

// Trim is the cache transform for ConfigMaps in a manager where this
// controller is the only reader of ConfigMaps: it keeps kube-root-ca.crt
// whole and of every other ConfigMap only the metadata, less annotations
// (kubectl's last-applied-configuration repeats the whole object): the
// controller reads neither, and ConfigMaps hold up to a MiB each.
func Trim(obj cache.Object) (cache.Object, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return nil, fmt.Errorf("rootcacertpublisher: trimming %T, not a ConfigMap", obj)
	}
	if cm.Name == ConfigMapName {
		return cm, nil
	}
	out := &corev1.ConfigMap{TypeMeta: cm.TypeMeta, ObjectMeta: cm.ObjectMeta}
	out.Annotations, out.ManagedFields = nil, nil
	return out, nil
}
