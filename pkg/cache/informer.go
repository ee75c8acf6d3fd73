package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Informer keeps a Store of one kind in one scope current with a
// Reflector and tells handlers what changed.
//
// Deletions reach handlers as OnDelete with the object's last known state,
// whether a watch reported them or a relist found the object gone; there
// are no tombstones. A relist tells handlers only what changed.
type Informer[T Object] struct {
	name      string
	opts      InformerOptions[T]
	store     *Store[T]
	reflector *Reflector[T]
	clock     Clock
	log       *slog.Logger

	// mu orders store writes with the fan-out to handlers, so a handler
	// added late gets the store's state plus every later change exactly
	// once.
	mu       sync.Mutex
	handlers []*runner[T]
	nextID   int
	synced   bool
	syncedCh chan struct{}
	runCtx   context.Context // set while Run runs
	ran      bool
	stopped  bool
	wg       sync.WaitGroup // handler goroutines
}

// InformerOptions configure an Informer. The zero value is the default.
type InformerOptions[T Object] struct {
	// ReflectorOptions configure listing and watching; Name also names
	// the informer in metrics.
	ReflectorOptions[T]
	// ResyncPeriod re-delivers every object to each handler, as an
	// update with old == new, this often; 0 never.
	ResyncPeriod time.Duration
	// Indexers are indexes besides NamespaceIndex.
	Indexers map[string]IndexFunc[T]
	// CheckMutations detects modified cached objects (see StoreOptions);
	// handlers are checked after each call. For tests.
	CheckMutations bool
	// OnMutation receives what checked mode finds; nil panics.
	OnMutation func(error)
	// Compact keeps the store's objects encoded and decodes them on
	// each read (see StoreOptions.Compact): about half the memory, a
	// decode per read, and every reader gets a copy of its own.
	Compact bool
	// Registerer, if set, gets the informer_handler_pending gauge while
	// the informer runs. Informers sharing a Registerer need distinct
	// names.
	Registerer prometheus.Registerer
}

// NewInformer returns an informer over lw; Run starts it.
func NewInformer[T Object](lw ListerWatcher, opts InformerOptions[T]) *Informer[T] {
	if opts.Name == "" {
		var zero T
		opts.Name = fmt.Sprintf("%T", zero)
	}
	opts.ReflectorOptions = opts.ReflectorOptions.withDefaults()
	i := &Informer[T]{
		name:     opts.Name,
		opts:     opts,
		clock:    opts.Clock,
		log:      opts.Logger.With("informer", opts.Name),
		syncedCh: make(chan struct{}),
		store: NewStore(StoreOptions[T]{
			Indexers: opts.Indexers, CheckMutations: opts.CheckMutations, OnMutation: opts.OnMutation,
			Compact: opts.Compact,
		}),
	}
	i.reflector = NewReflector(lw, i.apply, opts.ReflectorOptions)
	return i
}

// Name is the informer's name.
func (i *Informer[T]) Name() string { return i.name }

// Run runs the informer and its handlers until ctx ends, then waits for
// them and returns nil. It runs once.
func (i *Informer[T]) Run(ctx context.Context) error {
	i.mu.Lock()
	if i.ran {
		i.mu.Unlock()
		return errors.New("cache: informer already ran")
	}
	if i.opts.Registerer != nil {
		unregister, err := registerPending(i.opts.Registerer, i)
		if err != nil {
			i.mu.Unlock()
			return err
		}
		defer unregister()
	}
	i.ran, i.runCtx = true, ctx
	for _, r := range i.handlers {
		i.start(r)
	}
	i.mu.Unlock()
	err := i.reflector.Run(ctx)
	i.mu.Lock()
	i.stopped, i.runCtx = true, nil
	i.mu.Unlock()
	i.wg.Wait()
	i.store.Verify()
	return err
}

// HasSynced reports whether the first list is in the store.
func (i *Informer[T]) HasSynced() bool {
	select {
	case <-i.syncedCh:
		return true
	default:
		return false
	}
}

// ResourceVersion is the newest resourceVersion in the informer's store
// (see Reflector.ResourceVersion).
func (i *Informer[T]) ResourceVersion() string { return i.reflector.ResourceVersion() }

// WaitForResourceVersion waits until the store holds the state of
// resourceVersion rv or later, or ctx ends: after writing an object, a
// reader that waits for the write's resourceVersion reads its own write
// from the cache.
func (i *Informer[T]) WaitForResourceVersion(ctx context.Context, rv string) error {
	return i.reflector.WaitForResourceVersion(ctx, rv)
}

