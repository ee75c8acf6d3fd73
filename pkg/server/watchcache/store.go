package watchcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Store feeds every resource's Cache from one storage watch on the key
// root.
type Store struct {
	storage storage.Interface
	limits  Limits
	logger  *slog.Logger
	// OnEvent, when set, is called on the Store's goroutine after each
	// event is applied; the server uses it to serve CRDs as they change.
	onEvent  func(gr schema.GroupResource, ev *Event)
	onListed func()

	// mu serializes applying events with adding and removing caches, so a
	// cache added is listed at exactly the revision the Store is at.
	mu     sync.Mutex
	caches map[schema.GroupResource]*Cache
	// applied is the last revision applied to the caches, under mu. It
	// runs ahead of rev (published after the OnEvent hook), and it is
	// what a cache added now must be listed at.
	applied int64
	rev     atomic.Int64

	offered offers

	progressMu sync.Mutex
	progress   chan struct{} // closed when rev next advances
	ready      chan struct{}
}

// Config configures a Store.
type Config struct {
	Limits Limits
	Logger *slog.Logger
	// OnEvent is called after each event is applied, on the Store's
	// goroutine, in revision order.
	OnEvent func(gr schema.GroupResource, ev *Event)
	// OnListed is called once, after the first listing and before Ready
	// closes; caches added from it are listed at that same revision.
	OnListed func()
}

// New returns a Store over s. Add resources, then Start it.
func New(s storage.Interface, cfg Config) *Store {
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Store{storage: s, limits: cfg.Limits, logger: cfg.Logger, onEvent: cfg.OnEvent, onListed: cfg.OnListed,
		caches: map[schema.GroupResource]*Cache{}, progress: make(chan struct{}), ready: make(chan struct{})}
}

// Add starts caching a resource and returns its cache; adding one already
// cached returns the existing cache. Before Start, the cache is filled by
// Start's first listing; after, it is listed here at the Store's revision.
func (s *Store) Add(ctx context.Context, gr schema.GroupResource, decode DecodeFunc) (*Cache, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.caches[gr]; ok {
		return c, nil
	}
	c := newCache(s, registry.PrefixFor(gr), decode, s.limits)
	if rev := s.applied; rev > 0 {
		items, err := s.list(ctx, c, rev)
		if err != nil {
			return nil, err
		}
		c.reset(items, rev)
	}
	s.caches[gr] = c
	return c, nil
}

// Remove stops caching a resource and ends its watchers.
func (s *Store) Remove(gr schema.GroupResource) {
	s.mu.Lock()
	c, ok := s.caches[gr]
	delete(s.caches, gr)
	s.mu.Unlock()
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removed = true
	for w := range c.watchers {
		w.end(ErrRemoved)
	}
	clear(c.watchers)
}

// Cache returns the cache of a resource.
func (s *Store) Cache(gr schema.GroupResource) (*Cache, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.caches[gr]
	return c, ok
}

// Ready is closed once every cache holds its first listing.
func (s *Store) Ready() <-chan struct{} { return s.ready }

// Revision is the storage revision every cache has caught up with.
func (s *Store) Revision() int64 { return s.rev.Load() }

// WaitFor blocks until the Store has applied revision rev.
func (s *Store) WaitFor(ctx context.Context, rev int64) error {
	for {
		s.progressMu.Lock()
		ch := s.progress
		s.progressMu.Unlock()
		if s.rev.Load() >= rev {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitFresh blocks until every write storage has acknowledged is in the
// caches, which makes a read from them consistent.
func (s *Store) WaitFresh(ctx context.Context) error {
	rev, err := s.storage.Revision(ctx)
	if err != nil {
		return err
	}
	pr, ok := s.storage.(storage.ProgressRequester)
	if !ok || s.rev.Load() >= rev {
		return s.WaitFor(ctx, rev)
	}
	// Writes outside the cached keys move the revision too (other users
	// of an etcd cluster): the watch reports how far it has read when
	// asked, and is asked again while the wait lasts.
	for {
		if err := pr.RequestProgress(ctx); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, progressInterval)
		err := s.WaitFor(wctx, rev)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
}

// progressInterval is how often a wait for freshness asks the store for
// progress again.
const progressInterval = 250 * time.Millisecond

// Start lists every cached resource, then applies the storage watch until
// ctx ends. If the watch fails (it fell behind compaction), every cache is
// listed again and its watchers are ended so their clients resume.
func (s *Store) Start(ctx context.Context) error {
	first := true
	for {
		rev, err := s.relist(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if first {
			if s.onListed != nil {
				s.onListed()
			}
			close(s.ready)
			first = false
		}
		err = s.run(ctx, rev)
		if ctx.Err() != nil || errors.Is(err, storage.ErrClosed) {
			return nil
		}
		s.logger.Warn("watch cache restarting", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *Store) relist(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rev, err := s.storage.Revision(ctx)
	if err != nil {
		return 0, err
	}
	for _, c := range s.caches {
		items, err := s.list(ctx, c, rev)
		if err != nil {
			return 0, err
		}
		c.reset(items, rev)
	}
	s.applied = rev
	s.advance(rev)
	return rev, nil
}

func (s *Store) list(ctx context.Context, c *Cache, rev int64) ([]*Object, error) {
	var items []*Object
	opts := storage.ListOptions{Revision: rev, Limit: 1000}
	for {
		res, err := s.storage.List(ctx, c.prefix, opts)
		if err != nil {
			return nil, fmt.Errorf("watchcache: listing %s: %w", c.prefix, err)
		}
		for _, kv := range res.Items {
			c.mu.RLock()
			decode := c.decode
			c.mu.RUnlock()
			o, err := decode(kv.Key, kv.Value, kv.Revision)
			if err != nil {
				s.logger.Error("undecodable stored object", "key", kv.Key, "revision", kv.Revision, "err", err)
				continue
			}
			items = append(items, o)
		}
		if res.Continue == "" {
			return items, nil
		}
		opts.Continue = res.Continue
	}
}

func (s *Store) run(ctx context.Context, rev int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := s.storage.Watch(ctx, registry.KeyRoot(), rev)
	if err != nil {
		return err
	}
	for ev := range events {
		if ev.Err != nil {
			return ev.Err
		}
		if ev.Type == storage.Progress {
			s.mu.Lock()
			s.applied = max(s.applied, ev.Revision)
			s.mu.Unlock()
			s.advance(ev.Revision)
			continue
		}
		gr, _, ok := registry.ParseKey(ev.Key)
		s.mu.Lock()
		c := s.caches[gr]
		var applied *Event
		if ok && c != nil {
			applied = c.apply(ev)
		}
		s.applied = ev.Revision
		s.mu.Unlock()
		// The hook runs before the revision is published, so a writer
		// waiting for its revision sees the hook's effects too.
		if applied != nil && s.onEvent != nil {
			s.onEvent(gr, applied)
		}
		s.advance(ev.Revision)
	}
	return ctx.Err()
}

// advance publishes a new revision and wakes WaitFor callers.
func (s *Store) advance(rev int64) {
	s.rev.Store(rev)
	s.progressMu.Lock()
	close(s.progress)
	s.progress = make(chan struct{})
	s.progressMu.Unlock()
}
