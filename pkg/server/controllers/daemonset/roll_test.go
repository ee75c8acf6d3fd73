package daemonset

import (
	"errors"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestRollBudget(t *testing.T) {
	five := nodes("n1", "n2", "n3", "n4", "n5")
	tests := []struct {
		name  string
		ds    *appsv1.DaemonSet
		nodes []*corev1.Node
		want  Budget
	}{
		{"defaults", newDS(), five, Budget{Desired: 5, MaxUnavailable: 1}},
		{"percentages round up", newDS(rolling("25%", "0")), five, Budget{Desired: 5, MaxUnavailable: 2}},
		{"surge rounds up", newDS(rolling("0", "10%")), five, Budget{Desired: 5, MaxSurge: 1}},
		{"both", newDS(rolling("50%", "50%")), five, Budget{Desired: 5, MaxSurge: 3, MaxUnavailable: 3}},
		{"neither allowed: one at a time", newDS(rolling("0", "0")), five, Budget{Desired: 5, MaxUnavailable: 1}},
		{"neither and no nodes", newDS(rolling("0", "0")), nil, Budget{}},
		{"only eligible nodes count", newDS(rolling("100%", "0"), selecting(map[string]string{"disk": "ssd"})),
			[]*corev1.Node{node("n1", labelledNode("disk", "ssd")), node("n2")}, Budget{Desired: 1, MaxUnavailable: 1}},
		{"OnDelete", newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		}), five, Budget{Desired: 5, MaxUnavailable: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RollBudget(tt.ds, tt.nodes)
			if err != nil || got != tt.want {
				t.Errorf("RollBudget = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := RollBudget(newDS(rolling("x%", "0")), five); err == nil {
		t.Error("a malformed maxUnavailable was accepted")
	}
}

func TestRoll(t *testing.T) {
	three := nodes("n1", "n2", "n3")
	oldPods := func(opts ...func(*corev1.Pod)) []*corev1.Pod {
		return []*corev1.Pod{pod("a", "n1", append([]func(*corev1.Pod){old}, opts...)...), pod("b", "n2", old), pod("c", "n3", old)}
	}
	fresh := func(p *corev1.Pod) { readyAt(t0.Add(-time.Second))(p); createdAt(t0)(p) }
	ssd := labelledNode("disk", "ssd")
	tests := []struct {
		name       string
		ds         *appsv1.DaemonSet
		nodes      []*corev1.Node
		pods       []*corev1.Pod
		wantCreate []string
		wantDelete []string
	}{
		{"maxUnavailable 1: one old pod at a time", newDS(), three, oldPods(), nil, []string{"a"}},
		{"maxUnavailable 2", newDS(rolling("2", "0")), three, oldPods(), nil, []string{"a", "b"}},
		{"percentage rounds up", newDS(rolling("50%", "0")), three, oldPods(), nil, []string{"a", "b"}},
		{"a new pod not yet available uses the budget", newDS(rolling("1", "0"), minReady(30)), three,
			[]*corev1.Pod{pod("a", "n1", fresh), pod("b", "n2", old), pod("c", "n3", old)}, nil, []string{}},
		{"a new available pod frees it", newDS(rolling("1", "0"), minReady(30)), three,
			[]*corev1.Pod{pod("a", "n1"), pod("b", "n2", old), pod("c", "n3", old)}, nil, []string{"b"}},
		{"an unavailable old pod is replaced beyond the budget", newDS(), three,
			[]*corev1.Pod{pod("a", "n1", old), pod("b", "n2", old, notReady), pod("c", "n3", old, notReady)}, nil, []string{"b", "c"}},
		{"a node without a pod counts as unavailable", newDS(), three,
			[]*corev1.Pod{pod("b", "n2", old), pod("c", "n3", old)}, nil, []string{}},
		{"a node with two pods counts as unavailable", newDS(rolling("2", "0")), three,
			[]*corev1.Pod{pod("a", "n1", old), pod("a2", "n1", old), pod("b", "n2", old), pod("c", "n3", old)}, nil, []string{"b"}},
		{"done", newDS(), three, []*corev1.Pod{pod("a", "n1"), pod("b", "n2"), pod("c", "n3")}, nil, []string{}},
		{"template generation counts as updated", newDS(), three,
			[]*corev1.Pod{pod("a", "n1", old, func(p *corev1.Pod) { p.Labels["pod-template-generation"] = "2" }), pod("b", "n2", old), pod("c", "n3", old)}, nil, []string{"b"}},

		{"surge 1: a new pod beside the first old one", newDS(rolling("0", "1")), three, oldPods(), []string{"n1"}, nil},
		{"surge 2", newDS(rolling("0", "2")), three, oldPods(), []string{"n1", "n2"}, nil},
		{"surge: waiting for the new pod", newDS(rolling("0", "1"), minReady(30)), three,
			append(oldPods(), pod("a-new", "n1", fresh)), nil, nil},
		{"surge: new available, old goes, next surges", newDS(rolling("0", "1")), three,
			append(oldPods(), pod("a-new", "n1")), []string{"n2"}, []string{"a"}},
		{"surge: an unavailable old pod gets a new one beyond the budget", newDS(rolling("0", "1")), three,
			[]*corev1.Pod{pod("a", "n1", old), pod("b", "n2", old, notReady), pod("c", "n3", old, notReady)}, []string{"n2", "n3", "n1"}, nil},
		{"surge: an unavailable old pod on a node that no longer fits goes", newDS(rolling("0", "1"), selecting(map[string]string{"disk": "ssd"})),
			[]*corev1.Node{node("n1", ssd), node("n2")}, []*corev1.Pod{pod("a", "n1", old), pod("b", "n2", old, notReady)}, []string{"n1"}, []string{"b"}},
		{"surge: an available misplaced pod stays while it is needed", newDS(rolling("0", "1"), selecting(map[string]string{"disk": "ssd"})),
			[]*corev1.Node{node("n1", ssd), node("n2")}, []*corev1.Pod{pod("b", "n2", old)}, nil, nil},
		{"surge: a misplaced pod goes once enough are available", newDS(rolling("0", "1"), selecting(map[string]string{"disk": "ssd"})),
			[]*corev1.Node{node("n1", ssd), node("n2")}, []*corev1.Pod{pod("a", "n1"), pod("b", "n2", old)}, nil, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := RollBudget(tt.ds, tt.nodes)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Roll(tt.ds, tt.nodes, GroupByNode(tt.pods), curHash, b, t0)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Create, tt.wantCreate) {
				t.Errorf("create on %v, want %v", c.Create, tt.wantCreate)
			}
			want := tt.wantDelete
			if want == nil && c.Delete != nil {
				want = []string{}
			}
			if got := podNames(c.Delete); !reflect.DeepEqual(got, orEmpty(want)) {
				t.Errorf("delete %v, want %v", got, want)
			}
		})
	}
}

func TestRollNodeGone(t *testing.T) {
	tests := []struct {
		name    string
		ds      *appsv1.DaemonSet
		wantErr bool
	}{
		{"without surge the manage loop handles it", newDS(), false},
		{"surging stops", newDS(rolling("0", "1")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := nodes("n1")
			b, err := RollBudget(tt.ds, ns)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Roll(tt.ds, ns, GroupByNode([]*corev1.Pod{pod("a", "n1", old), pod("lost", "n9", old)}), curHash, b, t0)
			var gone *NodeGoneError
			if got := errors.As(err, &gone) && gone.Node == "n9"; got != tt.wantErr {
				t.Errorf("Roll error %v, want a NodeGoneError for n9: %v", err, tt.wantErr)
			}
		})
	}
}
