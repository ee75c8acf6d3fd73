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

func (configMapStrategy) PrepareForUpdate(_ time.Time, obj, _ map[string]any) field.ErrorList {
	return configMapErrors(obj)
}

func configMapErrors(obj map[string]any) field.ErrorList {
	return append(configMapKeyErrors(obj), configMapDataSize(obj)...)
}
