package statefulset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func newSet(replicas int32, opts ...func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	zero := int32(0)
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "set-uid", Generation: 3},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &replicas,
			ServiceName:         "web-svc",
			Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: &zero}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
			},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func parallel(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }

func partition(n int32) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = &n }
}

func onDelete(s *appsv1.StatefulSet) {
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
}

func withImage(image string) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image }
}

// revisions of set: current is the template with image cur, update the
// set's own.
func revisionsOf(t *testing.T, set *appsv1.StatefulSet, cur string) Revisions {
	t.Helper()
	old := set.DeepCopy()
	old.Spec.Template.Spec.Containers[0].Image = cur
	rc, err := NewRevision(old, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	ru, err := NewRevision(set, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Name == ru.Name {
		ru = rc
	}
	cs, err := ApplyRevision(set, rc)
	if err != nil {
		t.Fatal(err)
	}
	us, err := ApplyRevision(set, ru)
	if err != nil {
		t.Fatal(err)
	}
	return Revisions{Current: rc, Update: ru, CurrentSet: cs, UpdateSet: us}
}

// pod is set's member with ordinal at revision rev (a revision of revs:
// "cur" or "upd"); opts shape it. By default it is Running and Ready
// since an hour.
func pod(set *appsv1.StatefulSet, revs Revisions, ordinal int, rev string, opts ...func(*corev1.Pod)) *corev1.Pod {
	r, s := revs.Current, revs.CurrentSet
	if rev == "upd" {
		r, s = revs.Update, revs.UpdateSet
	}
	p := newPod(s, ordinal, r.Name)
	p.UID = types.UID(fmt.Sprintf("%s-uid", p.Name))
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func phase(ph corev1.PodPhase) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = ph
		if ph != corev1.PodRunning {
			p.Status.Conditions = nil
		}
	}
}

func notReady(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }

func readyFor(d time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(t0.Add(-d)) }
}

func deleting(p *corev1.Pod) {
	ts := metav1.NewTime(t0)
	p.DeletionTimestamp = &ts
}

// steps prints a plan's groups: "Create web-0" and, for a group of
// several, "[Create web-0, Create web-1]".
func steps(p Plan) []string {
	var out []string
	for _, g := range p.Groups {
		var s []string
		for _, st := range g {
			d := st.Kind.String() + " " + st.Pod.Name
			if st.Fix {
				d += " fix"
			}
			s = append(s, d)
		}
		if len(s) == 1 {
			out = append(out, s[0])
		} else {
			out = append(out, "["+strings.Join(s, ", ")+"]")
		}
	}
	return out
}

