package deployment

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func ios(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// dep is a RollingUpdate Deployment "web" of n replicas with surge and
// unavailable as kubectl would write them ("25%", "1").
func dep(n int32, surge, unavailable string) *appsv1.Deployment {
	deadline, limit := int32(600), int32(10)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ios(surge), MaxUnavailable: ios(unavailable)}},
			ProgressDeadlineSeconds: &deadline,
			RevisionHistoryLimit:    &limit,
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1},
	}
}

// rs is a ReplicaSet named name, age minutes old, of size replicas with
// available of them available; opts shape it.
func rs(name string, age int, replicas, available int32, opts ...func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	t := true
	r := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(t0.Add(-time.Duration(age) * time.Minute)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: &t}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: available, AvailableReplicas: available},
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

func annotated(kv ...string) func(*appsv1.ReplicaSet) {
	return func(r *appsv1.ReplicaSet) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			r.Annotations[kv[i]] = kv[i+1]
		}
	}
}

func maxAnnotated(desired, maxReplicas int) func(*appsv1.ReplicaSet) {
	return annotated(DesiredReplicasAnnotation, fmt.Sprint(desired), MaxReplicasAnnotation, fmt.Sprint(maxReplicas))
}

func scales(ss []Scale) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s=%d", s.RS.Name, s.To))
	}
	return strings.Join(out, " ")
}

func TestFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavailable string
		desired            int32
		wantSurge, wantUn  int32
		wantErr            bool
	}{
		{"25%", "25%", 10, 3, 2, false},
		{"25%", "25%", 4, 1, 1, false},
		{"25%", "25%", 2, 1, 0, false},
		{"25%", "25%", 1, 1, 0, false},
		{"0", "0", 5, 0, 1, false},
		{"0%", "0%", 5, 0, 1, false},
		{"1", "1", 5, 1, 1, false},
		{"50%", "50%", 3, 2, 1, false},
		{"100%", "0", 4, 4, 0, false},
		{"0", "100%", 4, 0, 4, false},
		{"10%", "10%", 0, 0, 1, false},
		{"30%", "30%", 7, 3, 2, false},
		{"abc", "1", 3, 0, 0, true},
	}
	for _, tt := range tests {
		s, u, err := Fenceposts(ios(tt.surge), ios(tt.unavailable), tt.desired)
		if (err != nil) != tt.wantErr || s != tt.wantSurge || u != tt.wantUn {
			t.Errorf("Fenceposts(%s, %s, %d) = %d, %d, %v; want %d, %d, error %v", tt.surge, tt.unavailable, tt.desired, s, u, err, tt.wantSurge, tt.wantUn, tt.wantErr)
		}
	}
	if s, u, _ := Fenceposts(nil, nil, 5); s != 0 || u != 1 {
		t.Errorf("Fenceposts(nil, nil, 5) = %d, %d; want 0, 1", s, u)
	}
}

func TestMaxSurgeUnavailable(t *testing.T) {
	recreate := dep(5, "1", "1")
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	tests := []struct {
		name              string
		d                 *appsv1.Deployment
		wantSurge, wantUn int32
	}{
		{"percentages", dep(10, "25%", "25%"), 3, 2},
		{"unavailable capped at replicas", dep(5, "0", "10"), 0, 5},
		{"zero replicas", dep(0, "25%", "25%"), 0, 0},
		{"recreate", recreate, 0, 0},
	}
	for _, tt := range tests {
		if s, u := MaxSurge(tt.d), MaxUnavailable(tt.d); s != tt.wantSurge || u != tt.wantUn {
			t.Errorf("%s: surge %d, unavailable %d; want %d, %d", tt.name, s, u, tt.wantSurge, tt.wantUn)
		}
	}
}

