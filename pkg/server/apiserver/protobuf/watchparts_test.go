package protobuf

import (
	"bytes"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestWatchFramePartsMatchWatchFrame: head + item + tail are the bytes of
// the frame built whole, for items whose lengths take one to three varint
// bytes.
func TestWatchFramePartsMatchWatchFrame(t *testing.T) {
	c := Default()
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	for _, n := range []int{0, 100, 20_000, 300_000} {
		for _, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
			t.Run(fmt.Sprintf("%s %d", typ, n), func(t *testing.T) {
				obj := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d","resourceVersion":"3"},"data":{"k":"%s"}}`, bytes.Repeat([]byte("x"), n))
				item, err := c.EncodeItem(cm, obj)
				if err != nil {
					t.Fatal(err)
				}
				env, err := c.Envelope(cm, item)
				if err != nil {
					t.Fatal(err)
				}
				want, err := c.WatchFrame(typ, env)
				if err != nil {
					t.Fatal(err)
				}
				head, tail, err := c.WatchFrameParts(typ, cm, len(item))
				if err != nil {
					t.Fatal(err)
				}
				got := append(append(append([]byte{}, head...), item...), tail...)
				if !bytes.Equal(got, want) {
					t.Fatalf("parts differ from WatchFrame:\ngot  %q\nwant %q", got[:min(len(got), 80)], want[:min(len(want), 80)])
				}
			})
		}
	}
	if _, _, err := c.WatchFrameParts("NOPE", cm, 1); err == nil {
		t.Error("WatchFrameParts accepted an invalid event type")
	}
}
