package generic

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// TestRememberedCreate: a create whose shape was seen gets the managed
// fields the field manager itself computes for it; one of another shape
// (another label, list element or manager) is computed anew.
func TestRememberedCreate(t *testing.T) {
	reg := registry.New(registry.Builtin()...)
	s := New(Config{Registry: reg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	pods, _ := reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	cms, _ := reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	pod := func(name, image string, ports ...int64) string {
		var ps []map[string]any
		for _, p := range ports {
			ps = append(ps, map[string]any{"containerPort": p, "protocol": "TCP"})
		}
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"app": "x"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": image, "ports": ps}}}})
		return string(b)
	}
	cm := func(name string, labels ...string) string {
		l := map[string]any{}
		for _, k := range labels {
			l[k] = "v-" + name
		}
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "labels": l}, "data": map[string]any{"k": name}})
		return string(b)
	}
	tests := []struct {
		name       string
		res        *registry.Resource
		manager    string
		first, obj string
		remembered bool
	}{
		{"config map, same shape", cms, "m", cm("a", "app"), cm("b", "app"), true},
		{"config map, another label", cms, "m", cm("a", "app"), cm("b", "app", "tier"), false},
		{"config map, another manager", cms, "n", cm("a", "app"), cm("b", "app"), false},
		{"pod, same template", pods, "m", pod("a", "nginx", 80), pod("b", "nginx", 80), true},
		{"pod, another port", pods, "m", pod("a", "nginx", 80), pod("b", "nginx", 81), false},
		{"pod, two ports", pods, "m", pod("a", "nginx", 80), pod("b", "nginx", 80, 443), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.fields.shapes = shapeEntries{}
			parse := func(j string) *unstructured.Unstructured {
				u, err := ParseObject([]byte(j))
				if err != nil {
					t.Fatal(err)
				}
				return u
			}
			s.track(tt.res, registry.SubresourceNone, nil, parse(tt.first), "m")
			gen, _ := reg.Changed()
			key := createShapeKey(gen, tt.res, registry.SubresourceNone, tt.manager, parse(tt.obj).Object)
			if remembered := s.fields.shapes.get(key) != nil; remembered != tt.remembered {
				t.Errorf("remembered = %v, want %v", remembered, tt.remembered)
			}
			got := s.track(tt.res, registry.SubresourceNone, nil, parse(tt.obj), tt.manager)
			// What the field manager computes for the object itself.
			fresh := New(Config{Registry: reg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			want := fresh.track(tt.res, registry.SubresourceNone, nil, parse(tt.obj), tt.manager)
			if g, w := managedWithoutTime(t, got), managedWithoutTime(t, want); g != w {
				t.Errorf("managedFields\n got %s\nwant %s", g, w)
			}
		})
	}
}

func managedWithoutTime(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	entries, _, _ := unstructured.NestedSlice(u.Object, "metadata", "managedFields")
	if len(entries) != 1 {
		t.Fatalf("managedFields %v, want one entry", entries)
	}
	e := entries[0].(map[string]any)
	if e["time"] == nil {
		t.Fatalf("entry %v has no time", e)
	}
	delete(e, "time")
	b, _ := json.Marshal(entries)
	return string(b)
}
