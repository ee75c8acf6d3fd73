package registry

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// serviceAccountStrategy reduces each of a ServiceAccount's secret
// references to the secret's name, as kube-apiserver does: the secrets
// are in the service account's namespace, so the rest of a reference
// says nothing. kube validates nothing else beyond metadata.
type serviceAccountStrategy struct{}

func (serviceAccountStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	keepSecretNames(obj)
	return nil
}

func (serviceAccountStrategy) PrepareForUpdate(_ time.Time, obj, _ map[string]any) field.ErrorList {
	keepSecretNames(obj)
	return nil
}

func keepSecretNames(obj map[string]any) {
	secrets, _ := obj["secrets"].([]any)
	for i, s := range secrets {
		ref, _ := s.(map[string]any)
		next := map[string]any{}
		if name, ok := ref["name"]; ok {
			next["name"] = name
		}
		secrets[i] = next
	}
}