func TestDecide(t *testing.T) {
	type podSpec struct {
		ordinal int
		rev     string
		opts    []func(*corev1.Pod)
	}
	p := func(o int, rev string, opts ...func(*corev1.Pod)) podSpec { return podSpec{o, rev, opts} }
	tests := []struct {
		name    string
		set     *appsv1.StatefulSet
		pods    []podSpec
		want    []string
		waiting string
		// replicas, ready, current, updated
		counts [4]int32
	}{
		{name: "ordered: a new set creates its first pod only", set: newSet(3),
			want: []string{"Create web-0"}},
		{name: "ordered: waits for web-0 to run", set: newSet(3), pods: []podSpec{p(0, "upd", phase(corev1.PodPending))},
			waiting: "web-0", counts: [4]int32{1, 0, 1, 1}},
		{name: "ordered: waits for web-0 to be ready", set: newSet(3), pods: []podSpec{p(0, "upd", notReady)},
			waiting: "web-0", counts: [4]int32{1, 0, 1, 1}},
		{name: "ordered: web-0 ready, web-1 next", set: newSet(3), pods: []podSpec{p(0, "upd")},
			want: []string{"Create web-1"}, counts: [4]int32{1, 1, 1, 1}},
		{name: "ordered: waits for minReadySeconds", set: newSet(3, func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = 10 }),
			pods: []podSpec{p(0, "upd", readyFor(5*time.Second))}, waiting: "web-0", counts: [4]int32{1, 1, 1, 1}},
		{name: "ordered: a missing lower ordinal is created first", set: newSet(3), pods: []podSpec{p(1, "upd"), p(2, "upd")},
			want: []string{"Create web-0"}, counts: [4]int32{2, 2, 2, 2}},
		{name: "parallel: all at once", set: newSet(3, parallel),
			want: []string{"[Create web-0, Create web-1, Create web-2]"}, waiting: "web-2"},
		{name: "parallel: does not wait for unready pods", set: newSet(3, parallel), pods: []podSpec{p(0, "upd", notReady)},
			want: []string{"[Create web-1, Create web-2]"}, waiting: "web-2", counts: [4]int32{1, 0, 1, 1}},
		{name: "ordinals start at 5", set: newSet(2, func(s *appsv1.StatefulSet) { s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 5} }),
			pods: []podSpec{p(5, "upd")}, want: []string{"Create web-6"}, counts: [4]int32{1, 1, 1, 1}},
		{name: "a finished pod is deleted for replacement", set: newSet(3), pods: []podSpec{p(0, "upd"), p(1, "upd", phase(corev1.PodFailed)), p(2, "upd")},
			want: []string{"Replace web-1"}, counts: [4]int32{3, 2, 3, 3}},
		{name: "ordered scale down: the highest ordinal only", set: newSet(1), pods: []podSpec{p(0, "upd"), p(1, "upd"), p(2, "upd")},
			want: []string{"Condemn web-2"}, counts: [4]int32{3, 3, 3, 3}},
		{name: "ordered scale down: waits for the terminating pod", set: newSet(1), pods: []podSpec{p(0, "upd"), p(1, "upd"), p(2, "upd", deleting)},
			waiting: "web-2", counts: [4]int32{3, 3, 2, 2}},
		{name: "ordered scale down: waits for an unhealthy pod in range", set: newSet(1), pods: []podSpec{p(0, "upd", notReady), p(1, "upd"), p(2, "upd")},
			waiting: "web-0", counts: [4]int32{3, 2, 3, 3}},
		{name: "ordered scale down: a lower unhealthy condemned pod does not hold the highest", set: newSet(1),
			pods: []podSpec{p(0, "upd"), p(1, "upd", notReady), p(2, "upd")}, want: []string{"Condemn web-2"}, counts: [4]int32{3, 2, 3, 3}},
		{name: "ordered scale down: an unhealthy higher pod holds a healthy lower one", set: newSet(1),
			pods: []podSpec{p(0, "upd"), p(1, "upd"), p(2, "upd", notReady), p(3, "upd", notReady)}, waiting: "web-2", counts: [4]int32{4, 2, 4, 4}},
		{name: "ordered scale down: the first unhealthy pod may go", set: newSet(1), pods: []podSpec{p(0, "upd"), p(1, "upd"), p(2, "upd", notReady)},
			want: []string{"Condemn web-2"}, counts: [4]int32{3, 2, 3, 3}},
		{name: "ordered scale down: waits for the condemned pod to be available", set: newSet(1, func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = 30 }),
			pods: []podSpec{p(0, "upd"), p(1, "upd", readyFor(time.Second))}, waiting: "web-1", counts: [4]int32{2, 2, 2, 2}},
		{name: "parallel scale down: all at once", set: newSet(1, parallel), pods: []podSpec{p(0, "upd"), p(1, "upd"), p(2, "upd"), p(3, "upd", deleting)},
			want: []string{"[Condemn web-2, Condemn web-1]"}, counts: [4]int32{4, 4, 3, 3}},
		{name: "rolling update: the highest ordinal first", set: newSet(3, withImage("nginx:2")),
			pods: []podSpec{p(0, "cur"), p(1, "cur"), p(2, "cur")}, want: []string{"Roll web-2"}, counts: [4]int32{3, 3, 3, 0}},
		{name: "rolling update: waits for the updated pod to be ready", set: newSet(3, withImage("nginx:2")),
			pods: []podSpec{p(0, "cur"), p(1, "cur"), p(2, "upd", notReady)}, waiting: "web-2", counts: [4]int32{3, 2, 2, 1}},
		{name: "rolling update: next one down", set: newSet(3, withImage("nginx:2")),
			pods: []podSpec{p(0, "cur"), p(1, "cur"), p(2, "upd")}, want: []string{"Roll web-1"}, counts: [4]int32{3, 3, 2, 1}},
		{name: "rolling update: the partition holds lower ordinals", set: newSet(3, withImage("nginx:2"), partition(2)),
			pods: []podSpec{p(0, "cur"), p(1, "cur"), p(2, "upd")}, counts: [4]int32{3, 3, 2, 1}},
		{name: "rolling update: a recreated pod below the partition is at the current revision", set: newSet(3, withImage("nginx:2"), partition(2)),
			pods: []podSpec{p(1, "cur"), p(2, "upd")}, want: []string{"Create web-0@cur"}, counts: [4]int32{2, 2, 1, 1}},
		{name: "on delete: old pods stay", set: newSet(3, withImage("nginx:2"), onDelete),
			pods: []podSpec{p(0, "cur"), p(1, "cur"), p(2, "cur")}, counts: [4]int32{3, 3, 3, 0}},
		{name: "on delete: a missing pod comes at the update revision", set: newSet(3, withImage("nginx:2"), onDelete),
			pods: []podSpec{p(0, "cur"), p(2, "cur")}, want: []string{"Create web-1@upd"}, counts: [4]int32{2, 2, 2, 0}},
		{name: "scaling comes before updating", set: newSet(2, withImage("nginx:2")),
			pods: []podSpec{p(0, "cur"), p(1, "cur"), p(2, "cur")}, want: []string{"Condemn web-2"}, counts: [4]int32{3, 3, 3, 0}},
		{name: "a pod without its name label is fixed", set: newSet(1),
			pods: []podSpec{p(0, "upd", func(p *corev1.Pod) { delete(p.Labels, appsv1.StatefulSetPodNameLabel) })},
			want: []string{"Tend web-0 fix"}, counts: [4]int32{1, 1, 1, 1}},
		{name: "a set being deleted does nothing", set: newSet(3, func(s *appsv1.StatefulSet) { ts := metav1.NewTime(t0); s.DeletionTimestamp = &ts }),
			pods: []podSpec{p(0, "upd")}, counts: [4]int32{1, 1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			revs := revisionsOf(t, tt.set, "nginx:1")
			var pods []*corev1.Pod
			for _, ps := range tt.pods {
				pods = append(pods, pod(tt.set, revs, ps.ordinal, ps.rev, ps.opts...))
			}
			plan := Decide(tt.set, revs, pods, t0)
			got := steps(plan)
			// A create says which revision its pod is at.
			for i, s := range got {
				if strings.HasPrefix(s, "Create ") && !strings.HasPrefix(s, "[") && strings.Contains(strings.Join(tt.want, " "), "@") {
					at := "@upd"
					if Revision(plan.Groups[i][0].Pod) == revs.Current.Name && revs.Current != revs.Update {
						at = "@cur"
					}
					got[i] = s + at
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("steps = %q, want %q", got, tt.want)
			}
			if plan.Waiting != tt.waiting {
				t.Errorf("waiting = %q, want %q", plan.Waiting, tt.waiting)
			}
			st := plan.Status
			if c := [4]int32{st.Replicas, st.ReadyReplicas, st.CurrentReplicas, st.UpdatedReplicas}; c != tt.counts {
				t.Errorf("replicas, ready, current, updated = %v, want %v", c, tt.counts)
			}
			if st.ObservedGeneration != 3 || st.CurrentRevision != revs.Current.Name || st.UpdateRevision != revs.Update.Name {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestNewPod(t *testing.T) {
	set := newSet(3, func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
		s.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "data"}, {Name: "cfg"}}
	})
	p := newPod(set, 2, "web-abc")
	wantLabels := labels.Set{"app": "web", "statefulset.kubernetes.io/pod-name": "web-2", "apps.kubernetes.io/pod-index": "2", "controller-revision-hash": "web-abc"}
	if !labels.Equals(labels.Set(p.Labels), wantLabels) {
		t.Errorf("labels %v, want %v", p.Labels, wantLabels)
	}
	if p.Name != "web-2" || p.GenerateName != "web-" || p.Namespace != "ns" || p.Spec.Hostname != "web-2" || p.Spec.Subdomain != "web-svc" {
		t.Errorf("identity %s %s %s %s %s", p.Name, p.GenerateName, p.Namespace, p.Spec.Hostname, p.Spec.Subdomain)
	}
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.Kind != "StatefulSet" || ref.Name != "web" || ref.UID != "set-uid" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller ref %+v", ref)
	}
	var vols []string
	for _, v := range p.Spec.Volumes {
		claim := ""
		if v.PersistentVolumeClaim != nil {
			claim = "=" + v.PersistentVolumeClaim.ClaimName
		}
		vols = append(vols, v.Name+claim)
	}
	if want := []string{"data=data-web-2", "cfg"}; !slices.Equal(vols, want) {
		t.Errorf("volumes %v, want %v", vols, want)
	}
	if !identityMatches(set, p) || !storageMatches(set, p) {
		t.Errorf("a new pod does not match its set")
	}
}

