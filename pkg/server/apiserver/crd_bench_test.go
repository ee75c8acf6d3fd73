package apiserver_test

import (
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkInstallCRDs installs 500 CRDs, each with a 30-property
// schema, a validation rule, printer columns and the status and scale
// subresources, and reports the heap each one keeps (with one object
// written, and the OpenAPI documents served once, so their caches count)
// and the time from its create request until it is Established and its
// resource answers.
func BenchmarkInstallCRDs(b *testing.B) {
	const n = 500
	for b.Loop() {
		c := newClient(b)
		c.must(http.StatusOK, "GET", "/openapi/v2", nil)
		before := heapAlloc()
		waits := make([]time.Duration, n)
		for i := range n {
			group := fmt.Sprintf("g%d.bench.example.com", i)
			start := time.Now()
			crd := c.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", benchCRD(group))
			if !established(crd) {
				b.Fatalf("CRD %d is not Established when its create returns", i)
			}
			c.must(http.StatusOK, "GET", "/apis/"+group+"/v1/widgets", nil)
			waits[i] = time.Since(start)
		}
		// One object each, so every CRD's schema, rules and field
		// manager are in use.
		c.createNamespace("bench")
		for i := range n {
			c.must(http.StatusCreated, "POST", fmt.Sprintf("/apis/g%d.bench.example.com/v1/namespaces/bench/widgets", i), map[string]any{
				"apiVersion": fmt.Sprintf("g%d.bench.example.com/v1", i), "kind": "Widget",
				"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"replicas": 3, "mode": "a"},
			})
		}
		if r := c.do("GET", "/openapi/v2", nil, "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"); r.code != http.StatusOK {
			b.Fatalf("GET /openapi/v2 as protobuf: %d", r.code)
		}
		c.must(http.StatusOK, "GET", "/openapi/v3", nil)
		for i := range n {
			c.must(http.StatusOK, "GET", fmt.Sprintf("/openapi/v3/apis/g%d.bench.example.com/v1", i), nil)
		}
		after := heapAlloc()
		slices.Sort(waits)
		var sum time.Duration
		for _, w := range waits {
			sum += w
		}
		b.ReportMetric(float64(after-before)/n, "heap-B/crd")
		b.ReportMetric(float64(sum.Microseconds())/1000/n, "ms/established")
		b.ReportMetric(float64(waits[n*99/100].Microseconds())/1000, "p99-ms/established")
	}
}

func heapAlloc() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func established(crd map[string]any) bool {
	status, _ := crd["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if cm["type"] == "Established" && cm["status"] == "True" {
			return true
		}
	}
	return false
}

// benchCRD is a CRD of the size operators ship: 30 spec properties of
// every kind, a validation rule, printer columns and subresources.
func benchCRD(group string) map[string]any {
	props := map[string]any{
		"replicas": map[string]any{"type": "integer", "minimum": 0, "maximum": 100, "default": 1, "description": "Desired replicas."},
		"mode":     map[string]any{"type": "string", "enum": []any{"a", "b", "c"}, "description": "Mode of operation."},
		"image":    map[string]any{"type": "string", "pattern": "^[a-z0-9./:-]+$", "maxLength": 256},
		"ports": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
			"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
				"name": map[string]any{"type": "string", "maxLength": 15}, "port": map[string]any{"type": "integer", "format": "int32"},
			}}},
		"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
	}
	for i := range 25 {
		props[fmt.Sprintf("field%02d", i)] = map[string]any{"type": "string", "description": fmt.Sprintf("Setting %d of the widget.", i), "maxLength": 63}
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{"type": "object", "properties": props,
				"x-kubernetes-validations": []any{map[string]any{"rule": "self.replicas <= 50 || self.mode == 'c'", "message": "more than 50 replicas need mode c"}}},
			"status": map[string]any{"type": "object", "properties": map[string]any{
				"replicas":   map[string]any{"type": "integer"},
				"conditions": map[string]any{"type": "array", "items": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": schema},
				"subresources": map[string]any{
					"status": map[string]any{},
					"scale":  map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
				},
				"additionalPrinterColumns": []any{
					map[string]any{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
					map[string]any{"name": "Mode", "type": "string", "jsonPath": ".spec.mode", "priority": 1},
				},
			}},
		},
	}
}
