package generic_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// gizmoStrategy is a kind with graceful deletion and a binding, the way
// Pods have them: a scheduled gizmo waits its spec's grace period (30 s
// unless set); binding sets spec.node once.
type gizmoStrategy struct{}

func (gizmoStrategy) PrepareForCreate(time.Time, map[string]any) field.ErrorList { return nil }
func (gizmoStrategy) PrepareForUpdate(time.Time, map[string]any, map[string]any) field.ErrorList {
	return nil
}

func (gizmoStrategy) GracePeriod(obj map[string]any, requested *int64) int64 {
	if node, _, _ := unstructured.NestedString(obj, "spec", "node"); node == "" {
		return 0
	}
	if requested != nil {
		return *requested
	}
	return 30
}

func (gizmoStrategy) ValidateBinding(b map[string]any) field.ErrorList {
	if name, _, _ := unstructured.NestedString(b, "target", "name"); name == "" {
		return field.ErrorList{field.Required(field.NewPath("target", "name"), "")}
	}
	return nil
}

func (gizmoStrategy) Bind(_ time.Time, obj, b map[string]any) error {
	if node, _, _ := unstructured.NestedString(obj, "spec", "node"); node != "" {
		return errors.New("gizmo is already assigned to node " + node)
	}
	name, _, _ := unstructured.NestedString(b, "target", "name")
	return unstructured.SetNestedField(obj, name, "spec", "node")
}

type fixture struct {
	store *generic.Store
	res   *registry.Resource
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	res := &registry.Resource{Group: "example.com", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
		Plural: "gizmos", Singular: "gizmo", Strategy: gizmoStrategy{}}
	f := &fixture{res: res, now: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)}
	f.store = generic.New(generic.Config{Storage: memory.New(), Registry: registry.New(res), Now: func() time.Time { return f.now }})
	return f
}

func (f *fixture) create(t *testing.T, name, node string, finalizers ...string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gizmo"}}
	u.SetName(name)
	u.SetFinalizers(finalizers)
	if node != "" {
		_ = unstructured.SetNestedField(u.Object, node, "spec", "node")
	}
	if _, err := f.store.Create(context.Background(), f.res, "", u, generic.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func seconds(n int64) *int64 { return &n }

// TestGracefulDelete follows kube-apiserver's rules: a first delete
// starts the grace period; a later one only shortens it, never moving
// deletionTimestamp into the past; 0 deletes at once unless finalizers
// hold the object.
func TestGracefulDelete(t *testing.T) {
	type step struct {
		after     time.Duration // clock advance before the delete
		requested *int64
		wantGone  bool
		wantGrace int64         // deletionGracePeriodSeconds when not gone
		wantEnd   time.Duration // deletionTimestamp - start, when not gone
	}
	tests := []struct {
		name       string
		node       string
		finalizers []string
		steps      []step
	}{
		{name: "unscheduled goes at once", steps: []step{{wantGone: true}}},
		{name: "default period, then a shorter one, a longer one, then none", node: "n1", steps: []step{
			{wantGrace: 30, wantEnd: 30 * time.Second},
			{after: 5 * time.Second, requested: seconds(10), wantGrace: 10, wantEnd: 10 * time.Second},
			{requested: seconds(20), wantGrace: 10, wantEnd: 10 * time.Second},
			{wantGrace: 10, wantEnd: 10 * time.Second},
			{requested: seconds(0), wantGone: true},
		}},
		{name: "a shortened period already over ends now, as 1 s", node: "n1", steps: []step{
			{wantGrace: 30, wantEnd: 30 * time.Second},
			{after: 20 * time.Second, requested: seconds(5), wantGrace: 1, wantEnd: 20 * time.Second},
		}},
		{name: "force with finalizers keeps the object", node: "n1", finalizers: []string{"example.com/hold"}, steps: []step{
			{wantGrace: 30, wantEnd: 30 * time.Second},
			{after: time.Second, requested: seconds(0), wantGrace: 0, wantEnd: time.Second},
		}},
		{name: "requested zero first", node: "n1", steps: []step{{requested: seconds(0), wantGone: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.create(t, "g", tt.node, tt.finalizers...)
			start := f.now
			for i, s := range tt.steps {
				f.now = f.now.Add(s.after)
				out, err := f.store.Delete(context.Background(), f.res, "", "g", generic.DeleteOptions{GracePeriodSeconds: s.requested})
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if out.Gone != s.wantGone {
					t.Fatalf("step %d: gone = %v, want %v", i, out.Gone, s.wantGone)
				}
				if s.wantGone {
					continue
				}
				grace := out.Object.GetDeletionGracePeriodSeconds()
				ts := out.Object.GetDeletionTimestamp()
				if grace == nil || ts == nil {
					t.Fatalf("step %d: deletion not started: %v", i, out.Object.Object["metadata"])
				}
				if *grace != s.wantGrace || !ts.Time.Equal(start.Add(s.wantEnd)) {
					t.Errorf("step %d: grace %d ending %s, want %d ending %s", i, *grace, ts.Sub(start), s.wantGrace, s.wantEnd)
				}
			}
		})
	}
}

func TestBind(t *testing.T) {
	binding := func(name, target, uid string) map[string]any {
		b := map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": name}}
		if target != "" {
			b["target"] = map[string]any{"kind": "Node", "name": target}
		}
		if uid != "" {
			b["metadata"].(map[string]any)["uid"] = uid
		}
		return b
	}
	tests := []struct {
		name     string
		node     string // already bound to
		binding  map[string]any
		wantCode int32
		wantMsg  string
	}{
		{name: "binds", binding: binding("g", "n1", "")},
		{name: "already bound", node: "n0", binding: binding("g", "n1", ""), wantCode: 409,
			wantMsg: `Operation cannot be fulfilled on gizmos/binding.example.com "g": gizmo is already assigned to node n0`},
		{name: "name differs", binding: binding("other", "n1", ""), wantCode: 400, wantMsg: "name in URL does not match name in Binding object"},
		{name: "no target", binding: binding("g", "", ""), wantCode: 500, wantMsg: "target.name: Required value"},
		{name: "uid precondition", binding: binding("g", "n1", "not-the-uid"), wantCode: 409},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.create(t, "g", tt.node)
			err := f.store.Bind(context.Background(), f.res, "", "g", tt.binding, false)
			if tt.wantCode == 0 {
				if err != nil {
					t.Fatal(err)
				}
				o, err := f.store.Get(context.Background(), f.res, "", "g", generic.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				u, _ := generic.ParseObject(o.JSON)
				if got, _, _ := unstructured.NestedString(u.Object, "spec", "node"); got != "n1" {
					t.Errorf("spec.node = %q, want n1", got)
				}
				return
			}
			var se *apierror.StatusError
			if !errors.As(err, &se) || se.Status.Code != tt.wantCode {
				t.Fatalf("got %v, want a %d Status", err, tt.wantCode)
			}
			if tt.wantMsg != "" && se.Status.Message != tt.wantMsg {
				t.Errorf("message %q, want %q", se.Status.Message, tt.wantMsg)
			}
		})
	}
}
