package registry

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestDataKeys checks ConfigMap and Secret keys against kube-apiserver's
// rule (IsConfigMapKey), on create and update, with kube's field paths.
func TestDataKeys(t *testing.T) {
	const keyRule = `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`
	tests := []struct {
		name     string
		strategy Strategy
		obj      map[string]any
		want     string // errs.ToAggregate().Error(); "" for none
	}{
		{"secret valid keys", secretStrategy{}, map[string]any{"data": map[string]any{"a.b": "", "A_B-c": ""}}, ""},
		{"secret empty key", secretStrategy{}, map[string]any{"data": map[string]any{"": "eA=="}}, `data[]: Invalid value: "": ` + keyRule},
		{"secret empty key from stringData", secretStrategy{}, map[string]any{"stringData": map[string]any{"": "x"}}, `data[]: Invalid value: "": ` + keyRule},
		{"secret dot-dot key", secretStrategy{}, map[string]any{"data": map[string]any{"..": ""}}, `data[..]: Invalid value: "..": must not be '..'`},
		{"secret key with a slash", secretStrategy{}, map[string]any{"data": map[string]any{"a/b": ""}}, `data[a/b]: Invalid value: "a/b": ` + keyRule},
		{"configmap valid keys", configMapStrategy{}, map[string]any{"data": map[string]any{"a": "1"}, "binaryData": map[string]any{"b": "eA=="}}, ""},
		{"configmap empty data key", configMapStrategy{}, map[string]any{"data": map[string]any{"": "1"}}, `data[]: Invalid value: "": ` + keyRule},
		{"configmap bad binaryData key", configMapStrategy{}, map[string]any{"binaryData": map[string]any{"a b": "eA=="}}, `binaryData[a b]: Invalid value: "a b": ` + keyRule},
		{"configmap key in both", configMapStrategy{}, map[string]any{"data": map[string]any{"k": "1"}, "binaryData": map[string]any{"k": "eA=="}}, `data[k]: Invalid value: "k": duplicate of key present in binaryData`},
		{"configmap errors in key order", configMapStrategy{}, map[string]any{"data": map[string]any{"b b": "", "a a": ""}},
			`[data[a a]: Invalid value: "a a": ` + keyRule + `, data[b b]: Invalid value: "b b": ` + keyRule + `]`},
	}
	for _, tt := range tests {
		for _, op := range []string{"create", "update"} {
			t.Run(tt.name+" "+op, func(t *testing.T) {
				obj := map[string]any{"type": "Opaque"}
				for k, v := range tt.obj {
					obj[k] = v
				}
				var got string
				if op == "create" {
					got = errString(tt.strategy.PrepareForCreate(time.Time{}, obj))
				} else {
					got = errString(tt.strategy.PrepareForUpdate(time.Time{}, obj, map[string]any{"type": "Opaque"}))
				}
				if got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
			})
		}
	}
}

func errString(errs field.ErrorList) string {
	if len(errs) == 0 {
		return ""
	}
	return errs.ToAggregate().Error()
}
