package generic

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// DefaultMaxObjectBytes is the largest encoded object stored: etcd's
// default --max-request-bytes, which is what bounds objects in kube.
const DefaultMaxObjectBytes = 3 << 19

// tooLargeWait is how long a read asking for a revision the cache has not
// reached waits before answering 504, as kube-apiserver does.
const tooLargeWait = 3 * time.Second

// maxWriteRetries bounds the retries of a write without a
// resourceVersion that keeps losing to concurrent writers.
const maxWriteRetries = 32

// Config configures a Store. Storage, Registry and Cache are required.
type Config struct {
	Storage  storage.Interface
	Registry *registry.Registry
	// Cache serves reads; it must watch Storage.
	Cache *watchcache.Store
	// Now is the clock for timestamps; nil is time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// MaxObjectBytes bounds an object's encoding as stored; 0 means
	// DefaultMaxObjectBytes.
	MaxObjectBytes int
	// CreateGate, when set, may refuse a create for its resource before
	// anything else is checked: the server refuses custom objects while
	// their CRD is being deleted.
	CreateGate func(res *registry.Resource) error
}

// Store applies the object rules of every resource in a registry over
// one storage.
type Store struct {
	storage    storage.Interface
	reg        *registry.Registry
	cache      *watchcache.Store
	now        func() time.Time
	log        *slog.Logger
	maxBytes   int
	createGate func(res *registry.Resource) error
	fields     fieldManagers
	// allocMu serializes the writes that allocate (AllocateStrategy).
	allocMu sync.Mutex
}

// New returns a store for cfg.
func New(cfg Config) *Store {
	s := &Store{
		storage: cfg.Storage, reg: cfg.Registry, cache: cfg.Cache, now: cfg.Now, log: cfg.Logger,
		maxBytes: cfg.MaxObjectBytes, createGate: cfg.CreateGate,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxObjectBytes
	}
	s.fields.reg = cfg.Registry
	s.fields.log = s.log
	return s
}

// MaxObjectBytes is the bound on stored objects.
func (s *Store) MaxObjectBytes() int { return s.maxBytes }

// Decoder builds the watch cache's objects for a resource, in the form
// reads serve them (defaults applied, resourceVersion set).
func Decoder(res *registry.Resource) watchcache.DecodeFunc {
	return decoder(res)
}

// cacheFor is the watch cache holding res's objects.
func (s *Store) cacheFor(res *registry.Resource) (*watchcache.Cache, error) {
	c, ok := s.cache.Cache(res.StorageResource())
	if !ok {
		return nil, apierror.PathNotFound()
	}
	return c, nil
}

// waitCache waits until the cache has applied revision rev, for at most
// tooLargeWait.
func (s *Store) waitCache(ctx context.Context, rev int64) error {
	if s.cache.Revision() >= rev {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, tooLargeWait)
	defer cancel()
	if err := s.cache.WaitFor(ctx, rev); err != nil {
		return apierror.TooLargeResourceVersion()
	}
	return nil
}

// waitFresh waits until the cache holds every write acknowledged so far.
func (s *Store) waitFresh(ctx context.Context, gr schema.GroupResource) error {
	if err := s.cache.WaitFresh(ctx); err != nil {
		return apierror.From(err, gr, "")
	}
	return nil
}

// afterWrite runs once a write is stored, before it is answered: a
// write of a kind that changes what is served waits until the cache has
// applied it, which is when the change is served.
func (s *Store) afterWrite(ctx context.Context, res *registry.Resource, name string, rev int64) error {
	if !res.ChangesServing() {
		return nil
	}
	if err := s.cache.WaitFor(ctx, rev); err != nil {
		return apierror.From(err, res.GroupResource(), name)
	}
	return nil
}

// namespaces is the Namespace resource, when the registry serves it.
func (s *Store) namespaces() (*registry.Resource, bool) {
	return s.reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
}
