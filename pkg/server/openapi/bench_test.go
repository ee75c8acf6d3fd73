package openapi

import (
	"fmt"
	"runtime"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// crdSchema is a typical CRD schema of about 30 properties.
func crdSchema(i int) *apiextensionsv1.JSONSchemaProps {
	props := map[string]apiextensionsv1.JSONSchemaProps{}
	for j := 0; j < 24; j++ {
		typ := []string{"string", "integer", "boolean"}[j%3]
		props[fmt.Sprintf("field%d", j)] = apiextensionsv1.JSONSchemaProps{Type: typ,
			Description: fmt.Sprintf("field%d of crd %d configures one aspect of the widget in some way.", j, i)}
	}
	props["items"] = apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}, "value": {Type: "string"}}}}}
	return &apiextensionsv1.JSONSchemaProps{Type: "object", Description: "A custom kind.",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec":   {Type: "object", Description: "The desired state.", Properties: props},
			"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": {Type: "boolean"}, "message": {Type: "string"}}},
		}}
}

func crdGVK(i int) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: fmt.Sprintf("g%d.example.com", i), Version: "v1", Kind: fmt.Sprintf("Kind%d", i)}
}

// BenchmarkCRDs sets 500 CRD group-versions, then serves the v2 document
// (as protobuf, like kubectl), the index and every v3 document once, and
// reports the heap it retains per CRD: B/CRD counts everything, the
// definitions ForCRD made included; service-B/CRD counts what the Service
// adds to those.
func BenchmarkCRDs(b *testing.B) {
	const n = 500
	testService(b) // warm the caches shared by all services
	var ms runtime.MemStats
	heap := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for b.Loop() {
		start := heap()
		resources := make([][]Resource, n)
		for i := range resources {
			resources[i] = []Resource{custom(b, crdGVK(i), fmt.Sprintf("kind%ds", i), crdSchema(i), "status")}
		}
		withDefs := heap()
		s := NewService()
		for i, r := range resources {
			s.SetGroupVersion(crdGVK(i).GroupVersion(), r)
		}
		v2 := len(get(b, s, "/openapi/v2", "Accept", typeV2ProtoOld).body)
		urls := index(b, s)
		v3 := 0
		for _, u := range urls {
			v3 += len(get(b, s, u).body)
		}
		end := heap()
		b.ReportMetric(float64(end-start)/n, "B/CRD")
		b.ReportMetric(float64(end-withDefs)/n, "service-B/CRD")
		b.ReportMetric(float64(v2)/n, "v2-B/CRD")
		b.ReportMetric(float64(v3)/n, "v3-doc-B")
		runtime.KeepAlive(s)
		runtime.KeepAlive(resources)
	}
}
