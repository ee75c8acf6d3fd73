package watchcache

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Cache holds one resource's objects and recent events.
type Cache struct {
	store  *Store
	prefix string
	decode DecodeFunc
	limits Limits

	mu      sync.RWMutex
	objects map[string]*Object
	keys    []string // sorted keys of objects; nil when stale
	bytes   int64    // total JSON bytes of objects
	// log[head:] holds the latest events in revision order; every event
	// after logStart is in it. Dropped events are cleared in place and
	// the live part is copied down only once it is the smaller half, so
	// an append costs O(1) amortized however long the log is.
	log      []*Event
	head     int
	logBytes int
	logStart int64
	lastRev  int64 // revision of the latest applied event
	watchers map[*Watcher]struct{}
	removed  bool
}

// Limits bound a cache's event log: it drops its oldest events beyond
// MaxEvents or MaxBytes, whichever is reached first. The byte bound holds
// however few events that leaves (none, if the newest alone is larger): a
// watch resuming from before the log then ends with 410 Gone and its
// client lists again, which costs less than holding hundreds of MiB of
// large objects' past versions per resource.
type Limits struct {
	MaxEvents int
	MaxBytes  int
	// WatchBuffer is how many events a watcher may fall behind before it
	// is ended.
	WatchBuffer int
}

// DefaultLimits keep up to 10,240 events or 16 MiB per resource, and let a
// watcher fall 256 events behind.
var DefaultLimits = Limits{MaxEvents: 10240, MaxBytes: 16 << 20, WatchBuffer: 256}

// ErrExpired is returned when a watch asks for history the log no longer
// has; the client must list again.
var ErrExpired = errors.New("watchcache: resource version too old")

// ErrRemoved is returned once the resource is no longer served.
var ErrRemoved = errors.New("watchcache: resource removed")

func newCache(s *Store, prefix string, decode DecodeFunc, limits Limits) *Cache {
	return &Cache{store: s, prefix: prefix, decode: decode, limits: limits,
		objects: map[string]*Object{}, watchers: map[*Watcher]struct{}{}}
}

// reset replaces the content with a listing taken at rev and ends every
// watcher, whose clients will resume or relist.
func (c *Cache) reset(items []*Object, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.objects = make(map[string]*Object, len(items))
	c.bytes = 0
	for _, o := range items {
		c.objects[o.Key] = o
		c.bytes += int64(o.size())
	}
	c.keys = nil
	c.log, c.head, c.logBytes, c.logStart, c.lastRev = nil, 0, 0, rev, rev
	for w := range c.watchers {
		w.end(ErrExpired)
	}
	clear(c.watchers)
}

// Redecode makes decode the way stored values become served objects and
// rebuilds every cached object with it, keeping watchers: a custom
// resource's objects change form when its schema changes, not when they
// are written. Events already logged keep their form. It runs on the
// Store's goroutine only, like apply.
func (c *Cache) Redecode(decode DecodeFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.decode = decode
	c.bytes = 0
	for key, o := range c.objects {
		// Served JSON decodes like the stored value: the decoder sets
		// resourceVersion from the revision either way.
		n, err := decode(key, o.Served(), o.Revision)
		if err != nil {
			c.store.logger.Error("undecodable cached object", "key", key, "revision", o.Revision, "err", err)
			n = o
		}
		c.objects[key] = n
		c.bytes += int64(n.size())
	}
}

