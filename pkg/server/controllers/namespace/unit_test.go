package namespace

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

func TestFailureMessages(t *testing.T) {
	out := &outcome{
		discoveryErr: errors.New("discovery down"),
		deleteErrs:   []error{errors.New("widgets.example.com: boom"), errors.New("configmaps: bang")},
		remaining: map[schema.GroupResource]int{
			{Resource: "configmaps"}:                    3,
			{Group: "example.com", Resource: "widgets"}: 2,
			{Group: "example.com", Resource: "gadgets"}: 0,
			{Group: "apps", Resource: "deployments"}:    1,
		},
		finalizers: map[string]int{"example.com/b": 1, "example.com/a": 4},
	}
	want := map[corev1.NamespaceConditionType][2]string{
		corev1.NamespaceDeletionDiscoveryFailure: {ReasonDiscoveryFailed, "discovery down"},
		corev1.NamespaceDeletionContentFailure:   {ReasonContentDeletionFailed, "Failed to delete all resource types, 2 remaining: [configmaps: bang, widgets.example.com: boom]"},
		corev1.NamespaceContentRemaining: {ReasonSomeResourcesRemain,
			"Some resources are remaining: configmaps. has 3 resource instances, deployments.apps has 1 resource instances, widgets.example.com has 2 resource instances"},
		corev1.NamespaceFinalizersRemaining: {ReasonSomeFinalizersRemain,
			"Some content in the namespace has finalizers remaining: example.com/a in 4 resource instances, example.com/b in 1 resource instances"},
	}
	got := out.failures()
	if len(got) != len(want) {
		t.Fatalf("%d conditions, want %d: %+v", len(got), len(want), got)
	}
	for _, c := range got {
		w := want[c.Type]
		if c.Status != corev1.ConditionTrue || c.Reason != w[0] || c.Message != w[1] {
			t.Errorf("%s: %s %s %q, want True %s %q", c.Type, c.Status, c.Reason, c.Message, w[0], w[1])
		}
	}
	if n := out.total(); n != 6 {
		t.Errorf("total %d, want 6", n)
	}
}

// TestSetConditions checks that a condition's transition time moves
// with its status only, and that an unchanged report changes nothing.
func TestSetConditions(t *testing.T) {
	t0 := metav1.NewTime(time.Unix(1000, 0))
	t1 := metav1.NewTime(time.Unix(2000, 0))
	t2 := metav1.NewTime(time.Unix(3000, 0))
	other := corev1.NamespaceCondition{Type: "Other", Status: corev1.ConditionTrue}
	st := corev1.NamespaceStatus{Conditions: []corev1.NamespaceCondition{other}}
	held := func(n int) []corev1.NamespaceCondition {
		out := &outcome{finalizers: map[string]int{"f": n}}
		return out.failures()
	}
	if !setConditions(&st, held(2), t0) {
		t.Fatal("first report changed nothing")
	}
	if len(st.Conditions) != 1+len(conditionTypes) || st.Conditions[0] != other {
		t.Fatalf("conditions %+v", st.Conditions)
	}
	if setConditions(&st, held(2), t1) {
		t.Error("the same report changed something")
	}
	if !setConditions(&st, held(1), t1) {
		t.Error("a new message changed nothing")
	}
	c, _ := condition(&corev1.Namespace{Status: st}, corev1.NamespaceFinalizersRemaining)
	if !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("a message change moved lastTransitionTime to %v", c.LastTransitionTime)
	}
	setConditions(&st, nil, t2)
	c, _ = condition(&corev1.Namespace{Status: st}, corev1.NamespaceFinalizersRemaining)
	if c.Status != corev1.ConditionFalse || !c.LastTransitionTime.Equal(&t2) || c.Reason != "ContentHasNoFinalizers" {
		t.Errorf("after the finalizers went: %+v", c)
	}
	d, _ := condition(&corev1.Namespace{Status: st}, corev1.NamespaceDeletionDiscoveryFailure)
	if !d.LastTransitionTime.Equal(&t0) {
		t.Errorf("an unchanged condition moved to %v", d.LastTransitionTime)
	}
}

func TestDeletableKinds(t *testing.T) {
	res := func(g, v, r, k string, namespaced bool, verbs ...string) client.Resource {
		return client.Resource{GVR: schema.GroupVersionResource{Group: g, Version: v, Resource: r}, Kind: k, Namespaced: namespaced, Verbs: verbs}
	}
	all := []string{"list", "delete", "deletecollection"}
	got := deletableKinds([]client.Resource{
		res("", "v1", "namespaces", "Namespace", false, all...),
		res("", "v1", "configmaps", "ConfigMap", true, all...),
		res("example.com", "v2", "widgets", "Widget", true, all...),
		res("example.com", "v1", "widgets", "Widget", true, all...),
		res("example.com", "v1", "gadgets", "Gadget", true, "list", "delete"),
		res("example.com", "v1", "reviews", "Review", true, "create"),
	})
	want := []kind{
		{gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, gr: schema.GroupResource{Resource: "configmaps"}, collection: true},
		{gvk: schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}, gr: schema.GroupResource{Group: "example.com", Resource: "widgets"}, collection: true},
		{gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}, gr: schema.GroupResource{Group: "example.com", Resource: "gadgets"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("kind %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
