package registry

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// configMapStrategy holds ConfigMaps to kube-apiserver's rules: each key
// must be usable as a file name when the ConfigMap is mounted, a key
// lives in data or binaryData but not both, and the two together hold
// at most 1 MiB.
type configMapStrategy struct{}

func (configMapStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	return configMapErrors(obj)
}

// PrepareForUpdate also keeps a ConfigMap stored as immutable as it is.
func (configMapStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	return append(immutableDataErrors(obj, old, "data", "binaryData"), configMapErrors(obj)...)
}

func configMapErrors(obj map[string]any) field.ErrorList {
	return append(configMapKeyErrors(obj), configMapDataSize(obj)...)
}
