// Package memory is the in-memory storage backend: the same revisioned
// contract as the bolt backend, without durability. It serves tests and
// embedded servers that do not need their state to survive a restart.
package memory

import (
	"context"
	"sort"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Store is an in-memory storage.Interface.
type Store struct {
	mu        sync.RWMutex
	rev       int64
	compacted int64
	closed    bool
	keys      map[string]*versions
	order     keyOrder
	// log holds the events for revisions compacted+1 .. rev, in order.
	log  []storage.Event
	feed *storage.Feed
	// used is the logical size of every retained version (versionCost);
	// quota is its limit, 0 for none.
	used, quota int64
}

// versions is one key's retained history, oldest first. A deleted key
// keeps a tombstone until compaction passes it.
type versions []version

type version struct {
	rev     int64
	value   []byte
	deleted bool
}

// at returns the version visible at rev, if any.
func (v versions) at(rev int64) (version, bool) {
	i := sort.Search(len(v), func(i int) bool { return v[i].rev > rev })
	if i == 0 || v[i-1].deleted {
		return version{}, false
	}
	return v[i-1], true
}

// New returns an empty store at revision 1, with no quota.
func New() *Store { return NewWithQuota(0) }

// NewWithQuota returns an empty store that refuses creates and updates
// with a *storage.QuotaError once its retained versions take quota bytes
// (keys and values, plus a fixed cost per version); 0 means no quota.
func NewWithQuota(quota int64) *Store {
	s := &Store{rev: 1, compacted: 1, keys: map[string]*versions{}, quota: max(quota, 0)}
	s.feed = storage.NewFeed(s.rev, s.history)
	return s
}

// versionOverhead approximates what a version costs besides its key and
// value: the version itself and its event in the log.
const versionOverhead = 128

func versionCost(key string, v version) int64 {
	return int64(len(key)+len(v.value)) + versionOverhead
}

// Usage implements storage.UsageReporter.
func (s *Store) Usage() (storage.Usage, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return storage.Usage{}, storage.ErrClosed
	}
	return storage.Usage{Bytes: s.used, Quota: s.quota}, nil
}

// checkQuota refuses a create or update once the store is past its quota.
// The caller holds the write lock.
func (s *Store) checkQuota() error {
	return storage.CheckQuota(storage.Usage{Bytes: s.used, Quota: s.quota})
}

var _ storage.Interface = (*Store)(nil)

// Get implements storage.Interface.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if err := storage.ValidateKey(key); err != nil {
		return storage.KeyValue{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return storage.KeyValue{}, storage.ErrClosed
	}
	vs := s.keys[key]
	if vs == nil {
		return storage.KeyValue{}, storage.ErrNotFound
	}
	v, ok := vs.at(s.rev)
	if !ok {
		return storage.KeyValue{}, storage.ErrNotFound
	}
	return storage.KeyValue{Key: key, Value: v.value, Revision: v.rev}, nil
}

// List implements storage.Interface.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	rev, after, err := opts.Position(prefix)
	if err != nil {
		return storage.ListResult{}, err
	}
	s.mu.Lock() // the key order may need to merge pending keys
	defer s.mu.Unlock()
	if s.closed {
		return storage.ListResult{}, storage.ErrClosed
	}
	if rev == 0 {
		rev = s.rev
	}
	if err := s.checkRevision(rev); err != nil {
		return storage.ListResult{}, err
	}
	res := storage.ListResult{Revision: rev}
	keys := s.order.from(prefix, after)
	for i, k := range keys {
		if !hasPrefix(k, prefix) {
			break
		}
		vs := s.keys[k]
		if vs == nil {
			continue
		}
		v, ok := vs.at(rev)
		if !ok {
			continue
		}
		if opts.Limit > 0 && int64(len(res.Items)) == opts.Limit {
			if s.anyLiveFrom(keys[i:], prefix, rev) {
				res.Continue = storage.EncodeContinue(prefix, res.Items[len(res.Items)-1].Key, rev)
			}
			break
		}
		res.Items = append(res.Items, storage.KeyValue{Key: k, Value: v.value, Revision: v.rev})
	}
	return res, nil
}

// anyLiveFrom reports whether a key in keys (sorted, from the first) exists
// at rev, so a full last page does not hand out a continue token that
// leads to an empty page.
func (s *Store) anyLiveFrom(keys []string, prefix string, rev int64) bool {
	for _, k := range keys {
		if !hasPrefix(k, prefix) {
			return false
		}
		if vs := s.keys[k]; vs != nil {
			if _, ok := vs.at(rev); ok {
				return true
			}
		}
	}
	return false
}

func (s *Store) checkRevision(rev int64) error {
	if rev < s.compacted {
		return &storage.CompactedError{Requested: rev, Oldest: s.compacted}
	}
	if rev > s.rev {
		return storage.ErrFutureRevision
	}
	return nil
}

// Create implements storage.Interface.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := storage.ValidateKey(key); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, storage.ErrClosed
	}
	// The quota is checked before the key, as the bolt backend does.
	if err := s.checkQuota(); err != nil {
		return 0, err
	}
	vs := s.keys[key]
	if vs != nil {
		if _, ok := vs.at(s.rev); ok {
			return 0, storage.ErrAlreadyExists
		}
	} else {
		vs = &versions{}
		s.keys[key] = vs
		s.order.add(key)
	}
	value = own(value)
	s.commit(vs, version{value: value}, storage.Event{Type: storage.Added, Key: key, Value: value})
	return s.rev, nil
}

