package client

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// defaultRefreshInterval is how long a kind discovery did not list
	// is believed missing.
	defaultRefreshInterval = 3 * time.Second
	// loadTimeout bounds one discovery load, which runs on behalf of
	// every caller waiting for it, whatever their own contexts.
	loadTimeout = 30 * time.Second
)

// DiscoveryMapper maps kinds to resources from a server's discovery
// documents. It loads them on first use and again when asked for
// something they do not list, so a CRD created after start is found.
//
// Refreshes are rate-limited per question, not globally: once a lookup
// has missed after a refresh, the same lookup answers "no match" without
// asking the server again for DiscoveryRefreshInterval. A kind never asked
// for before still gets a refresh at once, which is what makes "create
// the CRD, then use its kind" work; and a CRD written through the owning
// client forgets every remembered miss. Concurrent refreshes share one
// request.
//
// It implements meta.ResettableRESTMapper and its WithContext variant.
type DiscoveryMapper struct {
	fetch    func(context.Context) ([]apiResource, error)
	interval time.Duration
	now      func() time.Time

	mu      sync.Mutex
	snap    *snapshot
	seq     uint64               // loads started
	loading *load                // the load in flight
	missed  map[string]time.Time // lookups that missed after a refresh
}

// load is one discovery load, shared by its waiters.
type load struct {
	seq  uint64
	done chan struct{}
	snap *snapshot
	err  error
}

func newDiscoveryMapper(c *Client, interval time.Duration) *DiscoveryMapper {
	if interval <= 0 {
		interval = defaultRefreshInterval
	}
	return &DiscoveryMapper{fetch: c.discover, interval: interval, now: time.Now, missed: map[string]time.Time{}}
}

var (
	_ meta.ResettableRESTMapper            = (*DiscoveryMapper)(nil)
	_ meta.ResettableRESTMapperWithContext = (*DiscoveryMapper)(nil)
)

// errMiss: the snapshot does not answer the question.
var errMiss = errors.New("no match")

// find answers a question f about discovery, refreshing on a miss unless
// the same question missed recently.
func (m *DiscoveryMapper) find(ctx context.Context, key string, f func(*snapshot) bool) error {
	m.mu.Lock()
	snap, seen := m.snap, m.seq
	missedAt, missed := m.missed[key]
	m.mu.Unlock()
	if snap != nil {
		if f(snap) {
			return nil
		}
		if missed && m.now().Sub(missedAt) < m.interval {
			return errMiss
		}
	}
	snap, err := m.refresh(ctx, seen)
	if err != nil {
		return err
	}
	if f(snap) {
		return nil
	}
	m.mu.Lock()
	m.missed[key] = m.now()
	m.mu.Unlock()
	return errMiss
}

// refresh returns a snapshot from a load that started after the caller
// looked (its seq is above seen), starting one or joining one in flight.
// A load that began earlier may predate what the caller is looking for
// (a CRD created a moment ago), so it does not count.
func (m *DiscoveryMapper) refresh(ctx context.Context, seen uint64) (*snapshot, error) {
	for {
		m.mu.Lock()
		if m.snap != nil && m.snap.seq > seen {
			s := m.snap
			m.mu.Unlock()
			return s, nil
		}
		l := m.loading
		if l == nil {
			m.seq++
			l = &load{seq: m.seq, done: make(chan struct{})}
			m.loading = l
			go m.run(l)
		}
		m.mu.Unlock()
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.err != nil && l.seq > seen {
			return nil, l.err
		}
	}
}

// run performs a load on its own context: one waiter giving up must not
// fail the others.
func (m *DiscoveryMapper) run(l *load) {
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	res, err := m.fetch(ctx)
	m.mu.Lock()
	if err == nil {
		l.snap = newSnapshot(l.seq, res)
		m.snap = l.snap
	}
	l.err = err
	m.loading = nil
	m.mu.Unlock()
	close(l.done)
}

// Reset drops what discovery said; the next lookup loads it again.
func (m *DiscoveryMapper) Reset() { m.ResetWithContext(context.Background()) }

// ResetWithContext is Reset.
func (m *DiscoveryMapper) ResetWithContext(context.Context) {
	m.mu.Lock()
	m.snap = nil
	clear(m.missed)
	m.mu.Unlock()
}

// forgetMisses makes every lookup that missed refresh again on its next
// miss: the caller has just changed what the server serves.
func (m *DiscoveryMapper) forgetMisses() {
	m.mu.Lock()
	clear(m.missed)
	m.mu.Unlock()
}

// snapshot is one load's resources, in discovery's priority order.
type snapshot struct {
	seq       uint64
	resources []apiResource
}

func newSnapshot(seq uint64, res []apiResource) *snapshot {
	return &snapshot{seq: seq, resources: res}
}

func (r *apiResource) mapping() *meta.RESTMapping {
	scope := meta.RESTScopeRoot
	if r.namespaced {
		scope = meta.RESTScopeNamespace
	}
	return &meta.RESTMapping{Resource: r.gvr, GroupVersionKind: r.gvr.GroupVersion().WithKind(r.kind), Scope: scope}
}

