package ownership

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

func pod(name string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"),
		Labels: map[string]string{"app": "web"}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func controlledBy(kind string, uid types.UID) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		t := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner", UID: uid, Controller: &t}}
	}
}

func labelled(l map[string]string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Labels = l } }

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func TestClaim(t *testing.T) {
	deleting := metav1.NewTime(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	other := map[string]string{"app": "other"}
	pods := []*corev1.Pod{
		pod("mine", controlledBy("ReplicaSet", "owner-uid")),
		pod("mine-unmatched", controlledBy("ReplicaSet", "owner-uid"), labelled(other)),
		pod("theirs", controlledBy("ReplicaSet", "other-uid")),
		pod("orphan"),
		pod("orphan-unmatched", labelled(other)),
		pod("orphan-deleting", func(p *corev1.Pod) { p.DeletionTimestamp = &deleting }),
		pod("orphan-elsewhere", func(p *corev1.Pod) { p.Namespace = "other" }),
	}
	tests := []struct {
		name                              string
		ownerDeleting                     bool
		wantOwned, wantAdopt, wantRelease []string
	}{
		{name: "live owner", wantOwned: []string{"mine", "orphan"}, wantAdopt: []string{"orphan"}, wantRelease: []string{"mine-unmatched"}},
		{name: "owner being deleted", ownerDeleting: true, wantOwned: []string{"mine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner := &metav1.ObjectMeta{Namespace: "ns", Name: "owner", UID: "owner-uid"}
			if tt.ownerDeleting {
				owner.DeletionTimestamp = &deleting
			}
			c := Claim(owner, labels.SelectorFromSet(labels.Set{"app": "web"}), pods)
			if got := names(c.Owned); !slices.Equal(got, tt.wantOwned) {
				t.Errorf("Owned = %v, want %v", got, tt.wantOwned)
			}
			if got := names(c.Adopt); !slices.Equal(got, tt.wantAdopt) {
				t.Errorf("Adopt = %v, want %v", got, tt.wantAdopt)
			}
			if got := names(c.Release); !slices.Equal(got, tt.wantRelease) {
				t.Errorf("Release = %v, want %v", got, tt.wantRelease)
			}
		})
	}
}

func TestOwnersOf(t *testing.T) {
	cands := []Candidate{
		{Name: "web", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		{Name: "everything", Selector: &metav1.LabelSelector{}},
		{Name: "bad", Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}},
		{Name: "db", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
	}
	list := func(context.Context, string) ([]Candidate, error) { return cands, nil }
	failing := func(context.Context, string) ([]Candidate, error) { return nil, errors.New("no cache") }
	tests := []struct {
		name string
		pod  *corev1.Pod
		list func(context.Context, string) ([]Candidate, error)
		want []string
	}{
		{name: "controlled by one", pod: pod("p", controlledBy("ReplicaSet", "x")), list: list, want: []string{"owner"}},
		{name: "controlled by another kind", pod: pod("p", controlledBy("StatefulSet", "x")), list: list},
		{name: "orphan: the non-empty selectors matching it", pod: pod("p"), list: list, want: []string{"web"}},
		{name: "orphan, candidates unreadable", pod: pod("p"), list: failing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range OwnersOf(context.Background(), tt.pod, "apps/v1", "ReplicaSet", tt.list) {
				if r.Namespace != "ns" {
					t.Errorf("request in namespace %q", r.Namespace)
				}
				got = append(got, r.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("OwnersOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKept(t *testing.T) {
	mk := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)}}
	}
	a, b := mk("a"), mk("b")
	c := Claims[*corev1.Pod]{Owned: []*corev1.Pod{a, b}}
	got := c.Kept(map[types.UID]bool{"b": true}, (*corev1.Pod).DeepCopy)
	if len(got) != 1 || got[0].Name != "a" || got[0] == a {
		t.Errorf("Kept = %v, want a copy of a alone", got)
	}
}
