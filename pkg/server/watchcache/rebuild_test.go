package watchcache_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// TestProtobufHeldWeakly checks when an object's protobuf message is
// built again: a small one stays alive with the recent builds across a
// collection; one too large to keep among them is built again once
// collected, with the same bytes. A failed build is kept as one.
func TestProtobufHeldWeakly(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		wantBuilds int
	}{
		{"small, kept with the recent builds", 100, 1},
		{"large, held weakly only", 8 << 20, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &watchcache.Object{JSON: bytes.Repeat([]byte("x"), tt.size)}
			builds := 0
			build := func(json []byte) ([]byte, error) {
				builds++
				return append([]byte("pb:"), json...), nil
			}
			first, err := o.Protobuf(build)
			if err != nil {
				t.Fatal(err)
			}
			sum := len(first)
			first = nil // only the cache may keep it now
			runtime.GC()
			again, err := o.Protobuf(build)
			if err != nil {
				t.Fatal(err)
			}
			if builds != tt.wantBuilds || len(again) != sum {
				t.Errorf("after a collection: %d builds of %d bytes, want %d builds of %d", builds, len(again), tt.wantBuilds, sum)
			}
		})
	}
	boom := errors.New("boom")
	fresh := &watchcache.Object{JSON: []byte(`{}`)}
	if _, err := fresh.Protobuf(func([]byte) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("failed build: got %v, want %v", err, boom)
	}
	// The error is kept like a result: a value that failed to encode
	// fails again.
	if _, err := fresh.Protobuf(func(j []byte) ([]byte, error) { return j, nil }); !errors.Is(err, boom) {
		t.Errorf("after a failed build: got %v, want the kept %v", err, boom)
	}
}

// TestServedFromStored checks that an object holding its stored bytes
// serves them with its revision stamped in.
func TestServedFromStored(t *testing.T) {
	stamp := func(stored []byte, rev int64) []byte {
		return append(append([]byte(nil), stored...), byte('0'+rev))
	}
	o := &watchcache.Object{Revision: 7, Stored: []byte("v"), Stamp: stamp}
	if got := string(o.Served()); got != "v7" {
		t.Errorf("Served: got %q, want %q", got, "v7")
	}
	eager := &watchcache.Object{Revision: 7, JSON: []byte("json"), Stored: []byte("v"), Stamp: stamp}
	if got := string(eager.Served()); got != "json" {
		t.Errorf("Served with JSON set: got %q, want %q", got, "json")
	}
}
