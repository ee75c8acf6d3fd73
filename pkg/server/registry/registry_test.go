package registry

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func builtin(group, plural string) *Resource {
	for _, r := range Builtin() {
		if r.Group == group && r.Plural == plural {
			return r
		}
	}
	panic("no built-in " + plural)
}

func TestKeys(t *testing.T) {
	tests := []struct {
		res       *Resource
		ns, name  string
		wantKey   string
		wantGR    schema.GroupResource
		wantRest  string
		wantNSPre string
	}{
		{builtin("", "configmaps"), "demo", "a", "/registry/core/configmaps/demo/a", schema.GroupResource{Resource: "configmaps"}, "demo/a", "/registry/core/configmaps/demo/"},
		{builtin("", "namespaces"), "", "demo", "/registry/core/namespaces/demo", schema.GroupResource{Resource: "namespaces"}, "demo", "/registry/core/namespaces/"},
		{builtin("coordination.k8s.io", "leases"), "kube-system", "l", "/registry/coordination.k8s.io/leases/kube-system/l", schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "kube-system/l", "/registry/coordination.k8s.io/leases/kube-system/"},
	}
	for _, tt := range tests {
		got := tt.res.Key(tt.ns, tt.name)
		if got != tt.wantKey {
			t.Errorf("Key = %q, want %q", got, tt.wantKey)
		}
		gr, rest, ok := ParseKey(got)
		if !ok || gr != tt.wantGR || rest != tt.wantRest {
			t.Errorf("ParseKey(%q) = %v %q %v, want %v %q", got, gr, rest, ok, tt.wantGR, tt.wantRest)
		}
		if got := tt.res.NamespacePrefix(tt.ns); got != tt.wantNSPre {
			t.Errorf("NamespacePrefix = %q, want %q", got, tt.wantNSPre)
		}
	}
	for _, bad := range []string{"/other/x", "/registry/core", "/registry/core/configmaps"} {
		if _, _, ok := ParseKey(bad); ok {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
}

func TestDecode(t *testing.T) {
	cm := builtin("", "configmaps")
	custom := &Resource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets"}
	tests := []struct {
		name         string
		res          *Resource
		body         string
		fv           FieldValidation
		wantErr      error
		wantStrict   bool
		wantWarnings int
		check        func(t *testing.T, obj map[string]any)
	}{
		{name: "typed", res: cm, body: `{"kind":"ConfigMap","data":{"a":"b"}}`, fv: FieldWarn},
		{name: "typed unknown field warns", res: cm, body: `{"kind":"ConfigMap","bogus":1}`, fv: FieldWarn, wantWarnings: 1, check: func(t *testing.T, obj map[string]any) {
			if _, ok := obj["bogus"]; ok {
				t.Error("unknown field kept on a typed kind")
			}
		}},
		{name: "typed unknown field ignored", res: cm, body: `{"bogus":1}`, fv: FieldIgnore},
		{name: "typed unknown field strict", res: cm, body: `{"bogus":1}`, fv: FieldStrict, wantStrict: true},
		{name: "duplicate field strict", res: custom, body: `{"a":1,"a":2}`, fv: FieldStrict, wantStrict: true},
		{name: "typed wrong type", res: cm, body: `{"data":{"a":1}}`, fv: FieldWarn, wantErr: ErrDecode},
		{name: "not an object", res: custom, body: `[]`, fv: FieldWarn, wantErr: ErrDecode},
		{name: "empty", res: custom, body: ``, fv: FieldWarn, wantErr: ErrDecode},
		{name: "custom keeps fields and integers", res: custom, body: `{"spec":{"n":9007199254740993,"f":1.5,"x":{"y":true}}}`, fv: FieldStrict, check: func(t *testing.T, obj map[string]any) {
			spec := obj["spec"].(map[string]any)
			if spec["n"] != int64(9007199254740993) || spec["f"] != 1.5 || spec["x"].(map[string]any)["y"] != true {
				t.Errorf("custom object changed: %#v", spec)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, warnings, err := tt.res.Decode([]byte(tt.body), tt.fv)
			var strict *StrictError
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				return
			case tt.wantStrict:
				if !errors.As(err, &strict) {
					t.Fatalf("got error %v, want a StrictError", err)
				}
				return
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if len(warnings) != tt.wantWarnings {
				t.Errorf("got warnings %v, want %d", warnings, tt.wantWarnings)
			}
			if tt.check != nil {
				tt.check(t, obj)
			}
		})
	}
}

func TestFieldSet(t *testing.T) {
	ev := builtin("", "events")
	obj := map[string]any{
		"metadata":       map[string]any{"name": "e", "namespace": "demo"},
		"involvedObject": map[string]any{"kind": "Pod", "name": "p"},
		"source":         map[string]any{"component": "kubelet"},
		"type":           "Warning",
	}
	got := ev.FieldSet(obj)
	for k, want := range map[string]string{
		"metadata.name": "e", "metadata.namespace": "demo", "involvedObject.kind": "Pod",
		"involvedObject.name": "p", "source": "kubelet", "type": "Warning", "reason": "",
	} {
		if got[k] != want {
			t.Errorf("field %s = %q, want %q", k, got[k], want)
		}
	}
	if !ev.HasField("source") || ev.HasField("source.component") || builtin("", "namespaces").HasField("metadata.namespace") {
		t.Error("HasField disagrees with the selectable fields")
	}
}

func TestFromCRD(t *testing.T) {
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Cluster",
			"names": map[string]any{"plural": "widgets", "kind": "Widget", "shortNames": []any{"wd"}},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true,
					"subresources":             map[string]any{"status": map[string]any{}},
					"additionalPrinterColumns": []any{map[string]any{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}},
					"selectableFields":         []any{map[string]any{"jsonPath": ".spec.color"}}},
				map[string]any{"name": "v1beta1", "served": true, "storage": false},
				map[string]any{"name": "v1alpha1", "served": false, "storage": false},
			},
		},
	}
	got, err := FromCRD(crd)
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, r := range got {
		versions = append(versions, r.Version)
	}
	if !reflect.DeepEqual(versions, []string{"v1", "v1beta1"}) {
		t.Fatalf("served versions %v, want [v1 v1beta1]", versions)
	}
	v1 := got[0]
	if v1.Namespaced || !v1.StatusSubresource || v1.Singular != "widget" || v1.ListKind != "WidgetList" ||
		!slices.Equal(v1.ShortNames, []string{"wd"}) || len(v1.Columns) != 1 || v1.Columns[0].Path != ".spec.size" ||
		!slices.Equal(v1.SelectableFields, []string{"spec.color"}) {
		t.Errorf("v1 resource %+v", v1)
	}
	if got[1].StatusSubresource {
		t.Error("v1beta1 has no status subresource")
	}
}

