package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// errGraphIncomplete: a decision needs every dependent of an object in
// the graph, and kinds just watched have not all been listed yet.
var errGraphIncomplete = errors.New("garbagecollector: informers of new kinds have not synced")

// graphRetry is how soon a decision put off by errGraphIncomplete is
// tried again.
const graphRetry = 200 * time.Millisecond

// syncGate tells whether the graph holds the objects of every kind
// watched, once their informers have listed them, or once a kind has
// had SyncTimeout to do so. Only the decisions that need all of an
// owner's dependents wait on it (releasing a foreground or orphan
// deletion); deleting an object whose owners are gone does not, so an
// informer that cannot list (a kind whose CRD was just deleted, a
// failing conversion) never holds up collection of the other kinds.
type syncGate struct {
	timeout time.Duration
	log     *slog.Logger

	mu       sync.Mutex
	pending  []*monitor
	deadline time.Time
}

// add makes the gate wait for ms too, for at most the timeout from now.
func (g *syncGate) add(ms []*monitor) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, ms...)
	g.deadline = time.Now().Add(g.timeout)
}

// complete reports whether the graph holds every watched kind's objects,
// or the laggards' time is up (they are then logged and let go).
func (g *syncGate) complete(ctx context.Context) bool {
	if g == nil {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	left := g.pending[:0]
	for _, m := range g.pending {
		if !m.stopped.Load() && len(unsynced([]*monitor{m})) > 0 {
			left = append(left, m)
		}
	}
	clear(g.pending[len(left):])
	g.pending = left
	if len(left) == 0 {
		return true
	}
	if time.Now().Before(g.deadline) {
		return false
	}
	g.log.WarnContext(ctx, "informers did not sync in time; collecting without them", "kinds", unsynced(left), "timeout", g.timeout)
	clear(g.pending)
	g.pending = g.pending[:0]
	return true
}