// apply records one storage event. It runs on the Store's goroutine only.
func (c *Cache) apply(se storage.Event) *Event {
	ev := &Event{Type: se.Type, Revision: se.Revision}
	c.mu.RLock()
	decode := c.decode
	c.mu.RUnlock()
	var err error
	switch se.Type {
	case storage.Added, storage.Modified:
		if ev.Object = c.store.take(se.Key, se.Value, se.Revision); ev.Object == nil {
			ev.Object, err = decode(se.Key, se.Value, se.Revision)
		}
	case storage.Deleted:
		ev.Object, err = decode(se.Key, se.PrevValue, se.Revision)
	}
	if err != nil {
		// A stored value the server cannot read was not written by it;
		// skipping keeps every other object served.
		c.store.logger.Error("undecodable stored object", "key", se.Key, "revision", se.Revision, "err", err)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, had := c.objects[se.Key]
	if had {
		ev.Prev = prev
		c.bytes -= int64(prev.size())
	}
	if se.Type == storage.Deleted {
		delete(c.objects, se.Key)
		if had {
			c.keys = nil
		}
	} else {
		c.objects[se.Key] = ev.Object
		c.bytes += int64(ev.Object.size())
		if !had {
			c.keys = nil
		}
	}
	c.lastRev = se.Revision
	c.appendLog(ev)
	for w := range c.watchers {
		if w.namespace != "" && w.namespace != ev.Object.Namespace {
			continue
		}
		select {
		case w.ch <- ev:
		default:
			w.end(ErrTooSlow)
			delete(c.watchers, w)
		}
	}
	return ev
}

func (c *Cache) appendLog(ev *Event) {
	c.log = append(c.log, ev)
	c.logBytes += ev.size()
	for c.head < len(c.log) && (len(c.log)-c.head > c.limits.MaxEvents || c.logBytes > c.limits.MaxBytes) {
		c.logBytes -= c.log[c.head].size()
		c.logStart = c.log[c.head].Revision
		// Cleared so the backing array does not keep it alive.
		c.log[c.head] = nil
		c.head++
	}
	if c.head > 0 && c.head >= len(c.log)-c.head {
		n := copy(c.log, c.log[c.head:])
		clear(c.log[n:])
		c.log, c.head = c.log[:n], 0
	}
}

// events is the live log.
func (c *Cache) events() []*Event { return c.log[c.head:] }

// Get returns the current object under key, or nil, and the revision the
// answer is true at.
func (c *Cache) Get(key string) (*Object, int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.objects[key], c.revLocked()
}

// revLocked is the revision the cache's content is true at: every event
// up to it has been applied. The Store advances its revision only after
// applying an event, so holding c.mu, no event of this cache at or below
// the Store's revision can be missing.
func (c *Cache) revLocked() int64 {
	return max(c.lastRev, c.store.rev.Load())
}

// ListOptions choose what List returns.
type ListOptions struct {
	// Namespace limits the listing to one namespace; "" is all.
	Namespace string
	// After skips keys up to and including this one (a continue point).
	After string
	// Limit is the most objects returned; 0 is no limit.
	Limit int
	// Match filters objects; nil matches all.
	Match func(*Object) bool
}

// ListResult is a page of a listing.
type ListResult struct {
	Items    []*Object
	Revision int64
	// More is set when objects beyond the page match.
	More bool
	// Remaining counts objects after the page, when known (no filter).
	Remaining int64
}

// List returns the current objects in key order.
func (c *Cache) List(opts ListOptions) ListResult {
	res, _ := c.list(opts, 0)
	return res
}

// ListAt is List of the objects as they were at rev, which the cache
// can answer once it has seen everything up to rev, for as long as its
// event log reaches back to rev: the objects changed since are taken as
// they were before their first change. A paged listing then goes on from
// the cache instead of from storage.
func (c *Cache) ListAt(rev int64, opts ListOptions) (ListResult, bool) {
	return c.list(opts, rev)
}

// canListAt reports whether the cache can answer for revision at; the
// caller holds c.mu.
func (c *Cache) canListAt(at int64) bool {
	return c.revLocked() >= at && (c.lastRev <= at || c.logStart <= at)
}

// list is List, or ListAt when at is not zero.
func (c *Cache) list(opts ListOptions, at int64) (ListResult, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.keys == nil {
		// Upgrade: rebuilding the key order needs the write lock.
		c.mu.RUnlock()
		c.mu.Lock()
		if c.keys == nil {
			keys := make([]string, 0, len(c.objects))
			for k := range c.objects {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			c.keys = keys
		}
		c.mu.Unlock()
		c.mu.RLock()
	}
	if at != 0 {
		if !c.canListAt(at) {
			return ListResult{}, false
		}
		if c.lastRev > at {
			return c.listPast(opts, at), true
		}
	}
	if c.keys == nil {
		// The set changed again since the upgrade; an unsorted pass is
		// still correct, just rarer than a rebuild.
		return c.listUnsorted(opts, at), true
	}
	res := ListResult{Revision: c.revLocked()}
	if at != 0 {
		res.Revision = at
	}
	start, end := c.bounds(opts)
	i := sort.SearchStrings(c.keys, start)
	for ; i < len(c.keys); i++ {
		k := c.keys[i]
		if !strings.HasPrefix(k, end) {
			break
		}
		o := c.objects[k]
		if opts.Match != nil && !opts.Match(o) {
			continue
		}
		if opts.Limit > 0 && len(res.Items) == opts.Limit {
			res.More = true
			if opts.Match == nil {
				res.Remaining = int64(countPrefix(c.keys[i:], end))
			}
			break
		}
		res.Items = append(res.Items, o)
	}
	return res, true
}

// bounds are where a listing's keys start (past opts.After) and the
// prefix they all share (the resource's, or its namespace's).
func (c *Cache) bounds(opts ListOptions) (start, prefix string) {
	prefix = c.prefix
	if opts.Namespace != "" {
		prefix += opts.Namespace + "/"
	}
	start = prefix
	if opts.After > start {
		start = opts.After + "\x00"
	}
	return start, prefix
}

func (c *Cache) listUnsorted(opts ListOptions, at int64) ListResult {
	res := ListResult{Revision: c.revLocked()}
	if at != 0 {
		res.Revision = at
	}
	ns := c.prefix
	if opts.Namespace != "" {
		ns += opts.Namespace + "/"
	}
	for k, o := range c.objects {
		if strings.HasPrefix(k, ns) && k > opts.After && (opts.Match == nil || opts.Match(o)) {
			res.Items = append(res.Items, o)
		}
	}
	sortByKey(res.Items)
	if opts.Limit > 0 && len(res.Items) > opts.Limit {
		if opts.Match == nil {
			res.Remaining = int64(len(res.Items) - opts.Limit)
		}
		res.Items, res.More = res.Items[:opts.Limit], true
	}
	return res
}

func countPrefix(keys []string, prefix string) int {
	return sort.Search(len(keys), func(i int) bool { return !strings.HasPrefix(keys[i], prefix) })
}

// Stats are figures for metrics.
type Stats struct {
	Objects, Bytes int64
	Watchers       int
	LogEvents      int
}

// Stats returns the cache's current size.
func (c *Cache) Stats() Stats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Stats{Objects: int64(len(c.objects)), Bytes: c.bytes, Watchers: len(c.watchers), LogEvents: len(c.events())}
}

func sortByKey(objs []*Object) {
	slices.SortFunc(objs, func(a, b *Object) int { return strings.Compare(a.Key, b.Key) })
}
