package client_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

func TestApply(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			c, _ := start(t, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			if err := c.Create(ctx, widgetCRD()); err != nil {
				t.Fatal(err)
			}
			steps := []struct {
				name       string
				obj        client.Object
				opts       []client.WriteOption
				wantReason metav1.StatusReason
				check      func(t *testing.T, obj client.Object)
			}{
				{"without a manager", configMap("demo", "cm", map[string]string{"a": "1"}), nil, metav1.StatusReasonInvalid, nil},
				{"creates", configMap("demo", "cm", map[string]string{"a": "1"}),
					[]client.WriteOption{client.FieldManager("one")}, "", wantData(`map[a:1]`, "one")},
				{"changes its own field", configMap("demo", "cm", map[string]string{"a": "2"}),
					[]client.WriteOption{client.FieldManager("one")}, "", wantData(`map[a:2]`, "one")},
				{"conflicts with another manager", configMap("demo", "cm", map[string]string{"a": "3"}),
					[]client.WriteOption{client.FieldManager("two")}, metav1.StatusReasonConflict, nil},
				{"forced takes the field over", configMap("demo", "cm", map[string]string{"a": "3"}),
					[]client.WriteOption{client.FieldManager("two"), client.ForceOwnership}, "", wantData(`map[a:3]`, "two")},
				{"dry run", configMap("demo", "cm", map[string]string{"a": "4", "b": "1"}),
					[]client.WriteOption{client.FieldManager("two"), client.DryRunAll}, "", wantData(`map[a:4 b:1]`, "two")},
				{"unstructured custom object", widget("demo", "w", map[string]any{"size": int64(2)}),
					[]client.WriteOption{client.FieldManager("one")}, "", func(t *testing.T, obj client.Object) {
						if got := widgetSpec(obj); got.(map[string]any)["size"] != int64(2) {
							t.Errorf("got spec %v, want size 2", got)
						}
					}},
			}
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					err := client.Apply(ctx, c, s.obj, s.opts...)
					if got := client.ReasonForError(err); got != s.wantReason {
						t.Fatalf("Apply: got %v (reason %q), want reason %q", err, got, s.wantReason)
					}
					if s.check != nil {
						s.check(t, s.obj)
					}
				})
			}
			var cm corev1.ConfigMap
			if err := c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "cm"}, &cm); err != nil {
				t.Fatal(err)
			}
			if cm.Data["a"] != "3" || cm.Data["b"] != "" {
				t.Errorf("stored data %v, want the dry run left out", cm.Data)
			}
		})
	}
}

// wantData checks a ConfigMap's data and that manager applied it.
func wantData(data, manager string) func(t *testing.T, obj client.Object) {
	return func(t *testing.T, obj client.Object) {
		t.Helper()
		cm := obj.(*corev1.ConfigMap)
		if got := fmt.Sprint(cm.Data); got != data {
			t.Errorf("got data %s, want %s", got, data)
		}
		for _, e := range cm.ManagedFields {
			if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply {
				return
			}
		}
		t.Errorf("no Apply entry of %s in %+v", manager, cm.ManagedFields)
	}
}