// mappings returns gk's resources in the given versions, in the order
// asked for, or in every version by preference when none are given.
func (s *snapshot) mappings(gk schema.GroupKind, versions []string) []*meta.RESTMapping {
	var out []*meta.RESTMapping
	match := func(version string) {
		for i := range s.resources {
			r := &s.resources[i]
			if r.kind == gk.Kind && r.gvr.Group == gk.Group && (version == "" || r.gvr.Version == version) {
				out = append(out, r.mapping())
			}
		}
	}
	asked := false
	for _, v := range versions {
		if v != "" {
			asked = true
			match(v)
		}
	}
	if !asked {
		match("")
	}
	return out
}

// matching returns the resources a partial resource names: empty group
// and version match any; the resource is a plural or singular name.
func (s *snapshot) matching(p schema.GroupVersionResource) []*apiResource {
	name := strings.ToLower(p.Resource)
	var out []*apiResource
	for i := range s.resources {
		r := &s.resources[i]
		if (p.Group == "" || p.Group == r.gvr.Group) && (p.Version == "" || p.Version == r.gvr.Version) &&
			(name == r.gvr.Resource || name == r.singular) {
			out = append(out, r)
		}
	}
	return out
}

func key(parts ...string) string { return strings.Join(parts, "|") }

// RESTMappingWithContext returns gk's resource in the first of versions
// served, or in its preferred version when none are given.
func (m *DiscoveryMapper) RESTMappingWithContext(ctx context.Context, gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	ms, err := m.RESTMappingsWithContext(ctx, gk, versions...)
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// RESTMappingsWithContext returns all of gk's resources in versions (all
// versions when none are given), preferred first.
func (m *DiscoveryMapper) RESTMappingsWithContext(ctx context.Context, gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	var out []*meta.RESTMapping
	err := m.find(ctx, key(append([]string{"kind", gk.Group, gk.Kind}, versions...)...), func(s *snapshot) bool {
		out = s.mappings(gk, versions)
		return len(out) > 0
	})
	if errors.Is(err, errMiss) {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return out, err
}

// KindsForWithContext returns the kinds a partial resource may name, by
// priority.
func (m *DiscoveryMapper) KindsForWithContext(ctx context.Context, resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	err := m.find(ctx, key("resource", resource.String()), func(s *snapshot) bool {
		out = out[:0]
		for _, r := range s.matching(resource) {
			out = append(out, r.gvr.GroupVersion().WithKind(r.kind))
		}
		return len(out) > 0
	})
	if errors.Is(err, errMiss) {
		return nil, &meta.NoResourceMatchError{PartialResource: resource}
	}
	return out, err
}

// KindForWithContext returns the kind a partial resource names; where
// several match (events in core and events.k8s.io) the one discovery
// lists first wins, as with kubectl.
func (m *DiscoveryMapper) KindForWithContext(ctx context.Context, resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	kinds, err := m.KindsForWithContext(ctx, resource)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return kinds[0], nil
}

// ResourcesForWithContext returns the full resources a partial resource
// may name, by priority.
func (m *DiscoveryMapper) ResourcesForWithContext(ctx context.Context, input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	var out []schema.GroupVersionResource
	err := m.find(ctx, key("resource", input.String()), func(s *snapshot) bool {
		out = out[:0]
		for _, r := range s.matching(input) {
			out = append(out, r.gvr)
		}
		return len(out) > 0
	})
	if errors.Is(err, errMiss) {
		return nil, &meta.NoResourceMatchError{PartialResource: input}
	}
	return out, err
}

// ResourceForWithContext returns the full resource a partial one names.
func (m *DiscoveryMapper) ResourceForWithContext(ctx context.Context, input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	res, err := m.ResourcesForWithContext(ctx, input)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return res[0], nil
}

// ResourceSingularizerWithContext returns the singular name of a plural
// resource name.
func (m *DiscoveryMapper) ResourceSingularizerWithContext(ctx context.Context, resource string) (string, error) {
	var out string
	err := m.find(ctx, key("plural", resource), func(s *snapshot) bool {
		rs := s.matching(schema.GroupVersionResource{Resource: resource})
		if len(rs) == 0 {
			return false
		}
		// Legacy discovery may leave singularName empty; kubectl falls
		// back to the lowercased kind too.
		out = rs[0].singular
		if out == "" {
			out = strings.ToLower(rs[0].kind)
		}
		return true
	})
	if errors.Is(err, errMiss) {
		return "", &meta.NoResourceMatchError{PartialResource: schema.GroupVersionResource{Resource: resource}}
	}
	return out, err
}

// The meta.RESTMapper methods, for callers without a context; discovery
// loads are bounded by loadTimeout.

func (m *DiscoveryMapper) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return m.KindForWithContext(context.Background(), r)
}

func (m *DiscoveryMapper) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return m.KindsForWithContext(context.Background(), r)
}

func (m *DiscoveryMapper) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return m.ResourceForWithContext(context.Background(), r)
}

func (m *DiscoveryMapper) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return m.ResourcesForWithContext(context.Background(), r)
}

func (m *DiscoveryMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return m.RESTMappingWithContext(context.Background(), gk, versions...)
}

func (m *DiscoveryMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return m.RESTMappingsWithContext(context.Background(), gk, versions...)
}

func (m *DiscoveryMapper) ResourceSingularizer(resource string) (string, error) {
	return m.ResourceSingularizerWithContext(context.Background(), resource)
}