// Update implements storage.Interface.
func (s *Store) Update(ctx context.Context, key string, value []byte, ifRevision int64) (int64, error) {
	if err := storage.ValidateKey(key); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		if err := s.checkQuota(); err != nil {
			return 0, err
		}
	}
	vs, cur, err := s.current(key, ifRevision)
	if err != nil {
		return 0, err
	}
	value = own(value)
	s.commit(vs, version{value: value}, storage.Event{Type: storage.Modified, Key: key, Value: value, PrevValue: cur.value})
	return s.rev, nil
}

// Delete implements storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, ifRevision int64) (storage.KeyValue, int64, error) {
	if err := storage.ValidateKey(key); err != nil {
		return storage.KeyValue{}, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vs, cur, err := s.current(key, ifRevision)
	if err != nil {
		return storage.KeyValue{}, 0, err
	}
	s.commit(vs, version{deleted: true}, storage.Event{Type: storage.Deleted, Key: key, Value: cur.value, PrevValue: cur.value})
	return storage.KeyValue{Key: key, Value: cur.value, Revision: cur.rev}, s.rev, nil
}

// current returns key's live version after checking the revision
// precondition. The caller holds the write lock.
func (s *Store) current(key string, ifRevision int64) (*versions, version, error) {
	if s.closed {
		return nil, version{}, storage.ErrClosed
	}
	vs := s.keys[key]
	if vs == nil {
		return nil, version{}, storage.ErrNotFound
	}
	cur, ok := vs.at(s.rev)
	if !ok {
		return nil, version{}, storage.ErrNotFound
	}
	if ifRevision != 0 && ifRevision != cur.rev {
		return nil, version{}, &storage.ConflictError{Key: key, Expected: ifRevision, Current: cur.rev}
	}
	return vs, cur, nil
}

// commit stamps one write with the next revision, records it and
// publishes it. The caller holds the write lock.
func (s *Store) commit(vs *versions, v version, ev storage.Event) {
	s.rev++
	v.rev, ev.Revision = s.rev, s.rev
	*vs = append(*vs, v)
	s.used += versionCost(ev.Key, v)
	s.log = append(s.log, ev)
	s.feed.Publish(s.log[len(s.log)-1:])
}

// Watch implements storage.Interface.
func (s *Store) Watch(ctx context.Context, prefix string, afterRevision int64) (<-chan storage.Event, error) {
	if err := storage.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, storage.ErrClosed
	}
	if afterRevision == 0 {
		afterRevision = s.rev
	}
	if afterRevision < s.compacted {
		return nil, &storage.CompactedError{Requested: afterRevision, Oldest: s.compacted}
	}
	return s.feed.Watch(ctx, prefix, afterRevision), nil
}

// history serves the feed's catch-up reads from the log.
func (s *Store) history(prefix string, after, upTo int64, limit int) ([]storage.Event, int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if after < s.compacted {
		return nil, 0, &storage.CompactedError{Requested: after, Oldest: s.compacted}
	}
	var out []storage.Event
	scanned := after
	for i := after - s.compacted; i < int64(len(s.log)); i++ {
		ev := s.log[i]
		if ev.Revision > upTo || len(out) == limit {
			break
		}
		scanned = ev.Revision
		if hasPrefix(ev.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out, scanned, nil
}

// Revision implements storage.Interface.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, storage.ErrClosed
	}
	return s.rev, nil
}

// Compact implements storage.Interface. Memory compaction is quick, so it
// runs in one step.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storage.ErrClosed
	}
	if revision > s.rev {
		return storage.ErrFutureRevision
	}
	if revision <= s.compacted {
		return nil
	}
	n := revision - s.compacted
	seen := make(map[string]struct{})
	for _, ev := range s.log[:n] {
		if _, ok := seen[ev.Key]; ok {
			continue
		}
		seen[ev.Key] = struct{}{}
		vs := s.keys[ev.Key]
		// Keep only the version visible at revision, and not even that
		// when it is a tombstone.
		i := sort.Search(len(*vs), func(i int) bool { return (*vs)[i].rev > revision })
		if i == 0 {
			continue
		}
		keep := (*vs)[i-1:]
		if keep[0].deleted {
			keep = keep[1:]
		}
		for _, v := range (*vs)[:len(*vs)-len(keep)] {
			s.used -= versionCost(ev.Key, v)
		}
		if len(keep) == 0 {
			delete(s.keys, ev.Key)
			s.order.removed++
			continue
		}
		*vs = append((*vs)[:0], keep...)
	}
	// Copy rather than reslice so the compacted events can be freed.
	s.log = append([]storage.Event(nil), s.log[n:]...)
	s.compacted = revision
	s.order.prune(s.keys)
	return nil
}

// Close implements storage.Interface.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.feed.Close()
	return nil
}

// own is the value a write keeps: the caller's bytes themselves, which
// storage.Interface lets a store keep, so that a cache of the same bytes
// (the API server's watch cache) shares them instead of holding a copy.
// A nil value is stored as empty, as the bolt backend reads it back.
func own(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b[:len(b):len(b)]
}

func hasPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && s[:len(prefix)] == prefix
}
