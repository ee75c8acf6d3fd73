package garbagecollector

import (
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// awaitedCRDs remembers the CustomResourceDefinitions whose last change
// discovery has yet to show. The server may send a CRD's watch event
// before it serves (or stops serving) the kind: rediscovering once, on
// the event, can miss the kind, which would then wait for the periodic
// resync, half a minute. The discovery loop rediscovers, with backoff,
// until every awaited CRD is reflected.
type awaitedCRDs struct {
	mu sync.Mutex
	// want maps a CRD's resource (a CRD is named plural.group) to
	// whether it should be served.
	want map[schema.GroupResource]bool
}

// crdResource is the resource a CRD of this name defines.
func crdResource(name string) (schema.GroupResource, bool) {
	plural, group, ok := strings.Cut(name, ".")
	return schema.GroupResource{Group: group, Resource: plural}, ok && plural != "" && group != ""
}

// expect records that CRD name should now be served, or not.
func (a *awaitedCRDs) expect(name string, served bool) {
	gr, ok := crdResource(name)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.want == nil {
		a.want = map[schema.GroupResource]bool{}
	}
	a.want[gr] = served
}

// reflected drops the CRDs that served (what discovery lists) reflects
// and reports whether none is left. A nil served (discovery failed)
// reflects nothing.
func (a *awaitedCRDs) reflected(served map[schema.GroupResource]bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for gr, want := range a.want {
		if served != nil && served[gr] == want {
			delete(a.want, gr)
		}
	}
	return len(a.want) == 0
}

// forget gives up on the CRDs still awaited: one whose kind is never
// served (no served version, a name conflict) is left to the periodic
// resync.
func (a *awaitedCRDs) forget() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.want)
}

// Backoff of rediscovery while CRDs are awaited: the first retry comes
// soon, as discovery usually catches up within milliseconds.
const (
	awaitFirstRetry = 50 * time.Millisecond
	awaitMaxRetry   = 5 * time.Second
)

// nextRetry is the delay after prev (0 for the first retry); ok is
// false once the delays have added up to giveUp.
func nextRetry(prev, waited, giveUp time.Duration) (d time.Duration, ok bool) {
	d = min(max(2*prev, awaitFirstRetry), awaitMaxRetry)
	return d, waited+d <= giveUp
}
