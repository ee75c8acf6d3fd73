package registry

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// configMapKeyErrors checks a ConfigMap's keys in data and binaryData,
// and that no key is in both.
func configMapKeyErrors(obj map[string]any) field.ErrorList {
	data, _ := obj["data"].(map[string]any)
	binary, _ := obj["binaryData"].(map[string]any)
	errs := dataKeyErrors(obj, "data")
	for _, k := range sortedKeys(data) {
		if _, dup := binary[k]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
	}
	return append(errs, dataKeyErrors(obj, "binaryData")...)
}

// dataKeyErrors checks the keys of the map obj[name] as ConfigMap and
// Secret keys, in key order so the answer does not vary.
func dataKeyErrors(obj map[string]any, name string) field.ErrorList {
	m, _ := obj[name].(map[string]any)
	var errs field.ErrorList
	for _, k := range sortedKeys(m) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath(name).Key(k), k, msg))
		}
	}
	return errs
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
