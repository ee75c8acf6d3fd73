package rootcacertpublisher

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDecide(t *testing.T) {
	const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	ns := func(phase corev1.NamespacePhase) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}, Status: corev1.NamespaceStatus{Phase: phase}}
	}
	active := ns(corev1.NamespaceActive)
	cm := func(opts ...func(*corev1.ConfigMap)) *corev1.ConfigMap {
		c := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: ConfigMapName, ResourceVersion: "7",
				Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data: map[string]string{DataKey: ca},
		}
		for _, o := range opts {
			o(c)
		}
		return c
	}
	published := cm()
	tests := []struct {
		name    string
		ns      *corev1.Namespace
		current *corev1.ConfigMap
		action  Action
		want    *corev1.ConfigMap // nil: nothing to write
	}{
		{"a new namespace gets the bundle", active, nil, Create, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: ConfigMapName, Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data:       map[string]string{DataKey: ca},
		}},
		{"the published bundle is kept", active, published, Keep, nil},
		{"changed data is put back", active, cm(func(c *corev1.ConfigMap) { c.Data[DataKey] = "forged" }), Update, published},
		{"an added key is dropped", active, cm(func(c *corev1.ConfigMap) { c.Data["extra"] = "x" }), Update, published},
		{"emptied data is put back", active, cm(func(c *corev1.ConfigMap) { c.Data = nil }), Update, published},
		{"a missing description is restored", active, cm(func(c *corev1.ConfigMap) { c.Annotations = nil }), Update, published},
		{"an empty description is restored", active, cm(func(c *corev1.ConfigMap) { c.Annotations[DescriptionAnnotation] = "" }), Update, published},
		{"another description is kept, as kube keeps it", active, cm(func(c *corev1.ConfigMap) { c.Annotations[DescriptionAnnotation] = "mine" }), Keep, nil},
		{"other labels and annotations stay", active,
			cm(func(c *corev1.ConfigMap) {
				c.Labels = map[string]string{"a": "b"}
				c.Annotations["x"] = "y"
				c.Data = nil
			}), Update,
			cm(func(c *corev1.ConfigMap) { c.Labels = map[string]string{"a": "b"}; c.Annotations["x"] = "y" })},
		{"a terminating namespace is left alone", ns(corev1.NamespaceTerminating), nil, Keep, nil},
		{"even with a changed bundle", ns(corev1.NamespaceTerminating), cm(func(c *corev1.ConfigMap) { c.Data = nil }), Keep, nil},
	}
	for _, tt := range tests {
		var before string
		if tt.current != nil {
			before = tt.current.String()
		}
		action, got := Decide(tt.ns, tt.current, []byte(ca))
		if action != tt.action {
			t.Errorf("%s: %v, want %v", tt.name, action, tt.action)
		}
		if (got == nil) != (tt.want == nil) || got != nil && got.String() != tt.want.String() {
			t.Errorf("%s: writes\n%v\nwant\n%v", tt.name, got, tt.want)
		}
		if tt.current != nil && tt.current.String() != before {
			t.Errorf("%s: the current ConfigMap was modified: %v", tt.name, tt.current)
		}
	}
}