func TestCRDStrategy(t *testing.T) {
	valid := func() map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "widgets.example.com"},
			"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
				"names": map[string]any{"plural": "widgets", "kind": "Widget"},
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}},
							"x-kubernetes-validations": []any{map[string]any{"rule": "self.size < 10"}}},
					}}}}}},
		}
	}
	setSchema := func(m map[string]any, schema map[string]any) {
		v := m["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
		if schema == nil {
			delete(v, "schema")
			return
		}
		v["schema"] = map[string]any{"openAPIV3Schema": schema}
	}
	tests := []struct {
		name    string
		mutate  func(m map[string]any)
		wantErr bool
	}{
		{"valid", func(map[string]any) {}, false},
		{"name not plural.group", func(m map[string]any) { m["metadata"].(map[string]any)["name"] = "x.example.com" }, true},
		{"built-in group", func(m map[string]any) { m["spec"].(map[string]any)["group"] = "coordination.k8s.io" }, true},
		{"group without dot", func(m map[string]any) { m["spec"].(map[string]any)["group"] = "example" }, true},
		{"no storage version", func(m map[string]any) {
			m["spec"].(map[string]any)["versions"] = []any{map[string]any{"name": "v1", "served": true}}
		}, true},
		{"bad scope", func(m map[string]any) { m["spec"].(map[string]any)["scope"] = "Galaxy" }, true},
		{"no schema", func(m map[string]any) { setSchema(m, nil) }, true},
		{"schema without a type", func(m map[string]any) {
			setSchema(m, map[string]any{"properties": map[string]any{"spec": map[string]any{"type": "object"}}})
		}, true},
		{"rule that does not compile", func(m map[string]any) {
			setSchema(m, map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object",
				"x-kubernetes-validations": []any{map[string]any{"rule": "self.missing > 1"}}}}})
		}, true},
		{"schema keeping unknown fields", func(m map[string]any) {
			setSchema(m, map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true})
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := valid()
			tt.mutate(obj)
			errs := crdStrategy{}.PrepareForCreate(time.Unix(0, 0), obj)
			if (len(errs) > 0) != tt.wantErr {
				t.Fatalf("got errors %v, want error %v", errs, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			st := obj["status"].(map[string]any)
			if len(st["conditions"].([]any)) != 2 || !slices.Contains(obj["metadata"].(map[string]any)["finalizers"].([]any), any(CRDCleanupFinalizer)) {
				t.Errorf("status %v / metadata %v, want conditions and the cleanup finalizer", st, obj["metadata"])
			}
		})
	}
}

