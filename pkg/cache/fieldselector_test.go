package cache

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestFieldSelectorFor(t *testing.T) {
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	fs := map[schema.GroupVersionKind]string{cm: "metadata.name=one"}
	tests := []struct {
		src  Source
		want string
	}{
		{Source{GVK: cm}, "metadata.name=one"},
		{Source{GVK: cm, FieldSelector: "metadata.namespace=a"}, "metadata.name=one,metadata.namespace=a"},
		{Source{GVK: cm, MetadataOnly: true}, ""},
		{Source{GVK: pod, FieldSelector: "spec.nodeName=n"}, "spec.nodeName=n"},
	}
	for _, tt := range tests {
		if got := fieldSelectorFor(fs, tt.src); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.src, got, tt.want)
		}
	}
}
