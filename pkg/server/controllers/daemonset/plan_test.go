package daemonset

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestPlan(t *testing.T) {
	three := nodes("n1", "n2", "n3")
	ssd := func(n *corev1.Node) { n.Labels["disk"] = "ssd" }
	surge := rolling("0", "1")
	tests := []struct {
		name          string
		ds            *appsv1.DaemonSet
		nodes         []*corev1.Node
		pods          PodsByNode
		wantCreate    []string
		wantDelete    []string
		wantFailed    []string
		wantSucceeded []string
	}{
		{"no pods", newDS(), three, byNode(), []string{"n1", "n2", "n3"}, nil, nil, nil},
		{"one node served", newDS(), three, byNode(pod("a", "n1")), []string{"n2", "n3"}, nil, nil, nil},
		{"all served", newDS(), three, byNode(pod("a", "n1"), pod("b", "n2"), pod("c", "n3")), nil, nil, nil, nil},
		{"two on a node: the younger goes", newDS(), nodes("n1"),
			byNode(pod("young", "n1", createdAt(t0)), pod("old", "n1")), nil, []string{"young"}, nil, nil},
		{"two on a node: the unscheduled goes", newDS(), nodes("n1"),
			byNode(pod("waiting", "n1", createdAt(t0.Add(-2*time.Hour)), pinned), pod("bound", "n1")), nil, []string{"waiting"}, nil, nil},
		{"failed pod held for the back-off", newDS(), nodes("n1"), byNode(pod("f", "n1", phase(corev1.PodFailed))), nil, nil, []string{"f"}, nil},
		{"succeeded pod deleted", newDS(), nodes("n1"), byNode(pod("s", "n1", phase(corev1.PodSucceeded))), nil, []string{"s"}, nil, []string{"s"}},
		{"a pod going: wait for it", newDS(), nodes("n1"), byNode(pod("d", "n1", deleting)), nil, nil, nil, nil},
		{"finished and going: forgotten, replaced", newDS(), nodes("n1"), byNode(pod("d", "n1", deleting, phase(corev1.PodFailed))), []string{"n1"}, nil, nil, nil},
		{"selector excludes a node: its pod goes", newDS(selecting(map[string]string{"disk": "ssd"})),
			[]*corev1.Node{node("n1", ssd), node("n2")}, byNode(pod("a", "n1"), pod("b", "n2")), nil, []string{"b"}, nil, nil},
		{"selector excludes a node: none made there", newDS(selecting(map[string]string{"disk": "ssd"})),
			[]*corev1.Node{node("n1", ssd), node("n2")}, byNode(), []string{"n1"}, nil, nil, nil},
		{"NoSchedule taint: pod stays, none made", newDS(),
			[]*corev1.Node{node("n1", tainted("x", corev1.TaintEffectNoSchedule)), node("n2", tainted("x", corev1.TaintEffectNoSchedule))},
			byNode(pod("a", "n1")), nil, nil, nil, nil},
		{"NoExecute taint: pod goes", newDS(), []*corev1.Node{node("n1", tainted("x", corev1.TaintEffectNoExecute))},
			byNode(pod("a", "n1")), nil, []string{"a"}, nil, nil},
		{"node gone: the unscheduled pod goes, the bound one is podgc's", newDS(), nodes("n1"),
			byNode(pod("a", "n1"), pod("lost", "n9", pinned), pod("bound", "n8")), nil, []string{"lost"}, nil, nil},
		{"surge: failed pod replaced at once", newDS(surge), nodes("n1"), byNode(pod("f", "n1", phase(corev1.PodFailed))), []string{"n1"}, nil, []string{"f"}, nil},
		{"surge: old ready, new not yet available: both stay", newDS(surge, minReady(60)), nodes("n1"),
			byNode(pod("old", "n1", old), pod("new", "n1", createdAt(t0), readyAt(t0.Add(-time.Second)))), nil, nil, nil, nil},
		{"surge: new available: old goes", newDS(surge, minReady(60)), nodes("n1"),
			byNode(pod("old", "n1", old), pod("new", "n1", createdAt(t0), readyAt(t0.Add(-2*time.Minute)))), nil, []string{"old"}, nil, nil},
		{"surge: old not ready: old goes", newDS(surge), nodes("n1"),
			byNode(pod("old", "n1", old, notReady), pod("new", "n1", createdAt(t0), notReady)), nil, []string{"old"}, nil, nil},
		{"surge: two new: the younger goes", newDS(surge), nodes("n1"),
			byNode(pod("a", "n1"), pod("b", "n1", createdAt(t0))), nil, []string{"b"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, failed, succeeded := Plan(tt.ds, tt.nodes, tt.pods, curHash, t0)
			if !reflect.DeepEqual(c.Create, tt.wantCreate) {
				t.Errorf("create on %v, want %v", c.Create, tt.wantCreate)
			}
			if got := podNames(c.Delete); !reflect.DeepEqual(got, orEmpty(tt.wantDelete)) {
				t.Errorf("delete %v, want %v", got, tt.wantDelete)
			}
			if got := podNames(failed); !reflect.DeepEqual(got, orEmpty(tt.wantFailed)) {
				t.Errorf("failed %v, want %v", got, tt.wantFailed)
			}
			if got := podNames(succeeded); !reflect.DeepEqual(got, orEmpty(tt.wantSucceeded)) {
				t.Errorf("succeeded %v, want %v", got, tt.wantSucceeded)
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestGroupByNode(t *testing.T) {
	got := GroupByNode([]*corev1.Pod{
		pod("a", "n1"), pod("b", "n2", pinned), pod("c", "n1", phase(corev1.PodSucceeded), deleting), pod("d", "n1", deleting),
		pod("e", "", func(p *corev1.Pod) { p.Spec.Affinity = nil }),
	})
	want := map[string][]string{"n1": {"a", "d"}, "n2": {"b"}}
	if len(got) != len(want) {
		t.Fatalf("nodes %v, want %v", got, want)
	}
	for n, names := range want {
		if g := podNames(got[n]); !reflect.DeepEqual(g, names) {
			t.Errorf("node %s: %v, want %v", n, g, names)
		}
	}
}
