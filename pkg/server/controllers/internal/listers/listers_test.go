package listers

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

func TestKindOf(t *testing.T) {
	for range 2 { // the second round reads what the first remembered
		if got, err := kindOf[*corev1.Pod](scheme.Scheme); err != nil || got != corev1.SchemeGroupVersion.WithKind("Pod") {
			t.Errorf("Pod: got %v, %v", got, err)
		}
		if got, err := kindOf[*appsv1.ReplicaSet](scheme.Scheme); err != nil || got != appsv1.SchemeGroupVersion.WithKind("ReplicaSet") {
			t.Errorf("ReplicaSet: got %v, %v", got, err)
		}
	}
	if _, err := kindOf[*corev1.Pod](runtime.NewScheme()); err == nil {
		t.Error("a scheme without Pods named their kind")
	}
}
