package statefulset

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestClaims(t *testing.T) {
	set := newSet(3, func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{
			{ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: map[string]string{"tier": "db"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "logs"}},
		}
	})
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}}
	var got []string
	for _, c := range Claims(set, p) {
		got = append(got, c.Namespace+"/"+c.Name+" "+labelsString(c.Labels))
	}
	if want := []string{"ns/data-web-1 app=web,tier=db", "ns/logs-web-1 app=web"}; !slices.Equal(got, want) {
		t.Errorf("claims %v, want %v", got, want)
	}
}

func labelsString(l map[string]string) string {
	return metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: l})
}

// TestClaimOwners: a claim's owners under each retention policy, for a
// pod in range and one scaled away, from a claim with no owners.
func TestClaimOwners(t *testing.T) {
	tests := []struct {
		whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType
		ordinal                 int
		want                    []string
	}{
		{retain, retain, 0, nil},
		{retain, retain, 5, nil},
		{del, retain, 0, []string{"StatefulSet/web"}},
		{del, retain, 5, []string{"StatefulSet/web"}},
		{retain, del, 0, nil},
		{retain, del, 5, []string{"Pod/web-5"}},
		{del, del, 0, []string{"StatefulSet/web"}},
		{del, del, 5, []string{"Pod/web-5"}},
	}
	for _, tt := range tests {
		set := newSet(3, func(s *appsv1.StatefulSet) {
			s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: tt.whenDeleted, WhenScaled: tt.whenScaled}
		})
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: PodName(set, tt.ordinal), UID: "pod-uid"}}
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-" + p.Name}}
		wantUpToDate := len(tt.want) == 0
		if got := ownersUpToDate(claim, set, p); got != wantUpToDate {
			t.Errorf("%s/%s %s: a bare claim up to date = %v", tt.whenDeleted, tt.whenScaled, p.Name, got)
		}
		setOwners(claim, set, p)
		var got []string
		for _, r := range claim.OwnerReferences {
			if r.Controller == nil || !*r.Controller {
				t.Errorf("owner %s is not a controller reference", r.Name)
			}
			got = append(got, r.Kind+"/"+r.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s/%s %s: owners %v, want %v", tt.whenDeleted, tt.whenScaled, p.Name, got, tt.want)
		}
		if !ownersUpToDate(claim, set, p) {
			t.Errorf("%s/%s %s: not up to date after setOwners", tt.whenDeleted, tt.whenScaled, p.Name)
		}
	}
}

func TestClaimOwnersLeftAlone(t *testing.T) {
	set := newSet(3, func(s *appsv1.StatefulSet) {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: del, WhenScaled: del}
	})
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-5", UID: "pod-uid"}}
	yes := true
	tests := []struct {
		name     string
		refs     []metav1.OwnerReference
		upToDate bool
		stale    bool
	}{
		{"an earlier set of the name", []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "old"}}, true, false},
		{"an earlier pod of the name", []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-5", UID: "old", Controller: &yes}}, true, true},
		{"another controller", []metav1.OwnerReference{{APIVersion: "x/v1", Kind: "Keeper", Name: "k", UID: "k", Controller: &yes}}, true, false},
		{"another controller and the set", []metav1.OwnerReference{{APIVersion: "x/v1", Kind: "Keeper", Name: "k", UID: "k", Controller: &yes},
			{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "set-uid", Controller: &yes}}, false, false},
		{"the pod, not as controller", []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-5", UID: "pod-uid"}}, false, true},
	}
	for _, tt := range tests {
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-web-5", OwnerReferences: tt.refs}}
		if got := ownersUpToDate(claim, set, p); got != tt.upToDate {
			t.Errorf("%s: up to date = %v, want %v", tt.name, got, tt.upToDate)
		}
		fresh := p.DeepCopy()
		fresh.UID = ""
		if got := claimIsStale(claim, set, fresh); got != tt.stale {
			t.Errorf("%s: stale for a new pod = %v, want %v", tt.name, got, tt.stale)
		}
	}
}
