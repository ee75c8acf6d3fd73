package registry

import (
	"context"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// TestValidateRatcheting: on update, Resource.Validate lets a custom object
// keep schema and rule violations it does not touch, as kube-apiserver does
// since CRD validation ratcheting (KEP-4008); creates and changed values are
// checked in full, and transition rules always. As in kube, rules run
// beside schema errors unless one of them could mislead a rule.
func TestValidateRatcheting(t *testing.T) {
	crd := decode(t, `{
	"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
	"metadata": {"name": "widgets.example.com"},
	"spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
		"versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
			"type": "object",
			"properties": {"spec": {"type": "object",
				"properties": {
					"name": {"type": "string", "maxLength": 3},
					"size": {"type": "integer"},
					"gen": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "gen may not decrease"}]},
					"color": {"type": "string"},
					"modes": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
					"hosts": {"type": "array", "x-kubernetes-list-type": "set",
						"items": {"type": "string", "x-kubernetes-validations": [{"rule": "self.endsWith('.com')", "message": "host must end in .com"}]}},
					"ports": {"type": "array", "maxItems": 8, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
						"items": {"type": "object", "required": ["name"], "properties": {
							"name": {"type": "string", "maxLength": 8},
							"port": {"type": "integer", "maximum": 1000}}}}},
				"x-kubernetes-validations": [{"rule": "!has(self.size) || self.size < 10", "message": "size must be below 10"}]}}}}}]}}`)
	rs, err := FromCRD(crd)
	if err != nil || len(rs) != 1 || rs[0].Structural() == nil {
		t.Fatalf("FromCRD: %v %v", rs, err)
	}
	r := rs[0]
	obj := func(spec string) map[string]any {
		return decode(t, `{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": {"name": "w", "namespace": "default", "uid": "u1", "resourceVersion": "7"}, "spec": `+spec+`}`)
	}
	tests := []struct {
		name     string
		obj, old string // specs; old "" is a create
		want     []string
	}{{
		name: "create checks everything",
		obj:  `{"name": "long", "size": 12}`,
		want: []string{"spec.name: Too long: may not be more than 3 bytes", "<nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"},
	}, {
		name: "rules run when the schema passes",
		obj:  `{"name": "ok", "size": 12}`,
		want: []string{`spec: Invalid value: "object": size must be below 10`},
	}, {
		name: "rules run beside schema errors that cannot mislead them",
		obj:  `{"size": 12, "ports": [{"name": "a", "port": 5000}]}`,
		want: []string{
			"spec.ports[0].port: Invalid value: 5000: spec.ports[0].port in body should be less than or equal to 1000",
			`spec: Invalid value: "object": size must be below 10`,
		},
	}, {
		name: "untouched schema and rule violations ratchet",
		obj:  `{"name": "long", "size": 12, "color": "red", "ports": [{"name": "a", "port": 5000}, {"name": "b", "port": 1}]}`,
		old:  `{"name": "long", "size": 12, "color": "blue", "ports": [{"name": "a", "port": 5000}]}`,
		want: []string{`spec: Invalid value: "object": size must be below 10`}, // the rule is on spec, which changed
	}, {
		name: "untouched violations ratchet while the rest changes",
		obj:  `{"name": "long", "ports": [{"name": "b", "port": 1}, {"name": "a", "port": 5000}], "color": "red"}`,
		old:  `{"name": "long", "ports": [{"name": "a", "port": 5000}], "color": "blue"}`,
	}, {
		name: "a rule on an unchanged node ratchets",
		obj:  `{"size": 12}`,
		old:  `{"size": 12}`,
	}, {
		name: "changing an invalid value fails",
		obj:  `{"name": "longer", "ports": [{"name": "a", "port": 5001}]}`,
		old:  `{"name": "long", "ports": [{"name": "a", "port": 5000}]}`,
		want: []string{
			"spec.name: Too long: may not be more than 3 bytes",
			"spec.ports[0].port: Invalid value: 5001: spec.ports[0].port in body should be less than or equal to 1000",
			"<nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
		},
	}, {
		name: "adding an invalid list-map item fails",
		obj:  `{"ports": [{"name": "a", "port": 5000}, {"name": "c", "port": 2000}]}`,
		old:  `{"ports": [{"name": "a", "port": 5000}]}`,
		want: []string{"spec.ports[1].port: Invalid value: 2000: spec.ports[1].port in body should be less than or equal to 1000"},
	}, {
		// kube cannot match items of atomic and set lists with old ones
		name: "an unchanged invalid item of a changed atomic list fails",
		obj:  `{"modes": ["x", "a"]}`,
		old:  `{"modes": ["x"]}`,
		want: []string{`spec.modes[0]: Unsupported value: "x": supported values: "a", "b"`, "<nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"},
	}, {
		name: "an unchanged item failing a rule in a changed set fails",
		obj:  `{"hosts": ["h.org", "h.com"]}`,
		old:  `{"hosts": ["h.org"]}`,
		want: []string{`spec.hosts[0]: Invalid value: "string": host must end in .com`},
	}, {
		name: "invalid items of unchanged atomic and set lists ratchet",
		obj:  `{"modes": ["x"], "hosts": ["h.org"], "color": "red"}`,
		old:  `{"modes": ["x"], "hosts": ["h.org"], "color": "blue"}`,
	}, {
		name: "transition rules are enforced",
		obj:  `{"gen": 1}`,
		old:  `{"gen": 2}`,
		want: []string{`spec.gen: Invalid value: "integer": gen may not decrease`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old map[string]any
			if tt.old != "" {
				old = obj(tt.old)
			}
			errs := r.Validate(context.Background(), obj(tt.obj), old)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("errors %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("error %d: %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON: %v", err)
	}
	return m
}
