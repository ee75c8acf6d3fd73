package daemonset

import (
	"reflect"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func revision(t *testing.T, ds *appsv1.DaemonSet, hash string, n int64) *appsv1.ControllerRevision {
	t.Helper()
	r, err := Snapshot(ds, hash, n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSnapshot(t *testing.T) {
	ds := newDS()
	r := revision(t, ds, "h1", 4)
	if r.Name != "agent-h1" || r.Namespace != "ns" || r.Revision != 4 {
		t.Errorf("name %s/%s revision %d", r.Namespace, r.Name, r.Revision)
	}
	if want := map[string]string{"app": "agent", "controller-revision-hash": "h1"}; !reflect.DeepEqual(r.Labels, want) {
		t.Errorf("labels %v, want %v", r.Labels, want)
	}
	if !reflect.DeepEqual(r.Annotations, ds.Annotations) {
		t.Errorf("annotations %v, want the DaemonSet's", r.Annotations)
	}
	if ref := metav1.GetControllerOf(r); ref == nil || ref.UID != ds.UID {
		t.Errorf("controller %+v", ref)
	}
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"image":"agent:1","name":"c","resources":{}}]}}}}`
	if string(r.Data.Raw) != want {
		t.Errorf("data %s\nwant %s", r.Data.Raw, want)
	}
}

func TestSplitHistory(t *testing.T) {
	ds := newDS()
	v1 := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:0" })
	v0 := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:-1" })
	tests := []struct {
		name        string
		revs        []*appsv1.ControllerRevision
		wantCurrent []string
		wantOld     []string
		wantNext    int64
		wantKeep    string
	}{
		{"none", nil, nil, nil, 1, ""},
		{"only old", []*appsv1.ControllerRevision{revision(t, v0, "a", 1), revision(t, v1, "b", 2)}, nil, []string{"agent-a", "agent-b"}, 3, ""},
		{"current among old", []*appsv1.ControllerRevision{revision(t, v0, "a", 1), revision(t, ds, "c", 3), revision(t, v1, "b", 2)},
			[]string{"agent-c"}, []string{"agent-a", "agent-b"}, 3, "agent-c"},
		{"rolled back: current renumbered", []*appsv1.ControllerRevision{revision(t, ds, "c", 1), revision(t, v1, "b", 2)},
			[]string{"agent-c"}, []string{"agent-b"}, 3, "agent-c"},
		{"duplicates: the highest kept", []*appsv1.ControllerRevision{revision(t, ds, "c", 5), revision(t, ds, "d", 4)},
			[]string{"agent-c", "agent-d"}, nil, 1, "agent-c"},
	}
	names := func(rs []*appsv1.ControllerRevision) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := SplitHistory(ds, tt.revs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(names(h.Current), tt.wantCurrent) || !reflect.DeepEqual(names(h.Old), tt.wantOld) || h.Next != tt.wantNext {
				t.Errorf("current %v old %v next %d; want %v %v %d", names(h.Current), names(h.Old), h.Next, tt.wantCurrent, tt.wantOld, tt.wantNext)
			}
			keep := ""
			if k := h.Keep(); k != nil {
				keep = k.Name
			}
			if keep != tt.wantKeep {
				t.Errorf("keep %q, want %q", keep, tt.wantKeep)
			}
		})
	}
}

func TestPrune(t *testing.T) {
	limit := func(n int32) func(*appsv1.DaemonSet) {
		return func(ds *appsv1.DaemonSet) { ds.Spec.RevisionHistoryLimit = &n }
	}
	var old []*appsv1.ControllerRevision
	for i, h := range []string{"e", "a", "d", "b", "c"} { // revisions 5, 1, 4, 2, 3
		r := revision(t, newDS(), h, []int64{5, 1, 4, 2, 3}[i])
		old = append(old, r)
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		live map[string]bool
		want []string
	}{
		{"within the default limit", newDS(), nil, nil},
		{"limit 2: the oldest three go", newDS(limit(2)), nil, []string{"agent-a", "agent-b", "agent-c"}},
		{"a live revision is spared", newDS(limit(2)), map[string]bool{"b": true}, []string{"agent-a", "agent-c", "agent-d"}},
		{"limit 0, all live", newDS(limit(0)), map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range Prune(tt.ds, old, tt.live) {
				got = append(got, r.Name)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Prune = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClaim(t *testing.T) {
	ds := newDS()
	other := map[string]string{"app": "other"}
	relabel := func(p *corev1.Pod) { p.Labels = other }
	orphan := func(p *corev1.Pod) { p.OwnerReferences = nil }
	theirs := func(p *corev1.Pod) { p.OwnerReferences[0].UID = "other-uid" }
	pods := []*corev1.Pod{
		pod("mine", "n1"), pod("mine-unmatched", "n1", relabel), pod("theirs", "n1", theirs),
		pod("orphan", "n1", orphan), pod("orphan-unmatched", "n1", orphan, relabel), pod("orphan-deleting", "n1", orphan, deleting),
		pod("elsewhere", "n1", orphan, func(p *corev1.Pod) { p.Namespace = "other" }),
	}
	sel := labels.SelectorFromSet(map[string]string{"app": "agent"})
	tests := []struct {
		name        string
		deleting    bool
		wantOwned   []string
		wantAdopt   []string
		wantRelease []string
	}{
		{"live", false, []string{"mine", "orphan"}, []string{"orphan"}, []string{"mine-unmatched"}},
		{"being deleted", true, []string{"mine"}, []string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ds.DeepCopy()
			if tt.deleting {
				ts := metav1.NewTime(t0)
				d.DeletionTimestamp = &ts
			}
			c := ownership.Claim(d, sel, pods)
			if got := podNames(c.Owned); !reflect.DeepEqual(got, tt.wantOwned) {
				t.Errorf("owned %v, want %v", got, tt.wantOwned)
			}
			if got := podNames(c.Adopt); !reflect.DeepEqual(got, tt.wantAdopt) {
				t.Errorf("adopt %v, want %v", got, tt.wantAdopt)
			}
			if got := podNames(c.Release); !reflect.DeepEqual(got, tt.wantRelease) {
				t.Errorf("release %v, want %v", got, tt.wantRelease)
			}
		})
	}
}
