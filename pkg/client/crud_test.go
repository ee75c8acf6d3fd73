package client_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

func TestConfigMapCRUD(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			c, rec := newClient(t, srv, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")

			cm := configMap("demo", "cfg", map[string]string{"a": "1"})
			if err := c.Create(ctx, cm); err != nil {
				t.Fatalf("Create: %v", err)
			}
			if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
				t.Fatalf("Create did not read back server fields: %+v", cm.ObjectMeta)
			}
			if got, want := cm.GroupVersionKind(), corev1.SchemeGroupVersion.WithKind("ConfigMap"); got != want {
				t.Errorf("created object kind %v, want %v", got, want)
			}

			// Get into an object that holds other content: none of it
			// may survive.
			got := configMap("stale", "stale", map[string]string{"stale": "x"})
			got.Labels = map[string]string{"stale": "x"}
			got.BinaryData = map[string][]byte{"stale": []byte("x")}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "cfg"}, got); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if got.Name != "cfg" || got.Namespace != "demo" || got.Labels != nil || got.BinaryData != nil ||
				!maps.Equal(got.Data, map[string]string{"a": "1"}) || got.ResourceVersion != cm.ResourceVersion {
				t.Errorf("Get: got %+v data %v binaryData %v, want cfg with only a=1 at %s", got.ObjectMeta, got.Data, got.BinaryData, cm.ResourceVersion)
			}

			stale := got.DeepCopy()
			got.Data["b"] = "2"
			if err := c.Update(ctx, got); err != nil {
				t.Fatalf("Update: %v", err)
			}
			if got.ResourceVersion == stale.ResourceVersion {
				t.Errorf("Update kept resourceVersion %s", got.ResourceVersion)
			}
			if err := c.Update(ctx, stale); !client.IsConflict(err) {
				t.Errorf("Update with a stale resourceVersion: got %v, want Conflict", err)
			}

			var list corev1.ConfigMapList
			list.Items = []corev1.ConfigMap{*configMap("stale", "left-over", nil)}
			if err := c.List(ctx, &list, client.InNamespace("demo")); err != nil {
				t.Fatalf("List: %v", err)
			}
			if got, want := strings.Join(names(ptrs(list.Items)), ","), "cfg"; got != want {
				t.Errorf("List names %q, want %q", got, want)
			}
			if list.ResourceVersion == "" || list.Items[0].Kind != "ConfigMap" || list.Items[0].Data["b"] != "2" {
				t.Errorf("List: rv %q, item %+v", list.ResourceVersion, list.Items[0])
			}

			if err := c.Delete(ctx, got); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "cfg"}, got); !client.IsNotFound(err) {
				t.Errorf("Get after Delete: got %v, want NotFound", err)
			}

			// The encoding asked for is the one used for configmaps.
			for _, ex := range rec.exchanges() {
				if !strings.Contains(ex.path, "/configmaps") || ex.responseCode >= 300 {
					continue
				}
				if got := mediaOnly(ex.responseType); ex.method != "DELETE" && got != mode.wantType {
					t.Errorf("%s %s answered as %q, want %q", ex.method, ex.path, got, mode.wantType)
				}
				if ex.requestType != "" && ex.method != "DELETE" && mediaOnly(ex.requestType) != mode.wantType {
					t.Errorf("%s %s sent as %q, want %q", ex.method, ex.path, ex.requestType, mode.wantType)
				}
			}
		})
	}
}

func mediaOnly(ct string) string { return strings.TrimSpace(strings.Split(ct, ";")[0]) }

