package cache

import "time"

// Handler is told about changes to an informer's objects. Each handler
// has its own goroutine and buffer, so a slow one delays only itself; its
// calls are sequential. The objects are the cache's own: do not modify
// them.
type Handler[T Object] interface {
	// OnAdd is an object new to the handler; isInInitialList is true
	// for the objects of the first list (or, for a handler added late,
	// of the cache at that time).
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is a changed object; old is the state this handler last
	// saw. A resync calls it with old == new.
	OnUpdate(old, new T)
	// OnDelete is a deleted object in its last known state, whether the
	// deletion was watched or found by a relist.
	OnDelete(obj T)
}

// HandlerFuncs adapts functions to Handler; nil ones are skipped.
type HandlerFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(old, new T)
	DeleteFunc func(obj T)
}

// OnAdd calls AddFunc.
func (f HandlerFuncs[T]) OnAdd(obj T, initial bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, initial)
	}
}

// OnUpdate calls UpdateFunc.
func (f HandlerFuncs[T]) OnUpdate(old, new T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc.
func (f HandlerFuncs[T]) OnDelete(obj T) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// HandlerOptions configure one handler.
type HandlerOptions struct {
	// Name labels the handler in logs and metrics; empty means
	// "handler-N".
	Name string
	// ResyncPeriod overrides the informer's for this handler; negative
	// turns resync off.
	ResyncPeriod time.Duration
}

// Registration is a handler added to an informer.
type Registration struct{ r registrant }

type registrant interface {
	handlerName() string
	pendingCount() int
	syncedChan() <-chan struct{}
	remove()
}

// Name is the handler's name.
func (g *Registration) Name() string { return g.r.handlerName() }

// Pending is how many notifications wait for the handler, after
// coalescing.
func (g *Registration) Pending() int { return g.r.pendingCount() }

// HasSynced reports whether the handler has been told, and has returned
// from, every object of the informer's initial list (or, if it was added
// late, of the cache when it was added).
func (g *Registration) HasSynced() bool {
	select {
	case <-g.r.syncedChan():
		return true
	default:
		return false
	}
}

// Synced is closed once HasSynced is true.
func (g *Registration) Synced() <-chan struct{} { return g.r.syncedChan() }

// Remove stops deliveries to the handler and drops what is pending. A
// call in progress finishes.
func (g *Registration) Remove() { g.r.remove() }