// Synced is closed once HasSynced is true.
func (i *Informer[T]) Synced() <-chan struct{} { return i.syncedCh }

// LastError is the reflector's latest error, until it next succeeds: why
// the informer is not synced, for health checks.
func (i *Informer[T]) LastError() error { return i.reflector.LastError() }

// Lister reads the informer's store.
func (i *Informer[T]) Lister() Lister[T] { return NewLister[T](i.store) }

// Compact reports whether the informer keeps its objects encoded: each
// read then returns an object of the reader's own, which it may modify.
func (i *Informer[T]) Compact() bool { return i.opts.Compact }

// Indexer is the informer's store, read-only.
func (i *Informer[T]) Indexer() Indexer[T] { return i.store }

// AddIndexers adds indexes to the store, at any time.
func (i *Informer[T]) AddIndexers(indexers map[string]IndexFunc[T]) error {
	return i.store.AddIndexers(indexers)
}

// AddHandler adds a handler. If the informer already holds objects, the
// handler first gets each as an add with isInInitialList true.
func (i *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.stopped {
		return nil, errors.New("cache: informer " + i.name + " has stopped")
	}
	i.nextID++
	if opts.Name == "" {
		opts.Name = fmt.Sprintf("handler-%d", i.nextID)
	}
	resync := opts.ResyncPeriod
	if resync == 0 {
		resync = i.opts.ResyncPeriod
	}
	r := &runner[T]{
		name: opts.Name, h: h, inf: i, resync: resync, log: i.log, checker: i.store.checker,
		synced: make(chan struct{}), wake: make(chan struct{}, 1), stop: make(chan struct{}),
	}
	for _, e := range i.store.snapshot() {
		r.push(e.key, notification[T]{kind: kindAdd, new: e.stored, initial: true})
	}
	if i.synced {
		r.setInformerSynced()
	}
	i.handlers = append(i.handlers, r)
	if i.runCtx != nil {
		i.start(r)
	}
	return &Registration{r}, nil
}

func (i *Informer[T]) start(r *runner[T]) {
	ctx := i.runCtx
	i.wg.Go(func() { r.run(ctx) })
}

func (i *Informer[T]) removeHandler(r *runner[T]) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for n, h := range i.handlers {
		if h == r {
			i.handlers = append(i.handlers[:n:n], i.handlers[n+1:]...)
			break
		}
	}
	r.halt()
}

// apply is the reflector's sink.
func (i *Informer[T]) apply(d Delta[T]) {
	i.mu.Lock()
	defer i.mu.Unlock()
	switch d.Op {
	case OpListStart:
		i.store.beginListing()
	case OpListItem, OpUpsert:
		key := Key(d.Object)
		old, cur, existed, same := i.store.upsert(key, d.Object)
		switch {
		case same:
		case existed:
			i.fanout(key, notification[T]{kind: kindUpdate, old: old, new: cur})
		default:
			i.fanout(key, notification[T]{kind: kindAdd, new: cur, initial: d.Op == OpListItem && !i.synced})
		}
	case OpDelete:
		key := Key(d.Object)
		if _, existed := i.store.delete(key); existed {
			// The watch's object is the final state, newer than ours.
			final := stored[T]{obj: d.Object}
			if c := i.store.checker; c != nil {
				final.sum = c.sum(d.Object)
			}
			i.fanout(key, notification[T]{kind: kindDelete, old: final})
		}
	case OpListEnd:
		i.store.endListing(func(key string, last stored[T]) {
			i.fanout(key, notification[T]{kind: kindDelete, old: last})
		})
		if !i.synced {
			i.synced = true
			close(i.syncedCh)
			for _, r := range i.handlers {
				r.setInformerSynced()
			}
		}
	}
}

func (i *Informer[T]) fanout(key string, n notification[T]) {
	for _, r := range i.handlers {
		r.push(key, n)
	}
}

// resync queues every object for r as an update with old == new.
func (i *Informer[T]) resync(r *runner[T]) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.synced {
		return
	}
	for _, e := range i.store.snapshot() {
		r.push(e.key, notification[T]{kind: kindUpdate, old: e.stored, new: e.stored, resync: true})
	}
}

// eachPending reports each handler's backlog, for metrics.
func (i *Informer[T]) eachPending(f func(handler string, n int)) {
	i.mu.Lock()
	hs := append([]*runner[T](nil), i.handlers...)
	i.mu.Unlock()
	for _, r := range hs {
		f(r.name, r.pendingCount())
	}
}
