package predicate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

func cm(gen int64, rv string, lbl, ann map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Generation: gen, ResourceVersion: rv, Labels: lbl, Annotations: ann}}
}

func TestUpdatePredicates(t *testing.T) {
	base := cm(1, "10", map[string]string{"app": "x"}, map[string]string{"a": "1"})
	tests := []struct {
		name     string
		p        Predicate
		old, new client.Object
		want     bool
	}{
		{"generation same", GenerationChanged(), base, cm(1, "11", nil, nil), false},
		{"generation bumped", GenerationChanged(), base, cm(2, "11", nil, nil), true},
		{"resync dropped", ResourceVersionChanged(), base, base, false},
		{"new version", ResourceVersionChanged(), base, cm(1, "11", nil, nil), true},
		{"labels same", LabelsChanged(), base, cm(2, "11", map[string]string{"app": "x"}, nil), false},
		{"labels changed", LabelsChanged(), base, cm(1, "11", map[string]string{"app": "y"}, nil), true},
		{"annotations same", AnnotationsChanged(), base, cm(1, "11", nil, map[string]string{"a": "1"}), false},
		{"annotations removed", AnnotationsChanged(), base, cm(1, "11", nil, nil), true},
		{"and", And(GenerationChanged(), LabelsChanged()), base, cm(2, "11", map[string]string{"app": "x"}, nil), false},
		{"or", Or(GenerationChanged(), LabelsChanged()), base, cm(2, "11", map[string]string{"app": "x"}, nil), true},
		{"not", Not(GenerationChanged()), base, cm(2, "11", nil, nil), false},
		{"empty and passes", And(), base, base, true},
		{"empty or drops", Or(), base, base, false},
	}
	for _, tt := range tests {
		if got := tt.p.Update(tt.old, tt.new); got != tt.want {
			t.Errorf("%s: Update = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCreateDelete(t *testing.T) {
	sel := labels.SelectorFromSet(labels.Set{"app": "x"})
	match, other := cm(1, "1", map[string]string{"app": "x"}, nil), cm(1, "1", map[string]string{"app": "y"}, nil)
	tests := []struct {
		name string
		p    Predicate
		obj  client.Object
		want bool
	}{
		{"generation passes creates", GenerationChanged(), other, true},
		{"labels match", Labels(sel), match, true},
		{"labels do not match", Labels(sel), other, false},
		{"typed funcs", Funcs[*corev1.ConfigMap]{CreateFunc: func(c *corev1.ConfigMap) bool { return c.Labels["app"] == "x" }, DeleteFunc: func(c *corev1.ConfigMap) bool { return c.Labels["app"] == "x" }}, match, true},
		{"typed funcs, no match", Funcs[*corev1.ConfigMap]{CreateFunc: func(c *corev1.ConfigMap) bool { return c.Labels["app"] == "x" }, DeleteFunc: func(c *corev1.ConfigMap) bool { return c.Labels["app"] == "x" }}, other, false},
		{"typed funcs, other type", Funcs[*corev1.Secret]{}, match, false},
	}
	for _, tt := range tests {
		if got := tt.p.Create(tt.obj); got != tt.want {
			t.Errorf("%s: Create = %v, want %v", tt.name, got, tt.want)
		}
		if got := tt.p.Delete(tt.obj); got != tt.want {
			t.Errorf("%s: Delete = %v, want %v", tt.name, got, tt.want)
		}
	}
	// An object leaving the selection is still seen.
	if !Labels(sel).Update(match, other) || Labels(sel).Update(other, other) {
		t.Error("Labels.Update: want old-or-new matching")
	}
}
