package serviceaccount

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMissing(t *testing.T) {
	ns := func(phase corev1.NamespacePhase) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}, Status: corev1.NamespaceStatus{Phase: phase}}
	}
	tests := []struct {
		name   string
		ns     *corev1.Namespace
		want   []string
		exists map[string]bool
		got    []string
	}{
		{"an active namespace without its account gets it", ns(corev1.NamespaceActive), []string{"default"}, nil, []string{"default"}},
		{"an account there is left", ns(corev1.NamespaceActive), []string{"default"}, map[string]bool{"default": true}, nil},
		{"only the missing ones, in order", ns(corev1.NamespaceActive), []string{"default", "builder", "deployer"},
			map[string]bool{"builder": true}, []string{"default", "deployer"}},
		{"other accounts do not count", ns(corev1.NamespaceActive), []string{"default"}, map[string]bool{"app": true}, []string{"default"}},
		{"a terminating namespace needs nothing", ns(corev1.NamespaceTerminating), []string{"default"}, nil, nil},
		{"nor one with no phase yet", ns(""), []string{"default"}, nil, nil},
	}
	for _, tt := range tests {
		if got := Missing(tt.ns, tt.want, tt.exists); !slices.Equal(got, tt.got) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.got)
		}
	}
}

// TestNew: the account is only a name in its namespace, as kube's
// controller creates it (no labels, annotations or token settings).
func TestNew(t *testing.T) {
	got := New("ns", "default")
	want := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "default"}}
	if got.String() != want.String() {
		t.Errorf("New: %v, want %v", got, want)
	}
}
