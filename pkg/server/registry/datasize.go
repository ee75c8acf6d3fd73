package registry

import (
	"encoding/base64"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxDataBytes is the most data a ConfigMap or a Secret may hold
// (kube's MaxSecretSize): such objects are read whole by every kubelet
// and controller that mounts or watches them.
const maxDataBytes = 1 << 20

// configMapDataSize counts data and binaryData (decoded) together; the
// error names no field, as kube's does, since it is about both.
func configMapDataSize(obj map[string]any) field.ErrorList {
	total := 0
	if data, ok := obj["data"].(map[string]any); ok {
		for _, v := range data {
			s, _ := v.(string)
			total += len(s)
		}
	}
	total += decodedSize(obj["binaryData"])
	if total > maxDataBytes {
		return field.ErrorList{field.TooLong(field.NewPath(""), "", maxDataBytes)}
	}
	return nil
}

// secretDataSize bounds a Secret's data, once stringData is merged in.
func secretDataSize(obj map[string]any) field.ErrorList {
	if decodedSize(obj["data"]) > maxDataBytes {
		return field.ErrorList{field.TooLong(field.NewPath("data"), "", maxDataBytes)}
	}
	return nil
}

// decodedSize is the total decoded length of a map of base64 values, as
// typed decoding has already checked them.
func decodedSize(m any) int {
	values, _ := m.(map[string]any)
	total := 0
	for _, v := range values {
		s, _ := v.(string)
		total += base64.StdEncoding.DecodedLen(len(s)) - (len(s) - len(strings.TrimRight(s, "=")))
	}
	return total
}