func TestNewReplicas(t *testing.T) {
	recreate := dep(5, "1", "1")
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		newRS  *appsv1.ReplicaSet
		old    []*appsv1.ReplicaSet
		want   int32
		errors bool
	}{
		{"first step: the surge", dep(10, "25%", "25%"), rs("new", 1, 0, 0), []*appsv1.ReplicaSet{rs("old", 9, 10, 10)}, 3, false},
		{"room left after the old shrank", dep(10, "25%", "25%"), rs("new", 1, 3, 0), []*appsv1.ReplicaSet{rs("old", 9, 8, 8)}, 5, false},
		{"no room", dep(10, "25%", "25%"), rs("new", 1, 3, 0), []*appsv1.ReplicaSet{rs("old", 9, 10, 10)}, 3, false},
		{"never past replicas", dep(4, "100%", "0"), rs("new", 1, 3, 3), []*appsv1.ReplicaSet{rs("old", 9, 1, 1)}, 4, false},
		{"no surge", dep(4, "0", "1"), rs("new", 1, 0, 0), []*appsv1.ReplicaSet{rs("old", 9, 4, 4)}, 0, false},
		{"no surge, after a shrink", dep(4, "0", "1"), rs("new", 1, 0, 0), []*appsv1.ReplicaSet{rs("old", 9, 3, 3)}, 1, false},
		{"recreate", recreate, rs("new", 1, 0, 0), []*appsv1.ReplicaSet{rs("old", 9, 5, 5)}, 5, false},
		{"bad surge", dep(4, "x", "1"), rs("new", 1, 0, 0), nil, 0, true},
	}
	for _, tt := range tests {
		got, err := NewReplicas(tt.d, append(tt.old, tt.newRS), tt.newRS)
		if got != tt.want || (err != nil) != tt.errors {
			t.Errorf("%s: NewReplicas = %d, %v; want %d, error %v", tt.name, got, err, tt.want, tt.errors)
		}
	}
}

