package client

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestDecodeReplacesContent: decoding leaves nothing of what the object
// held, in either encoding (protobuf and JSON decoders both merge maps
// into existing ones).
func TestDecodeReplacesContent(t *testing.T) {
	server := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}, Data: map[string]string{"a": "1"}}
	pb, err := encodeProtobuf(configMapGVK, server)
	if err != nil {
		t.Fatal(err)
	}
	js, _, err := encode(server, configMapGVK, false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		body        []byte
		contentType string
		into        func() runtime.Object
		data        func(runtime.Object) map[string]string
	}{
		{"protobuf into typed", pb, mediaProtobuf, staleConfigMap, typedData},
		{"json into typed", js, mediaJSON, staleConfigMap, typedData},
		{"json into unstructured", js, mediaJSON, func() runtime.Object {
			return &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{"stale": "x"}, "extra": true}}
		}, func(o runtime.Object) map[string]string {
			m, _, _ := unstructured.NestedStringMap(o.(*unstructured.Unstructured).Object, "data")
			if _, ok := o.(*unstructured.Unstructured).Object["extra"]; ok {
				m["extra"] = "leaked"
			}
			return m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := tt.into()
			if err := decodeInto(tt.body, tt.contentType, obj); err != nil {
				t.Fatal(err)
			}
			if got, want := tt.data(obj), map[string]string{"a": "1"}; !maps.Equal(got, want) {
				t.Errorf("data: got %v, want %v", got, want)
			}
			if got := obj.(metav1.Object).GetLabels(); got != nil {
				t.Errorf("labels survived: %v", got)
			}
			if got := obj.GetObjectKind().GroupVersionKind(); got != configMapGVK {
				t.Errorf("kind: got %v, want %v", got, configMapGVK)
			}
		})
	}
}

func staleConfigMap() runtime.Object {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "old", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"stale": "x"}}
}

func typedData(o runtime.Object) map[string]string { return o.(*corev1.ConfigMap).Data }

// TestEncodeLeavesObjectAlone: JSON bodies carry apiVersion and kind
// without writing them into the caller's object.
func TestEncodeLeavesObjectAlone(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	body, ct, err := encode(cm, configMapGVK, false)
	if err != nil {
		t.Fatal(err)
	}
	if ct != mediaJSON || !strings.Contains(string(body), `"kind":"ConfigMap"`) || !strings.Contains(string(body), `"apiVersion":"v1"`) {
		t.Errorf("body %s (%s) lacks apiVersion and kind", body, ct)
	}
	if !cm.GroupVersionKind().Empty() {
		t.Errorf("the caller's object was given kind %v", cm.GroupVersionKind())
	}
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		header string
		want   []string
	}{
		{`299 - "unknown field \"spec.foo\""`, []string{`unknown field "spec.foo"`}},
		{`299 - "one", 299 - "two"`, []string{"one", "two"}},
		{`299 kube-apiserver "dated" "Sat, 01 Jan 2000 00:00:00 GMT"`, []string{"dated"}},
		{`199 - "not persistent"`, nil},
		{`garbage`, []string{"garbage"}},
		{`299 - "unterminated`, []string{`299 - "unterminated`}},
	}
	for _, tt := range tests {
		if got := parseWarnings(tt.header); !slices.Equal(got, tt.want) {
			t.Errorf("parseWarnings(%s): got %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestLimiter(t *testing.T) {
	tests := []struct {
		name     string
		qps      float32
		burst    int
		calls    int
		minTotal time.Duration
	}{
		{"no limit", -1, 0, 50, 0},
		{"zero is no limit", 0, 0, 50, 0},
		{"burst passes at once", 1, 5, 5, 0},
		{"past the burst waits", 50, 1, 4, 55 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLimiter(tt.qps, tt.burst)
			start := time.Now()
			for range tt.calls {
				if err := l.wait(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			got := time.Since(start)
			if got < tt.minTotal || (tt.minTotal == 0 && got > 500*time.Millisecond) {
				t.Errorf("%d calls took %v, want at least %v", tt.calls, got, tt.minTotal)
			}
		})
	}
}