func TestCustomResourceCRUD(t *testing.T) {
	c, _ := start(t, client.Options{})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	// The CRD goes as JSON (apiextensions is not a k8s.io/api group), and
	// its kind is used at once: the mapper has to refresh for it.
	if err := c.Create(ctx, widgetCRD()); err != nil {
		t.Fatalf("Create CRD: %v", err)
	}
	w := widget("demo", "w1", map[string]any{"size": int64(1)})
	if err := c.Create(ctx, w); err != nil {
		t.Fatalf("Create Widget right after its CRD: %v", err)
	}
	if w.GetUID() == "" || w.GetGeneration() != 1 {
		t.Errorf("created widget: uid %q generation %d", w.GetUID(), w.GetGeneration())
	}

	got := widget("other", "other", map[string]any{"stale": true})
	got.SetLabels(map[string]string{"stale": "x"})
	if err := c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "w1"}, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	spec, _, _ := unstructured.NestedMap(got.Object, "spec")
	if got.GetLabels() != nil || len(spec) != 1 || spec["size"] != int64(1) {
		t.Errorf("Get: labels %v spec %v, want no labels and spec {size: 1}", got.GetLabels(), spec)
	}

	_ = unstructured.SetNestedField(got.Object, int64(2), "spec", "size")
	if err := c.Update(ctx, got); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.GetGeneration() != 2 {
		t.Errorf("generation after a spec change %d, want 2", got.GetGeneration())
	}

	list := widgetList()
	if err := c.List(ctx, list, client.InNamespace("demo")); err != nil {
		t.Fatalf("List: %v", err)
	}
	if got, want := strings.Join(names(ptrs(list.Items)), ","), "w1"; got != want {
		t.Errorf("List names %q, want %q", got, want)
	}
	if err := c.Delete(ctx, got); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "w1"}, got); !client.IsNotFound(err) {
		t.Errorf("Get after Delete: got %v, want NotFound", err)
	}
}

func TestUpdateStatus(t *testing.T) {
	c, _ := start(t, client.Options{})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	if err := c.Create(ctx, widgetCRD()); err != nil {
		t.Fatal(err)
	}
	w := widget("demo", "w", map[string]any{"size": int64(1)})
	w.Object["status"] = map[string]any{"ready": false}
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name       string
		write      func(*unstructured.Unstructured) error
		wantStatus map[string]any
		wantSize   int64
	}{
		{"create drops status", func(*unstructured.Unstructured) error { return nil }, nil, 1},
		{"status write sets status only", func(u *unstructured.Unstructured) error {
			u.Object["status"] = map[string]any{"ready": true}
			_ = unstructured.SetNestedField(u.Object, int64(5), "spec", "size")
			return c.UpdateStatus(ctx, u)
		}, map[string]any{"ready": true}, 1},
		{"main write ignores status", func(u *unstructured.Unstructured) error {
			u.Object["status"] = map[string]any{"ready": false}
			_ = unstructured.SetNestedField(u.Object, int64(2), "spec", "size")
			return c.Update(ctx, u)
		}, map[string]any{"ready": true}, 2},
	}
	for _, st := range steps {
		if err := st.write(w); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		status, _, _ := unstructured.NestedMap(w.Object, "status")
		size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
		if !maps.Equal(status, st.wantStatus) || size != st.wantSize {
			t.Errorf("%s: got status %v size %d, want %v and %d", st.name, status, size, st.wantStatus, st.wantSize)
		}
	}
}

func TestClientSideErrors(t *testing.T) {
	c, _ := start(t, client.Options{})
	ctx := ctx(t)
	noKind := &unstructured.Unstructured{Object: map[string]any{}}
	noKind.SetName("x")
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"get without a name", func() error { return c.Get(ctx, types.NamespacedName{Namespace: "demo"}, &corev1.ConfigMap{}) }, client.ErrMissingName},
		{"get without a namespace", func() error { return c.Get(ctx, types.NamespacedName{Name: "x"}, &corev1.ConfigMap{}) }, client.ErrMissingNamespace},
		{"create without a namespace", func() error { return c.Create(ctx, configMap("", "x", nil)) }, client.ErrMissingNamespace},
		{"unstructured without a kind", func() error { return c.Create(ctx, noKind) }, client.ErrMissingKind},
		{"create metadata only", func() error {
			p := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "demo"}}
			p.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
			return c.Create(ctx, p)
		}, client.ErrMetadataOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.call(); !errors.Is(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
