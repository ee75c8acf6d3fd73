package cel

import (
	"context"
	"runtime"
	"testing"
)

// typicalSchema is a CRD schema of ordinary size with five rules.
const typicalSchema = `{"type":"object",
"x-kubernetes-validations":[{"rule":"self.metadata.name.size() <= 63","message":"name too long"}],
"properties":{
 "spec":{"type":"object",
  "x-kubernetes-validations":[
   {"rule":"!has(self.minReplicas) || self.minReplicas <= self.replicas","message":"minReplicas above replicas"},
   {"rule":"!has(self.image) || !has(oldSelf.image) || self.image == oldSelf.image","message":"image is immutable"}],
  "properties":{
   "replicas":{"type":"integer","minimum":0},
   "minReplicas":{"type":"integer"},
   "image":{"type":"string","maxLength":256},
   "paused":{"type":"boolean"},
   "timeout":{"type":"string","format":"duration"},
   "labels":{"type":"object","maxProperties":32,"additionalProperties":{"type":"string","maxLength":63,
     "x-kubernetes-validations":[{"rule":"self.matches('^[a-z0-9-]*$')"}]}},
   "ports":{"type":"array","maxItems":32,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
    "items":{"type":"object","required":["name","port"],
     "properties":{"name":{"type":"string","maxLength":15},"port":{"type":"integer"},"protocol":{"type":"string","enum":["TCP","UDP"]}},
     "x-kubernetes-validations":[{"rule":"self.port > 0 && self.port < 65536","messageExpression":"'bad port for ' + self.name"}]}},
   "resources":{"type":"object","properties":{"cpu":{"x-kubernetes-int-or-string":true},"memory":{"x-kubernetes-int-or-string":true}}}}},
 "status":{"type":"object","properties":{"ready":{"type":"integer"},"conditions":{"type":"array","items":{"type":"object",
   "properties":{"type":{"type":"string"},"status":{"type":"string"},"message":{"type":"string"}}}}}}}}`

const typicalObject = `{"apiVersion":"example.com/v1","kind":"App","metadata":{"name":"web","namespace":"default"},
"spec":{"replicas":3,"minReplicas":1,"image":"nginx:1.27","paused":false,"timeout":"30s",
 "labels":{"app":"web","tier":"frontend"},
 "ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"https","port":443,"protocol":"TCP"}],
 "resources":{"cpu":"500m","memory":"1Gi"}},
"status":{"ready":3}}`

// BenchmarkCompile reports the heap a compiled typical CRD keeps alive
// (retained-B/op) besides the usual per-Compile allocations.
func BenchmarkCompile(b *testing.B) {
	s := schema(b, typicalSchema)
	if _, errs := Compile(s, rootPath); len(errs) > 0 {
		b.Fatal(errs)
	}
	keep := make([]*Validator, 0, b.N)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, _ := Compile(s, rootPath)
		keep = append(keep, v)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "retained-B/op")
	runtime.KeepAlive(keep)
}

func BenchmarkValidate(b *testing.B) {
	v, errs := Compile(schema(b, typicalSchema), rootPath)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	obj := object(b, typicalObject)
	ctx := context.Background()
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs := v.Validate(ctx, obj, nil); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	old := object(b, typicalObject)
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if errs := v.Validate(ctx, obj, old); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}