func TestScaleDownOld(t *testing.T) {
	tests := []struct {
		name  string
		d     *appsv1.Deployment
		newRS *appsv1.ReplicaSet
		old   []*appsv1.ReplicaSet
		want  string
	}{
		{"available pods down to the minimum", dep(10, "3", "2"), rs("new", 1, 3, 0),
			[]*appsv1.ReplicaSet{rs("old", 9, 10, 10)}, "old=8"},
		{"unhealthy first, oldest first, then available", dep(10, "2", "2"), rs("new", 1, 2, 2),
			[]*appsv1.ReplicaSet{rs("old2", 5, 5, 5), rs("old1", 9, 5, 3)}, "old1=3 old1=1"},
		{"the new set's unavailable pods use the budget", dep(4, "1", "1"), rs("new", 1, 2, 0),
			[]*appsv1.ReplicaSet{rs("old", 9, 3, 3)}, ""},
		{"one at a time", dep(4, "1", "1"), rs("new", 1, 1, 0),
			[]*appsv1.ReplicaSet{rs("old", 9, 4, 4)}, "old=3"},
		{"spread over old sets, oldest first", dep(6, "0", "3"), rs("new", 1, 0, 0),
			[]*appsv1.ReplicaSet{rs("b", 5, 3, 3), rs("a", 9, 2, 2), rs("c", 2, 1, 1)}, "a=0 b=2"},
		{"unhealthy cleaned up to the budget only", dep(4, "0", "1"), rs("new", 1, 0, 0),
			[]*appsv1.ReplicaSet{rs("old", 9, 4, 1)}, "old=3"},
		{"nothing available to spare", dep(4, "1", "1"), rs("new", 1, 2, 2),
			[]*appsv1.ReplicaSet{rs("old", 9, 2, 1)}, "old=1"},
		{"no old pods", dep(4, "1", "1"), rs("new", 1, 4, 4), nil, ""},
	}
	for _, tt := range tests {
		if got := scales(ScaleDownOld(tt.d, tt.newRS, tt.old)); got != tt.want {
			t.Errorf("%s: ScaleDownOld = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestProportional(t *testing.T) {
	recreate := dep(5, "1", "1")
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	statusReplicas := func(d *appsv1.Deployment, n int32) *appsv1.Deployment { d.Status.Replicas = n; return d }
	tests := []struct {
		name  string
		d     *appsv1.Deployment
		newRS *appsv1.ReplicaSet
		old   []*appsv1.ReplicaSet
		want  string
	}{
		{"one active set takes the count", dep(7, "1", "1"), rs("new", 1, 5, 5, maxAnnotated(5, 6)), []*appsv1.ReplicaSet{rs("old", 9, 0, 0)}, "new=7"},
		{"none active: the new one", dep(3, "1", "1"), rs("new", 1, 0, 0), []*appsv1.ReplicaSet{rs("old", 9, 0, 0)}, "new=3"},
		{"none active, no new: the newest old", dep(3, "1", "1"), nil, []*appsv1.ReplicaSet{rs("older", 9, 0, 0), rs("old", 5, 0, 0)}, "old=3"},
		{"already at size", dep(5, "1", "1"), rs("new", 1, 5, 5), nil, ""},
		{"saturated new: old to zero", dep(5, "1", "1"), rs("new", 1, 5, 5, maxAnnotated(5, 6)), []*appsv1.ReplicaSet{rs("old", 9, 1, 1)}, "old=0"},
		{"scale up mid-rollout", dep(12, "3", "0"), rs("new", 1, 5, 5, maxAnnotated(10, 13)), []*appsv1.ReplicaSet{rs("old", 9, 8, 8, maxAnnotated(10, 13))}, "old=9 new=6"},
		{"scale down mid-rollout", dep(5, "1", "0"), rs("new", 1, 6, 0, maxAnnotated(10, 11)), []*appsv1.ReplicaSet{rs("old", 9, 5, 5, maxAnnotated(10, 11))}, "new=3 old=3"},
		{"leftover to the first, newest among equals", dep(4, "0", "1"), rs("c", 1, 1, 1, maxAnnotated(3, 3)),
			[]*appsv1.ReplicaSet{rs("a", 9, 1, 1, maxAnnotated(3, 3)), rs("b", 5, 1, 1, maxAnnotated(3, 3))}, "c=2 b=1 a=1"},
		{"to zero", dep(0, "1", "1"), rs("new", 1, 2, 2, maxAnnotated(4, 5)), []*appsv1.ReplicaSet{rs("old", 9, 3, 3, maxAnnotated(4, 5))}, "old=0 new=0"},
		{"no annotation: the status count is the base", statusReplicas(dep(10, "0", "2"), 5), rs("new", 1, 2, 2),
			[]*appsv1.ReplicaSet{rs("old", 9, 3, 3)}, "old=6 new=4"},
		{"recreate waits", recreate, rs("new", 1, 2, 2, maxAnnotated(4, 4)), []*appsv1.ReplicaSet{rs("old", 9, 3, 3, maxAnnotated(4, 4))}, ""},
	}
	for _, tt := range tests {
		if got := scales(Proportional(tt.d, tt.newRS, tt.old)); got != tt.want {
			t.Errorf("%s: Proportional = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestScalingEvent(t *testing.T) {
	tests := []struct {
		name string
		sets []*appsv1.ReplicaSet
		want bool
	}{
		{"desired differs", []*appsv1.ReplicaSet{rs("a", 1, 3, 3, maxAnnotated(3, 4))}, true},
		{"desired same", []*appsv1.ReplicaSet{rs("a", 1, 5, 5, maxAnnotated(5, 6))}, false},
		{"inactive sets do not count", []*appsv1.ReplicaSet{rs("a", 1, 0, 0, maxAnnotated(3, 4))}, false},
		{"no annotation", []*appsv1.ReplicaSet{rs("a", 1, 3, 3)}, false},
		{"absent new set", []*appsv1.ReplicaSet{nil}, false},
	}
	for _, tt := range tests {
		if got := ScalingEvent(dep(5, "1", "1"), tt.sets); got != tt.want {
			t.Errorf("%s: ScalingEvent = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNewReplicaSet(t *testing.T) {
	d := dep(10, "25%", "25%")
	d.Annotations = map[string]string{"team": "a", corev1.LastAppliedConfigAnnotation: "{}", RevisionAnnotation: "4"}
	d.Spec.MinReadySeconds = 7
	old := []*appsv1.ReplicaSet{rs("web-old", 9, 10, 10)}
	got, err := NewReplicaSet(d, old, 5)
	if err != nil {
		t.Fatal(err)
	}
	hash := TemplateHash(&d.Spec.Template, nil)
	checks := []struct{ what, got, want string }{
		{"name", got.Name, "web-" + hash},
		{"labels", labels.Set(got.Labels).String(), "app=web,pod-template-hash=" + hash},
		{"template labels", labels.Set(got.Spec.Template.Labels).String(), "app=web,pod-template-hash=" + hash},
		{"selector", labels.Set(got.Spec.Selector.MatchLabels).String(), "app=web,pod-template-hash=" + hash},
		{"deployment's selector untouched", labels.Set(d.Spec.Selector.MatchLabels).String(), "app=web"},
		{"replicas: the surge", fmt.Sprint(*got.Spec.Replicas), "3"},
		{"minReadySeconds", fmt.Sprint(got.Spec.MinReadySeconds), "7"},
		{"owner", fmt.Sprintf("%s/%s/%s/%v", got.OwnerReferences[0].Kind, got.OwnerReferences[0].Name, got.OwnerReferences[0].UID, *got.OwnerReferences[0].Controller), "Deployment/web/d-uid/true"},
		{"annotations", fmt.Sprint(got.Annotations), "map[deployment.kubernetes.io/desired-replicas:10 deployment.kubernetes.io/max-replicas:13 deployment.kubernetes.io/revision:5 team:a]"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %s, want %s", c.what, c.got, c.want)
		}
	}
	cc := int32(2)
	d.Status.CollisionCount = &cc
	if again, _ := NewReplicaSet(d, old, 5); again.Name == got.Name || again.Name != "web-"+TemplateHash(&d.Spec.Template, &cc) {
		t.Errorf("with a collision count the name is %s, want another than %s", again.Name, got.Name)
	}
}

func TestSetNewAnnotations(t *testing.T) {
	tests := []struct {
		name     string
		before   map[string]string
		revision int64
		want     string
		changed  bool
	}{
		{"first revision", nil, 1, "map[deployment.kubernetes.io/revision:1]", true},
		{"raised: the old one to history", map[string]string{RevisionAnnotation: "1"}, 3,
			"map[deployment.kubernetes.io/revision:3 deployment.kubernetes.io/revision-history:1]", true},
		{"raised again", map[string]string{RevisionAnnotation: "3", RevisionHistoryAnnotation: "1"}, 5,
			"map[deployment.kubernetes.io/revision:5 deployment.kubernetes.io/revision-history:1,3]", true},
		{"never lowered", map[string]string{RevisionAnnotation: "6"}, 2, "map[deployment.kubernetes.io/revision:6]", false},
		{"unparsable: left alone", map[string]string{RevisionAnnotation: "x"}, 2, "map[deployment.kubernetes.io/revision:x]", false},
	}
	for _, tt := range tests {
		d := dep(3, "1", "1")
		r := rs("web-x", 1, 3, 3)
		r.Annotations = tt.before
		changed := setNewAnnotations(d, r, tt.revision, true)
		if got := fmt.Sprint(r.Annotations); got != tt.want || changed != tt.changed {
			t.Errorf("%s: %s (changed %v), want %s (changed %v)", tt.name, got, changed, tt.want, tt.changed)
		}
	}
}

func TestSplit(t *testing.T) {
	d := dep(3, "1", "1")
	same := func(r *appsv1.ReplicaSet) {
		r.Spec.Template = *d.Spec.Template.DeepCopy()
		r.Spec.Template.Labels["pod-template-hash"] = "abc"
	}
	other := func(r *appsv1.ReplicaSet) {
		r.Spec.Template = *d.Spec.Template.DeepCopy()
		r.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
	}
	newRS, old := Split(d, []*appsv1.ReplicaSet{rs("b", 2, 1, 1, other), rs("dup", 3, 1, 1, same), rs("a", 5, 1, 1, other), rs("x", 1, 1, 1, same)})
	var names []string
	for _, r := range old {
		names = append(names, r.Name)
	}
	if newRS == nil || newRS.Name != "dup" || strings.Join(names, ",") != "a,b,x" {
		t.Errorf("Split = %v, %v; want dup (the oldest match), a,b,x", newRS, names)
	}
}

func TestClaim(t *testing.T) {
	d := dep(3, "1", "1")
	sel, _ := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	orphan := func(r *appsv1.ReplicaSet) { r.OwnerReferences = nil }
	others := func(r *appsv1.ReplicaSet) { r.OwnerReferences[0].UID = "other" }
	away := func(r *appsv1.ReplicaSet) { r.Labels = map[string]string{"app": "db"} }
	deleting := func(r *appsv1.ReplicaSet) { now := metav1.NewTime(t0); r.DeletionTimestamp = &now }
	sets := []*appsv1.ReplicaSet{rs("mine", 1, 1, 1), rs("orphan", 1, 1, 1, orphan), rs("theirs", 1, 1, 1, others),
		rs("relabelled", 1, 1, 1, away), rs("stray", 1, 1, 1, orphan, away), rs("dying-orphan", 1, 1, 1, orphan, deleting)}
	names := func(sets []*appsv1.ReplicaSet) string {
		var out []string
		for _, r := range sets {
			out = append(out, r.Name)
		}
		return strings.Join(out, ",")
	}
	c := ownership.Claim(d, sel, sets)
	if got := names(c.Owned) + " | " + names(c.Adopt) + " | " + names(c.Release); got != "mine,orphan | orphan | relabelled" {
		t.Errorf("Claim = %s", got)
	}
	now := metav1.NewTime(t0)
	d.DeletionTimestamp = &now
	c = ownership.Claim(d, sel, sets)
	if got := names(c.Owned) + " | " + names(c.Adopt) + " | " + names(c.Release); got != "mine |  | " {
		t.Errorf("Claim of a deleted deployment = %s", got)
	}
}

func TestPrunable(t *testing.T) {
	rev := func(n string) func(*appsv1.ReplicaSet) { return annotated(RevisionAnnotation, n) }
	unobserved := func(r *appsv1.ReplicaSet) { r.Generation = 2; r.Status.ObservedGeneration = 1 }
	tests := []struct {
		name  string
		limit int32
		old   []*appsv1.ReplicaSet
		want  string
	}{
		{"lowest revisions beyond the limit", 1, []*appsv1.ReplicaSet{rs("r3", 1, 0, 0, rev("3")), rs("r1", 2, 0, 0, rev("1")), rs("r2", 3, 0, 0, rev("2"))}, "r1=0 r2=0"},
		{"within the limit", 3, []*appsv1.ReplicaSet{rs("r1", 1, 0, 0, rev("1")), rs("r2", 2, 0, 0, rev("2"))}, ""},
		{"sets with pods or unobserved stay", 0, []*appsv1.ReplicaSet{rs("busy", 1, 1, 1, rev("1")), rs("stale", 1, 0, 0, rev("2"), unobserved), rs("idle", 1, 0, 0, rev("3"))}, "idle=0"},
		{"no limit", math.MaxInt32, []*appsv1.ReplicaSet{rs("r1", 1, 0, 0, rev("1"))}, ""},
	}
	for _, tt := range tests {
		d := dep(3, "1", "1")
		d.Spec.RevisionHistoryLimit = &tt.limit
		var ss []Scale
		for _, r := range Prunable(d, tt.old) {
			ss = append(ss, Scale{RS: r})
		}
		if got := scales(ss); got != tt.want {
			t.Errorf("%s: Prunable = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPlanRollback(t *testing.T) {
	withImage := func(image, revision string) func(*appsv1.ReplicaSet) {
		return func(r *appsv1.ReplicaSet) {
			r.Spec.Template = corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "pod-template-hash": r.Name}, Annotations: map[string]string{"note": revision}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
			}
			r.Annotations = map[string]string{RevisionAnnotation: revision, "team": "r" + revision}
		}
	}
	sets := []*appsv1.ReplicaSet{rs("v1", 3, 0, 0, withImage("nginx:1", "1")), rs("v2", 2, 0, 0, withImage("nginx:2", "2")), rs("v3", 1, 3, 3, withImage("nginx", "3"))}
	tests := []struct {
		to, rev           string
		wantReason, image string
		wantMessage       string
	}{
		{"0", "2", ReasonRollbackDone, "nginx:2", `Rolled back deployment "web" to revision 2`},
		{"1", "1", ReasonRollbackDone, "nginx:1", `Rolled back deployment "web" to revision 1`},
		{"9", "", ReasonRollbackNotFound, "nginx", "Unable to find the revision to rollback to."},
	}
	for _, tt := range tests {
		d := dep(3, "1", "1")
		d.Annotations = map[string]string{rollbackToAnnotation: tt.to, RevisionAnnotation: "3", "team": "d"}
		got := PlanRollback(d, sets)
		if got.Reason != tt.wantReason || got.Message != tt.wantMessage || got.Deployment.Spec.Template.Spec.Containers[0].Image != tt.image {
			t.Errorf("rollback to %s: %s %q image %s; want %s %q image %s", tt.to, got.Reason, got.Message,
				got.Deployment.Spec.Template.Spec.Containers[0].Image, tt.wantReason, tt.wantMessage, tt.image)
		}
		if _, left := got.Deployment.Annotations[rollbackToAnnotation]; left {
			t.Errorf("rollback to %s: request annotation kept", tt.to)
		}
		if tt.wantReason == ReasonRollbackDone {
			if h := got.Deployment.Spec.Template.Labels["pod-template-hash"]; h != "" {
				t.Errorf("rollback to %s: hash label %s kept on the template", tt.to, h)
			}
			if a := got.Deployment.Annotations; a[RevisionAnnotation] != "3" || a["team"] != "r"+tt.rev {
				t.Errorf("rollback to %s: annotations %v", tt.to, a)
			}
		}
	}
	d := dep(3, "1", "1")
	d.Annotations = map[string]string{rollbackToAnnotation: "0"}
	if got := PlanRollback(d, sets[2:]); got.Reason != ReasonRollbackNotFound || got.Message != "Unable to find last revision." {
		t.Errorf("rollback with no previous revision: %s %q", got.Reason, got.Message)
	}
}

func TestOldPodsRunning(t *testing.T) {
	ctl := func(uid types.UID, phase corev1.PodPhase) *corev1.Pod {
		t := true
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{UID: uid, Controller: &t}}}, Status: corev1.PodStatus{Phase: phase}}
	}
	newRS, old := rs("new", 1, 3, 3), rs("old", 9, 0, 0)
	old.Status.Replicas = 0
	tests := []struct {
		name string
		old  []*appsv1.ReplicaSet
		pods []*corev1.Pod
		want bool
	}{
		{"old set still reports pods", []*appsv1.ReplicaSet{rs("busy", 9, 0, 0, func(r *appsv1.ReplicaSet) { r.Status.Replicas = 1 })}, nil, true},
		{"an old pod still running", []*appsv1.ReplicaSet{old}, []*corev1.Pod{ctl("old-uid", corev1.PodRunning)}, true},
		{"an old pod of unknown phase", []*appsv1.ReplicaSet{old}, []*corev1.Pod{ctl("old-uid", corev1.PodUnknown)}, true},
		{"old pods finished", []*appsv1.ReplicaSet{old}, []*corev1.Pod{ctl("old-uid", corev1.PodSucceeded), ctl("old-uid", corev1.PodFailed)}, false},
		{"new pods do not count", []*appsv1.ReplicaSet{old}, []*corev1.Pod{ctl("new-uid", corev1.PodRunning)}, false},
	}
	for _, tt := range tests {
		if got := OldPodsRunning(newRS, tt.old, tt.pods); got != tt.want {
			t.Errorf("%s: OldPodsRunning = %v, want %v", tt.name, got, tt.want)
		}
	}
}
