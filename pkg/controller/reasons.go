package controller

import (
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// reasonBook collects, per request, the causes of its next reconcile.
// A request's causes are merged while it waits in the queue and handed
// to the worker that takes it. A requeue's cause is held until the
// requeue is due, so a reconcile an event brings forward does not claim
// it.
type reasonBook struct {
	mu        sync.Mutex
	pending   map[reconcile.Request]*reconcile.Reasons
	scheduled map[reconcile.Request]time.Time
}

func (b *reasonBook) add(req reconcile.Request, r reconcile.Reason) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[reconcile.Request]*reconcile.Reasons{}
	}
	rs := b.pending[req]
	if rs == nil {
		rs = &reconcile.Reasons{}
		b.pending[req] = rs
	}
	rs.Add(r)
}

// schedule notes a requeue of req due at due.
func (b *reasonBook) schedule(req reconcile.Request, due time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.scheduled == nil {
		b.scheduled = map[reconcile.Request]time.Time{}
	}
	b.scheduled[req] = due
}

// take returns and forgets the causes of req's reconcile starting now.
func (b *reasonBook) take(req reconcile.Request, now time.Time) reconcile.Reasons {
	b.mu.Lock()
	defer b.mu.Unlock()
	var rs reconcile.Reasons
	if p := b.pending[req]; p != nil {
		rs = *p
		delete(b.pending, req)
	}
	if due, ok := b.scheduled[req]; ok && !now.Before(due) {
		rs.Add(reconcile.Reason{Trigger: reconcile.TriggerRequeue})
		delete(b.scheduled, req)
	}
	return rs
}
