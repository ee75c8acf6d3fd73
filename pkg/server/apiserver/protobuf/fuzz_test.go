package protobuf

import (
	"encoding/json"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func FuzzDecodeToJSON(f *testing.F) {
	c := Default()
	var valid [][]byte
	for _, tc := range objectCases {
		b, err := c.EncodeObject(tc.gvk, []byte(tc.json))
		if err != nil {
			f.Fatal(err)
		}
		valid = append(valid, b)
	}
	list, err := c.EncodeList(configMapListGVK, metav1.ListMeta{ResourceVersion: "9"}, [][]byte{configMapJSON("a", "1", 2)})
	if err != nil {
		f.Fatal(err)
	}
	status, err := c.EncodeStatus(goneStatus)
	if err != nil {
		f.Fatal(err)
	}
	valid = append(valid, list, status,
		mustEncodeAs(f, c, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "DeleteOptions"}, &metav1.DeleteOptions{}),
		mustEncodeAs(f, c, schema.GroupVersionKind{Version: "v1", Kind: "Widget"}, &corev1.ConfigMap{}))
	for _, b := range valid {
		f.Add(b)
		f.Add(b[:len(b)/2])                        // truncated
		f.Add(b[:len(b)-1])                        // one byte short
		f.Add(append([]byte("k8s\x01"), b[4:]...)) // wrong magic
		f.Add(b[4:])                               // no magic
	}
	f.Add([]byte{})
	f.Add([]byte("k8s\x00"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap"}`))

	f.Fuzz(func(t *testing.T, body []byte) {
		gvk, out, err := c.DecodeToJSON(body)
		if errors.Is(err, errDecodePanic) {
			t.Fatalf("DecodeToJSON panicked: %v", err)
		}
		if err != nil {
			if out != nil {
				t.Fatalf("output with error %v", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q", out)
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(out, &tm); err != nil || tm.APIVersion != gvk.GroupVersion().String() || tm.Kind != gvk.Kind {
			t.Fatalf("JSON type meta %+v (%v) for %v", tm, err, gvk)
		}
		// What was accepted can be stored and served back.
		if c.Supports(gvk) {
			if _, err := c.EncodeObject(gvk, out); err != nil {
				t.Fatalf("EncodeObject of decoded %v: %v\n%s", gvk, err, out)
			}
		}
	})
}