func TestParentAndOrdinal(t *testing.T) {
	tests := []struct {
		name, parent string
		ordinal      int
	}{
		{"web-0", "web", 0},
		{"web-12", "web", 12},
		{"my-db-3", "my-db", 3},
		{"web", "", -1},
		{"web-x", "", -1},
		{"web-99999999999", "web", -1},
	}
	for _, tt := range tests {
		parent, o := ParentAndOrdinal(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tt.name}})
		if parent != tt.parent || o != tt.ordinal {
			t.Errorf("%s: (%q, %d), want (%q, %d)", tt.name, parent, o, tt.parent, tt.ordinal)
		}
	}
}

func TestPatchAndHash(t *testing.T) {
	set := newSet(1)
	patch, err := Patch(set)
	if err != nil {
		t.Fatal(err)
	}
	// The bytes kube 1.33 records: the template as JSON, keys sorted,
	// the zero creation time as null, and the replace directive.
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},` +
		`"spec":{"containers":[{"image":"nginx:1","name":"c","resources":{}}]}}}}`
	if string(patch) != want {
		t.Errorf("patch\n%s\nwant\n%s", patch, want)
	}
	rev, err := NewRevision(set, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	hash := rev.Labels[HashLabel]
	if rev.Name != "web-"+hash || rev.Labels["app"] != "web" || rev.Revision != 1 || string(rev.Data.Raw) != want {
		t.Errorf("revision %s labels %v number %d", rev.Name, rev.Labels, rev.Revision)
	}
	tests := []struct {
		name string
		set  *appsv1.StatefulSet
		cc   int32
		same bool
	}{
		{"the same template", newSet(1), 0, true},
		{"another replica count, strategy and policy", newSet(5, parallel, onDelete), 0, true},
		{"another image", newSet(1, withImage("nginx:2")), 0, false},
		{"another collision count", newSet(1), 1, false},
	}
	for _, tt := range tests {
		r, err := NewRevision(tt.set, 1, tt.cc)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Name == rev.Name; got != tt.same {
			t.Errorf("%s: name %s vs %s, same = %v, want %v", tt.name, r.Name, rev.Name, got, tt.same)
		}
	}
	back, err := ApplyRevision(newSet(1, withImage("nginx:9")), rev)
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec.Template.Spec.Containers[0].Image != "nginx:1" || *back.Spec.Replicas != 1 {
		t.Errorf("applied revision: image %s", back.Spec.Template.Spec.Containers[0].Image)
	}
}

func TestChooseRevision(t *testing.T) {
	r := func(set *appsv1.StatefulSet, n int64) *appsv1.ControllerRevision {
		rev, err := NewRevision(set, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	v1, v2 := newSet(1, withImage("nginx:1")), newSet(1, withImage("nginx:2"))
	tests := []struct {
		name     string
		set      *appsv1.StatefulSet
		revs     []*appsv1.ControllerRevision
		want     string // use, renumber, create
		wantName string
		number   int64
	}{
		{"no history: create revision 1", v1, nil, "create", r(v1, 1).Name, 1},
		{"unchanged: use the newest", v2, []*appsv1.ControllerRevision{r(v1, 1), r(v2, 2)}, "use", r(v2, 2).Name, 2},
		{"changed: create the next", v2, []*appsv1.ControllerRevision{r(v1, 1)}, "create", r(v2, 1).Name, 2},
		{"rolled back: renumber the old one", v1, []*appsv1.ControllerRevision{r(v1, 1), r(v2, 2)}, "renumber", r(v1, 1).Name, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ChooseRevision(tt.set, tt.revs, 0)
			if err != nil {
				t.Fatal(err)
			}
			var kind, name string
			var n int64
			switch {
			case c.Use != nil:
				kind, name, n = "use", c.Use.Name, c.Use.Revision
			case c.Renumber != nil:
				kind, name, n = "renumber", c.Renumber.Name, c.Number
			default:
				kind, name, n = "create", c.Create.Name, c.Create.Revision
			}
			if kind != tt.want || name != tt.wantName || n != tt.number {
				t.Errorf("%s %s #%d, want %s %s #%d", kind, name, n, tt.want, tt.wantName, tt.number)
			}
		})
	}
}

func TestHistoryToDelete(t *testing.T) {
	var revs []*appsv1.ControllerRevision
	for i := range 6 {
		revs = append(revs, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i+1)}, Revision: int64(i + 1)})
	}
	inUse := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{appsv1.StatefulSetRevisionLabel: "web-2"}}}
	tests := []struct {
		limit int32
		want  []string
	}{
		{10, nil},
		{2, []string{"web-1"}},
		{1, []string{"web-1", "web-3"}},
		{0, []string{"web-1", "web-3", "web-4"}},
	}
	for _, tt := range tests {
		set := newSet(1, func(s *appsv1.StatefulSet) { s.Spec.RevisionHistoryLimit = &tt.limit })
		var got []string
		for _, r := range HistoryToDelete(set, []*corev1.Pod{inUse}, revs, revs[4], revs[5]) {
			got = append(got, r.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("limit %d: delete %v, want %v", tt.limit, got, tt.want)
		}
	}
}

func TestCompleteAndChanged(t *testing.T) {
	set := newSet(3)
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: 3, Replicas: 3, ReadyReplicas: 3, CurrentReplicas: 1, UpdatedReplicas: 3,
		CurrentRevision: "web-a", UpdateRevision: "web-b"}
	st := set.Status
	Complete(set, &st)
	if st.CurrentRevision != "web-b" || st.CurrentReplicas != 3 {
		t.Errorf("complete: %+v", st)
	}
	if !StatusChanged(set, &st) {
		t.Errorf("a completed update is not written")
	}
	half := set.Status
	half.ReadyReplicas = 2
	Complete(set, &half)
	if half.CurrentRevision != "web-a" {
		t.Errorf("completed with a pod not ready: %+v", half)
	}
	same := set.Status
	cc := int32(4)
	same.CollisionCount = &cc
	if StatusChanged(set, &same) {
		t.Errorf("a collision count alone is written")
	}
}

func TestClaim(t *testing.T) {
	set := newSet(3)
	sel, _ := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	revs := revisionsOf(t, set, "nginx:1")
	mk := func(name string, opts ...func(*corev1.Pod)) *corev1.Pod {
		p := pod(set, revs, 0, "upd", opts...)
		p.Name, p.UID = name, types.UID(name)
		return p
	}
	orphan := func(p *corev1.Pod) { p.OwnerReferences = nil }
	other := func(p *corev1.Pod) { p.OwnerReferences[0].UID = "other" }
	relabel := func(p *corev1.Pod) { p.Labels["app"] = "db" }
	pods := []*corev1.Pod{
		mk("web-0"), mk("web-1", relabel), mk("web-2", other), mk("web-3", orphan), mk("webby-4", orphan), mk("web-5", orphan, deleting),
		mk("db-0"),
	}
	c := ownership.ClaimMatching(set, selects(set, sel), pods)
	names := func(ps []*corev1.Pod) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	if got := names(c.Owned); !slices.Equal(got, []string{"web-0", "web-3"}) {
		t.Errorf("owned %v", got)
	}
	if got := names(c.Adopt); !slices.Equal(got, []string{"web-3"}) {
		t.Errorf("adopt %v", got)
	}
	if got := names(c.Release); !slices.Equal(got, []string{"web-1", "db-0"}) {
		t.Errorf("release %v", got)
	}
}

// TestRevisionNameAsKube: revision names recorded from
// kube-controller-manager v1.33.13 (the oracle) for a StatefulSet named
// web whose template, as kube-apiserver defaults it, runs nginx with a
// claim mounted; the same template here must hash to the same names.
func TestRevisionNameAsKube(t *testing.T) {
	tests := []struct{ image, want string }{
		{"nginx:1.25", "web-b675d8466"},
		{"nginx:1.26", "web-594bbfff77"},
	}
	for _, tt := range tests {
		grace := int64(30)
		set := newSet(3)
		set.Spec.Template.Spec = corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "c", Image: tt.image, ImagePullPolicy: corev1.PullIfNotPresent,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
			DNSPolicy: corev1.DNSClusterFirst, RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: "default-scheduler",
			SecurityContext: &corev1.PodSecurityContext{}, TerminationGracePeriodSeconds: &grace,
		}
		rev, err := NewRevision(set, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rev.Name != tt.want {
			t.Errorf("%s: revision %s, want %s", tt.image, rev.Name, tt.want)
		}
	}
}
