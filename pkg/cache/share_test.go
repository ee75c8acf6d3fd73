package cache

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func sharedCM(name, rv string, labels map[string]string, owner string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, Labels: labels},
	}
	if owner != "" {
		yes := true
		cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Thing", Name: owner, UID: types.UID("uid-" + owner), Controller: &yes}}
		cm.Finalizers = []string{"example.com/cleanup"}
	}
	return cm
}

func samePointer(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestStoreSharesEqualMetadata(t *testing.T) {
	s := NewStore(StoreOptions[*corev1.ConfigMap]{})
	a := sharedCM("a", "1", map[string]string{"app": "web"}, "x")
	b := sharedCM("b", "1", map[string]string{"app": "web"}, "x")
	c := sharedCM("c", "1", map[string]string{"app": "db"}, "y")
	for _, o := range []*corev1.ConfigMap{a, b, c} {
		s.Upsert(o)
	}
	tests := []struct {
		name      string
		x, y      any
		wantSame  bool
		wantEqual bool
	}{
		{"equal labels", a.Labels, b.Labels, true, true},
		{"different labels", a.Labels, c.Labels, false, false},
		{"equal owner references", &a.OwnerReferences[0], &b.OwnerReferences[0], true, true},
		{"different owner references", &a.OwnerReferences[0], &c.OwnerReferences[0], false, false},
		{"equal finalizers", &a.Finalizers[0], &b.Finalizers[0], true, true},
		{"equal finalizers, other owner", &a.Finalizers[0], &c.Finalizers[0], true, true},
	}
	for _, tt := range tests {
		if got := samePointer(tt.x, tt.y); got != tt.wantSame {
			t.Errorf("%s: shared = %v, want %v", tt.name, got, tt.wantSame)
		}
		if got := reflect.DeepEqual(tt.x, tt.y); got != tt.wantEqual {
			t.Errorf("%s: equal = %v, want %v", tt.name, got, tt.wantEqual)
		}
	}
	if got := s.share.labels.len(); got != 2 {
		t.Errorf("label sets held = %d, want 2", got)
	}
}

// TestStoreSharingCounts drives a store through random upserts, deletes
// and relists and checks that the tables hold exactly what the stored
// objects use, and nothing once the store is empty.
func TestStoreSharingCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := NewStore(StoreOptions[*corev1.ConfigMap]{})
	rv := 0
	object := func() *corev1.ConfigMap {
		rv++
		owner := ""
		if rng.IntN(2) == 0 {
			owner = fmt.Sprint("o", rng.IntN(3))
		}
		var labels map[string]string
		if n := rng.IntN(4); n > 0 {
			labels = map[string]string{"app": fmt.Sprint("a", n)}
		}
		return sharedCM(fmt.Sprint("cm", rng.IntN(20)), fmt.Sprint(rv), labels, owner)
	}
	for step := range 2000 {
		switch rng.IntN(10) {
		case 0:
			s.Delete("ns/" + fmt.Sprint("cm", rng.IntN(20)))
		case 1:
			// A relist that reports a random subset, some unchanged.
			s.beginListing()
			for _, o := range s.List() {
				if rng.IntN(3) > 0 {
					s.upsert(Key(o), o)
				}
			}
			o := object()
			s.upsert(Key(o), o)
			s.endListing(func(string, stored[*corev1.ConfigMap]) {})
		default:
			o := object()
			s.upsert(Key(o), o)
		}
		checkShareCounts(t, step, s)
	}
	for _, k := range s.Keys() {
		s.Delete(k)
	}
	checkShareCounts(t, -1, s)
	if n := s.share.strings.len() + s.share.labels.len() + s.share.owners.len() + s.share.finalizers.len(); n != 0 {
		t.Errorf("empty store still holds %d shared values", n)
	}
}

func checkShareCounts(t *testing.T, step int, s *Store[*corev1.ConfigMap]) {
	t.Helper()
	labels, owners := map[string]int{}, map[string]int{}
	for _, o := range s.List() {
		if o.Labels != nil {
			labels[fmt.Sprint(o.Labels)]++
		}
		if len(o.OwnerReferences) > 0 {
			owners[o.OwnerReferences[0].Name]++
		}
	}
	gotLabels := map[string]int{}
	for _, e := range s.share.labels.m {
		for ; e != nil; e = e.next {
			gotLabels[fmt.Sprint(e.v)] += e.refs
		}
	}
	gotOwners := map[string]int{}
	for _, e := range s.share.owners.m {
		for ; e != nil; e = e.next {
			gotOwners[e.v[0].Name] += e.refs
		}
	}
	if !reflect.DeepEqual(gotLabels, labels) || !reflect.DeepEqual(gotOwners, owners) {
		t.Fatalf("step %d: label refs %v, want %v; owner refs %v, want %v", step, gotLabels, labels, gotOwners, owners)
	}
}

func TestStoreLeavesUnstructuredAlone(t *testing.T) {
	s := NewStore(StoreOptions[*unstructured.Unstructured]{})
	for _, name := range []string{"a", "b"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Thing")
		u.SetNamespace("ns")
		u.SetName(name)
		u.SetResourceVersion("1")
		u.SetLabels(map[string]string{"app": "web"})
		s.Upsert(u)
	}
	if n := s.share.labels.len() + s.share.strings.len(); n != 0 {
		t.Errorf("unstructured objects put %d values in the tables, want 0", n)
	}
}
