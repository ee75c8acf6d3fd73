package openapi

import (
	"maps"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// commonDefs are the definitions every group-version's operations refer
// to, whatever its kinds: Status, DeleteOptions, Patch, APIResourceList,
// and ListMeta and WatchEvent for lists and watches.
var commonDefs = sync.OnceValue(func() map[string]*spec.Schema {
	defs := map[string]*spec.Schema{}
	for kind, obj := range map[string]runtime.Object{
		"Status":          &metav1.Status{},
		"DeleteOptions":   &metav1.DeleteOptions{},
		"APIResourceList": &metav1.APIResourceList{},
		"WatchEvent":      &metav1.WatchEvent{},
	} {
		mustAdd(defs, schema.GroupVersionKind{Version: "v1", Kind: kind}, obj)
	}
	mustAdd(defs, schema.GroupVersionKind{}, &metav1.Patch{})
	mustAdd(defs, schema.GroupVersionKind{}, &metav1.ListMeta{})
	return defs
})

// scaleDefs define the body of scale subresources.
var scaleDefs = sync.OnceValue(func() map[string]*spec.Schema {
	defs := map[string]*spec.Schema{}
	mustAdd(defs, autoscalingv1.SchemeGroupVersion.WithKind("Scale"), &autoscalingv1.Scale{})
	return defs
})

func mustAdd(defs map[string]*spec.Schema, gvk schema.GroupVersionKind, obj any) {
	_, d, err := ForType(gvk, obj)
	if err != nil {
		panic(err)
	}
	maps.Copy(defs, d)
}

var listMetaDoc = metav1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]

// listDef is the list kind of a resource whose Definitions do not describe
// it. Only what its schema is made from is kept; the schema is made when
// encoded.
type listDef struct {
	gvk        schema.GroupVersionKind
	root, list string
	plural     string
}

func newListDef(r *Resource) *listDef {
	return &listDef{gvk: r.GVK, root: r.Root, list: r.listKind(), plural: r.Plural}
}

// schema describes the list kind as kube describes a CRD's list kind.
func (l *listDef) schema() *spec.Schema {
	items := spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + l.root)}}
	s := &spec.Schema{SchemaProps: spec.SchemaProps{
		Type:        []string{"object"},
		Description: l.list + " is a list of " + l.gvk.Kind,
		Required:    []string{"items"},
		Properties: map[string]spec.Schema{
			"apiVersion": {SchemaProps: spec.SchemaProps{Type: []string{"string"}, Description: typeMetaDocs["apiVersion"]}},
			"kind":       {SchemaProps: spec.SchemaProps{Type: []string{"string"}, Description: typeMetaDocs["kind"]}},
			"items": {SchemaProps: spec.SchemaProps{
				Type:        []string{"array"},
				Description: "List of " + l.plural + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
				Items:       &spec.SchemaOrArray{Schema: &items},
			}},
			"metadata": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + meta + "ListMeta"), Description: listMetaDoc}},
		},
	}}
	s.AddExtension(extGVK, []any{map[string]any{"group": l.gvk.Group, "version": l.gvk.Version, "kind": l.list}})
	return s
}

// MergeDefinitions returns the definitions of several resources in one
// map, as server-side apply's type converter takes them. Each resource's
// own kind wins over a same-named definition another resource merely
// references (a list kind's closure includes its item kind without the
// item's GVK).
func MergeDefinitions(resources []Resource) map[string]*spec.Schema {
	out := map[string]*spec.Schema{}
	for i := range resources {
		for name, s := range resources[i].Definitions {
			if _, ok := out[name]; !ok {
				out[name] = s
			}
		}
	}
	for i := range resources {
		r := &resources[i]
		if s := r.Definitions[r.Root]; s != nil {
			out[r.Root] = s
		}
	}
	return out
}
