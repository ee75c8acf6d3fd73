package client_test

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

func TestPatch(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			c, _ := start(t, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			if err := c.Create(ctx, widgetCRD()); err != nil {
				t.Fatal(err)
			}
			if err := c.Create(ctx, configMap("demo", "cm", map[string]string{"a": "1"})); err != nil {
				t.Fatal(err)
			}
			if err := c.Create(ctx, widget("demo", "w", map[string]any{"size": int64(1)})); err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				name       string
				obj        client.Object
				patchType  types.PatchType
				patch      string
				want       string // JSON of the patched field
				field      func(client.Object) any
				wantReason metav1.StatusReason
			}{
				{"json patch", configMap("demo", "cm", nil), types.JSONPatchType,
					`[{"op":"add","path":"/data/b","value":"2"}]`, `{"a":"1","b":"2"}`, cmData, ""},
				{"merge patch", configMap("demo", "cm", nil), types.MergePatchType,
					`{"data":{"a":null,"c":"3"}}`, `{"b":"2","c":"3"}`, cmData, ""},
				{"strategic merge patch", configMap("demo", "cm", nil), types.StrategicMergePatchType,
					`{"metadata":{"labels":{"x":"y"}},"data":{"d":"4"}}`, `{"b":"2","c":"3","d":"4"}`, cmData, ""},
				{"merge patch on a custom resource", widget("demo", "w", nil), types.MergePatchType,
					`{"spec":{"size":3}}`, `{"size":3}`, widgetSpec, ""},
				{"json patch on a custom resource", widget("demo", "w", nil), types.JSONPatchType,
					`[{"op":"replace","path":"/spec/size","value":4}]`, `{"size":4}`, widgetSpec, ""},
				{"strategic merge patch on a custom resource", widget("demo", "w", nil), types.StrategicMergePatchType,
					`{"spec":{"size":5}}`, "", nil, metav1.StatusReasonUnsupportedMediaType},
				{"failing json patch", configMap("demo", "cm", nil), types.JSONPatchType,
					`[{"op":"test","path":"/data/a","value":"nope"}]`, "", nil, metav1.StatusReasonInvalid},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					err := c.Patch(ctx, tt.obj, tt.patchType, []byte(tt.patch))
					if got := client.ReasonForError(err); tt.wantReason != "" || err != nil {
						if got != tt.wantReason {
							t.Fatalf("Patch: got %v (reason %q), want reason %q", err, got, tt.wantReason)
						}
						return
					}
					b, _ := json.Marshal(tt.field(tt.obj))
					if string(b) != tt.want {
						t.Errorf("patched: got %s, want %s", b, tt.want)
					}
				})
			}
		})
	}
}

func cmData(o client.Object) any { return o.(*corev1.ConfigMap).Data }

func widgetSpec(o client.Object) any {
	return o.(interface{ UnstructuredContent() map[string]any }).UnstructuredContent()["spec"]
}
