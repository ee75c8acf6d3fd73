package protobuf

import (
	"bytes"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestStreamedMatchesBuilt checks that the streaming encoders produce the
// bytes of the building ones, so clients cannot tell them apart.
func TestStreamedMatchesBuilt(t *testing.T) {
	c := Default()
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	var items [][]byte
	for i := range 3 {
		items = append(items, fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","namespace":"d","resourceVersion":"%d","labels":{"a":"b"}},"data":{"k":"%s"}}`, i, i+10, bytes.Repeat([]byte("x"), 100*i)))
	}
	remaining := int64(7)
	metas := []metav1.ListMeta{{ResourceVersion: "42"}, {ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining}, {}}
	for _, tc := range []struct {
		name  string
		items [][]byte
	}{{"three", items}, {"empty", nil}, {"large item", [][]byte{fmt.Appendf(nil, `{"metadata":{"name":"big"},"data":{"k":"%s"}}`, bytes.Repeat([]byte("y"), 300_000))}}} {
		for _, meta := range metas {
			t.Run(tc.name, func(t *testing.T) {
				want, err := c.EncodeList(cm.GroupVersion().WithKind("ConfigMapList"), meta, tc.items)
				if err != nil {
					t.Fatal(err)
				}
				raw := make([][]byte, len(tc.items))
				for i, it := range tc.items {
					if raw[i], err = c.EncodeItem(cm, it); err != nil {
						t.Fatal(err)
					}
					env, err := c.Envelope(cm, raw[i])
					if err != nil {
						t.Fatal(err)
					}
					whole, err := c.EncodeObject(cm, it)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(env, whole) {
						t.Fatalf("Envelope differs from EncodeObject:\ngot  %q\nwant %q", env, whole)
					}
				}
				var got bytes.Buffer
				if err := c.WriteList(&got, cm.GroupVersion().WithKind("ConfigMapList"), meta, raw); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("WriteList differs from EncodeList:\ngot  %q\nwant %q", got.Bytes(), want)
				}
			})
		}
	}
	if err := c.WriteList(&bytes.Buffer{}, cm, metav1.ListMeta{}, nil); err == nil {
		t.Error("WriteList accepted an item kind")
	}
}
