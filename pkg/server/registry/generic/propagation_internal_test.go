package generic

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestGCFinalizers: what a delete leaves of the garbage-collection
// finalizers, as kube-apiserver decides it, including the kinds that
// orphan by default (batch/v1 Jobs).
func TestGCFinalizers(t *testing.T) {
	yes := true
	tests := []struct {
		name  string
		p     propagation
		fins  []string
		want  []string
		delta bool
	}{
		{"nothing asked", propagation{}, nil, nil, false},
		{"background", propagation{policy: metav1.DeletePropagationBackground}, []string{finalizerOrphan, "x"}, []string{"x"}, true},
		{"foreground", propagation{policy: metav1.DeletePropagationForeground}, nil, []string{finalizerForeground}, true},
		{"legacy orphan flag", propagation{orphan: &yes}, nil, []string{finalizerOrphan}, true},
		{"orphans by default", propagation{orphanByDefault: true}, []string{"x"}, []string{"x", finalizerOrphan}, true},
		{"a policy overrides the default", propagation{orphanByDefault: true, policy: metav1.DeletePropagationBackground}, nil, nil, false},
		{"a finalizer already there overrides the default", propagation{orphanByDefault: true}, []string{finalizerForeground}, []string{finalizerForeground}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetFinalizers(tt.fins)
			got, changed := tt.p.withGCFinalizers(u)
			if !slices.Equal(got, tt.want) || changed != tt.delta {
				t.Errorf("finalizers %v changed %v, want %v %v", got, changed, tt.want, tt.delta)
			}
		})
	}
}
