package rootcacertpublisher

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTrim(t *testing.T) {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "ns", Name: name, UID: "u", ResourceVersion: "3", Labels: map[string]string{"a": "b"},
			Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}
	}
	published := &corev1.ConfigMap{ObjectMeta: meta(ConfigMapName), Data: map[string]string{DataKey: "pem"}}
	other := &corev1.ConfigMap{ObjectMeta: meta("app"), Data: map[string]string{"big": "x"}, BinaryData: map[string][]byte{"b": {1}}}
	otherBefore := other.String()
	tests := []struct {
		name string
		in   *corev1.ConfigMap
		want *corev1.ConfigMap
	}{
		{"the published ConfigMap is whole", published, published},
		{"another keeps its metadata less annotations", other, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "app", UID: "u", ResourceVersion: "3", Labels: map[string]string{"a": "b"}}}},
	}
	for _, tt := range tests {
		got, err := Trim(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.(*corev1.ConfigMap).String() != tt.want.String() {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if other.String() != otherBefore {
		t.Errorf("Trim modified its input: %v", other)
	}
	if _, err := Trim(&corev1.Secret{}); err == nil {
		t.Error("Trim of a Secret: no error")
	}
}