func TestRegistrySetOwned(t *testing.T) {
	cm := builtin("", "configmaps")
	reg := New(cm)
	gen0, changed := reg.Changed()
	w := &Resource{Group: "example.com", Version: "v1", Plural: "widgets", Kind: "Widget"}
	takeover := &Resource{Version: "v1", Plural: "configmaps", Kind: "Fake"}
	conflicts := reg.SetOwned("widgets.example.com", []*Resource{w, takeover})
	if len(conflicts) != 1 || conflicts[0] != takeover {
		t.Fatalf("conflicts %v, want the configmaps takeover", conflicts)
	}
	select {
	case <-changed:
	default:
		t.Fatal("Changed channel not closed")
	}
	if gen, _ := reg.Changed(); gen != gen0+1 {
		t.Errorf("generation %d, want %d", gen, gen0+1)
	}
	if got, _ := reg.Get(cm.GroupVersionResource()); got != cm {
		t.Error("built-in replaced")
	}
	if owner, ok := reg.Owner(w.GroupResource()); !ok || owner != "widgets.example.com" {
		t.Errorf("owner %q %v", owner, ok)
	}
	reg.SetOwned("widgets.example.com", nil)
	if _, ok := reg.Get(w.GroupVersionResource()); ok {
		t.Error("widgets still served after SetOwned(nil)")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"kind":"ConfigMap","data":{"a":"b"}}`, `{"a":1,"a":2}`, `{"metadata":{"labels":{"x":"y"}}}`, `[`, `{"data":null}`} {
		f.Add([]byte(s), true)
	}
	cm := builtin("", "configmaps")
	custom := &Resource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets"}
	f.Fuzz(func(t *testing.T, body []byte, typed bool) {
		res := custom
		if typed {
			res = cm
		}
		obj, _, err := res.Decode(body, FieldStrict)
		var strict *StrictError
		if err != nil && !errors.Is(err, ErrDecode) && !errors.As(err, &strict) {
			t.Fatalf("untyped error %v", err)
		}
		if err == nil && obj == nil {
			t.Fatal("nil object without an error")
		}
	})
}

// TestEventSourceField checks core/v1 Events' "source" selector: the
// source component, or else the reporting controller, as kube-apiserver
// selects Events written by the events.k8s.io recorders.
func TestEventSourceField(t *testing.T) {
	ev := builtin("", "events")
	tests := []struct {
		name                      string
		obj                       map[string]any
		wantSource, wantReporting string
	}{
		{"source only", map[string]any{"source": map[string]any{"component": "kubelet"}}, "kubelet", ""},
		{"reporting controller only", map[string]any{"reportingComponent": "ctrl"}, "ctrl", "ctrl"},
		{"both", map[string]any{"source": map[string]any{"component": "kubelet"}, "reportingComponent": "ctrl"}, "kubelet", "ctrl"},
		{"empty source component", map[string]any{"source": map[string]any{"component": ""}, "reportingComponent": "ctrl"}, "ctrl", "ctrl"},
		{"neither", map[string]any{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.obj["metadata"] = map[string]any{"name": "e", "namespace": "demo"}
			got := ev.FieldSet(tt.obj)
			if got["source"] != tt.wantSource || got["reportingComponent"] != tt.wantReporting {
				t.Errorf("source %q reportingComponent %q, want %q %q", got["source"], got["reportingComponent"], tt.wantSource, tt.wantReporting)
			}
		})
	}
	evv1 := builtin("events.k8s.io", "events")
	for _, f := range []string{"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reportingController"} {
		if !evv1.HasField(f) {
			t.Errorf("events.k8s.io/v1 Events cannot be selected by %s", f)
		}
	}
}

// TestCreatesOnUpdate lists the built-in kinds whose PUT of a missing
// object creates it, kube-apiserver v1.33's AllowCreateOnUpdate.
func TestCreatesOnUpdate(t *testing.T) {
	var got []string
	for _, r := range Builtin() {
		if r.CreatesOnUpdate {
			got = append(got, r.GroupResource().String())
		}
	}
	want := []string{"events", "events.events.k8s.io", "leases.coordination.k8s.io", "services", "endpoints",
		"roles.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
		"rolebindings.rbac.authorization.k8s.io", "clusterrolebindings.rbac.authorization.k8s.io"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
