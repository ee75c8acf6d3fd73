package watchcache_test

import (
	"bytes"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// TestOffer checks that the cache takes an offered object for the write
// of exactly its bytes, with the write's revision, and decodes every
// other write: an offer for other bytes, or one withdrawn, is never
// served.
func TestOffer(t *testing.T) {
	tests := []struct {
		name      string
		stored    func(written []byte) []byte
		withdraw  bool
		wantTaken bool
	}{
		{name: "the written bytes", stored: func(w []byte) []byte { return w }, wantTaken: true},
		{name: "a copy of them", stored: func(w []byte) []byte { return bytes.Clone(w) }, wantTaken: true},
		{name: "other bytes", stored: func([]byte) []byte { return []byte(`{"other":true}`) }},
		{name: "withdrawn", stored: func(w []byte) []byte { return w }, withdraw: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, watchcache.DefaultLimits, nil)
			rev, _ := e.put("a", "cm", "x")
			e.sync(rev)
			k := key(configMaps, "a", "cm")
			written := value("a", "cm", "y", 99)
			offered := &watchcache.Object{Key: k, Namespace: "a", Name: "cm", Stored: tt.stored(written),
				Stamp: func(stored []byte, rev int64) []byte { return stored }}
			withdraw := e.store.Offer(offered)
			if tt.withdraw {
				withdraw()
			}
			next, err := e.mem.Update(e.ctx, k, written, 0)
			if err != nil {
				t.Fatal(err)
			}
			e.sync(next)
			got, _ := e.cache.Get(k)
			if taken := got == offered; taken != tt.wantTaken {
				t.Errorf("offered object served = %v, want %v", taken, tt.wantTaken)
			}
			if got.Revision != next {
				t.Errorf("Revision = %d, want the write's %d", got.Revision, next)
			}
			if !bytes.Contains(got.Served(), []byte(`"team":"y"`)) {
				t.Errorf("cached %s, want the write", got.Served())
			}
		})
	}
}
