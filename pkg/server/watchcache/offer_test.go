package watchcache_test

import (
	"bytes"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// TestOffer checks that the cache takes an offered object for the write
// it describes, and decodes every other write: an offer for another
// revision, or for one already applied, is never served.
func TestOffer(t *testing.T) {
	tests := []struct {
		name string
		// at is the offer's revision, relative to the write's.
		at        int64
		wantTaken bool
	}{
		{name: "the write's revision", at: 0, wantTaken: true},
		{name: "an applied revision", at: -1, wantTaken: false},
		{name: "a later revision", at: 1, wantTaken: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, watchcache.DefaultLimits, nil)
			rev, _ := e.put("a", "cm", "x")
			e.sync(rev)
			k := key(configMaps, "a", "cm")
			// The memory store's next write gets the next revision.
			next := rev + 1
			offered := &watchcache.Object{Key: k, Namespace: "a", Name: "cm", Revision: next + tt.at, JSON: []byte(`{"offered":true}`)}
			e.store.Offer(offered)
			if got, _ := e.put("a", "cm", "y"); got != next {
				t.Fatalf("write at %d, want %d", got, next)
			}
			e.sync(next)
			got, _ := e.cache.Get(k)
			if taken := got == offered; taken != tt.wantTaken {
				t.Errorf("offered object served = %v, want %v", taken, tt.wantTaken)
			}
			if !tt.wantTaken && !bytes.Contains(got.JSON, []byte(`"team":"y"`)) {
				t.Errorf("cached %s, want the decoded write", got.JSON)
			}
		})
	}
}
