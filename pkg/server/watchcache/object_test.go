package watchcache_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// TestProtobufHeldWeakly checks that an object's protobuf message is not
// kept once nothing uses it: a collection in between means a rebuild,
// with the same bytes. A failed build keeps nothing.
func TestProtobufHeldWeakly(t *testing.T) {
	o := &watchcache.Object{JSON: []byte(`{"kind":"ConfigMap"}`)}
	builds := 0
	build := func(json []byte) ([]byte, error) {
		builds++
		return append([]byte("pb:"), json...), nil
	}
	first, err := o.Protobuf(build)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	again, err := o.Protobuf(build)
	if err != nil {
		t.Fatal(err)
	}
	if builds != 2 || !bytes.Equal(first, again) {
		t.Errorf("after a collection: %d builds, %q then %q; want 2 builds of the same bytes", builds, first, again)
	}
	boom := errors.New("boom")
	fresh := &watchcache.Object{JSON: []byte(`{}`)}
	if _, err := fresh.Protobuf(func([]byte) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("failed build: got %v, want %v", err, boom)
	}
	if b, err := fresh.Protobuf(build); err != nil || string(b) != "pb:{}" {
		t.Errorf("after a failed build: got %q, %v; want a fresh build", b, err)
	}
}
