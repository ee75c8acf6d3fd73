package apiserver_test

import (
	"strings"
	"testing"
)

func TestNegotiation(t *testing.T) {
	c := newClient(t)
	c.must(201, "POST", "/api/v1/namespaces/default/configmaps", configMap("default", "n", map[string]any{"a": "b"}))
	c.must(201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD)
	c.must(201, "POST", "/apis/example.com/v1/namespaces/default/widgets", `{"metadata":{"name":"w"}}`)
	const (
		cm      = "/api/v1/namespaces/default/configmaps/n"
		cms     = "/api/v1/namespaces/default/configmaps"
		widget  = "/apis/example.com/v1/namespaces/default/widgets/w"
		widgets = "/apis/example.com/v1/namespaces/default/widgets"
		pb      = "application/vnd.kubernetes.protobuf"
	)
	tests := []struct {
		name, path, accept string
		wantCode           int
		wantType           string
		wantBody           string // a fragment the body must contain
	}{
		{"default", cm, "", 200, "application/json", `"kind":"ConfigMap"`},
		{"protobuf first", cm, pb + ", application/json", 200, pb, "k8s\x00"},
		{"json first", cm, "application/json, " + pb, 200, "application/json", `"kind":"ConfigMap"`},
		{"protobuf list", cms, pb, 200, pb, "ConfigMapList"},
		{"yaml", cm, "application/yaml", 200, "application/yaml", "kind: ConfigMap"},
		{"table", cms, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json", 200, "application/json", `"kind":"Table"`},
		{"partial", cm, "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", 200, "application/json", `"kind":"PartialObjectMetadata"`},
		{"partial list in protobuf", cms, pb + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json", 200, pb, "PartialObjectMetadataList"},
		{"partial custom object in protobuf", widget, pb + ";as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json", 200, pb, "PartialObjectMetadata"},
		{"custom resources are JSON only", widget, pb + ", application/json", 200, "application/json", `"kind":"Widget"`},
		{"custom resource table", widgets, "application/json;as=Table;v=v1;g=meta.k8s.io", 200, "application/json", `"name":"Age"`},
		{"protobuf only for a custom resource", widget, pb, 406, "application/json", "NotAcceptable"},
		{"list kind in a single-object request", cm, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", 406, "application/json", "NotAcceptable"},
		{"wildcard", cm, "*/*", 200, "application/json", `"kind":"ConfigMap"`},
		{"CRDs in protobuf", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", pb, 200, pb, "CustomResourceDefinition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("GET", tt.path, nil, "Accept", tt.accept)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if got := r.header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type %q, want %q", got, tt.wantType)
			}
			if !strings.Contains(string(r.body), tt.wantBody) {
				t.Errorf("body lacks %q: %q", tt.wantBody, r.body)
			}
		})
	}
}
