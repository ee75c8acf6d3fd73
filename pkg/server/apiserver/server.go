package apiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/discovery"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/filters"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/healthz"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/metrics"
	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/openapi"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Default in-flight limits; see Config.MaxRequestsInflight.
const (
	DefaultMaxRequestsInflight         = filters.DefaultMaxRequestsInflight
	DefaultMaxMutatingRequestsInflight = filters.DefaultMaxMutatingRequestsInflight
	DefaultMaxWatches                  = filters.DefaultMaxWatches
	DefaultLeaseRequestsInflight       = filters.DefaultLeaseRequestsInflight
)

// defaultIdleTimeout is kube-apiserver's idle keep-alive timeout.
const defaultIdleTimeout = 90 * time.Second

// Config configures a Server. Storage is required.
type Config struct {
	Storage storage.Interface
	// Registry holds the served resources; nil serves the built-in kinds
	// (registry.BuiltinWith), Services allocated from ServiceRanges.
	Registry *registry.Registry
	// ServiceRanges are the cluster IP and node port ranges; zero is
	// registry.DefaultServiceRanges. The "kubernetes" Service in default
	// takes the first cluster IP.
	ServiceRanges registry.ServiceRanges
	// DisableProfiling turns off /debug/pprof, which is served to
	// authenticated clients as kube-apiserver's --profiling does.
	DisableProfiling bool
	// AdvertiseAddress is the address the "kubernetes" Service's
	// endpoints hold; zero is the address Run listens on.
	AdvertiseAddress netip.AddrPort
	// Authenticator checks each request's credentials; nil lets every
	// request in (for callers that authenticate in front of Handler).
	Authenticator Authenticator
	// Authorization is the authorization mode: AuthorizationRBAC (the
	// default) or AuthorizationAlwaysAllow. Without an Authenticator
	// every request is allowed.
	Authorization string
	// ServiceAccounts configure ServiceAccount tokens: TokenRequest,
	// their authentication and the issuer's discovery documents. They
	// are off without a signing key.
	ServiceAccounts ServiceAccountConfig
	Logger          *slog.Logger
	// AccessLog logs every request at Info: method, path, user, code
	// and latency.
	AccessLog bool
	// Now is the clock for timestamps; nil is time.Now.
	Now func() time.Time
	// BookmarkInterval is how often a watch that asked for bookmarks
	// gets one; 0 means a minute, as kube-apiserver does.
	BookmarkInterval time.Duration
	// SystemNamespaceInterval is how often missing system namespaces
	// are recreated; 0 means a minute, as kube-apiserver does.
	SystemNamespaceInterval time.Duration
	// CacheLimits bound each resource's event log.
	CacheLimits watchcache.Limits
	// Version is served at /version; zero fills in the defaults.
	Version version.Info
	// Snapshot, when set, opens a copy of the store for GET
	// /snapshot (SnapshotPath), which only system:masters may take;
	// nil answers that the storage takes none.
	Snapshot func() (StoreSnapshot, error)
	// StorageSize reports the database size for metrics; may be nil.
	StorageSize func() (int64, error)
	// WatchWriteTimeout bounds one write to a watch client, so a client
	// that stops reading is cut off; an idle watch is not affected. 0
	// means a minute.
	WatchWriteTimeout time.Duration
	// RequestTimeout bounds every request but watches; a client may ask
	// for less with ?timeout=. 0 means a minute, as kube-apiserver.
	RequestTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may sit idle before
	// the server closes it; 0 means 90 seconds, as kube-apiserver.
	IdleTimeout time.Duration
	// ShutdownTimeout is how long Run waits for requests in flight when
	// it stops, before closing connections; 0 means five seconds.
	ShutdownTimeout time.Duration
	// MaxObjectBytes bounds an object's encoding as stored; a write of a
	// larger one is refused. 0 means DefaultMaxObjectBytes (1.5 MiB).
	MaxObjectBytes int
	// MaxRequestsInflight and MaxMutatingRequestsInflight bound the
	// read-only and the mutating requests served at once; past them a
	// request gets 429 with Retry-After. MaxWatches bounds open watches,
	// which neither of the others counts. LeaseRequestsInflight are seats
	// reserved for leases in kube-system and kube-node-lease (leader
	// election, heartbeats), used before the shared pool. 0 means the
	// default (400, 200, 1000, 20); negative means no limit. The server's
	// own clients (the loopback identity) are never limited.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	MaxWatches, LeaseRequestsInflight                int
}

// Authenticator decides whether a request carries valid credentials.
type Authenticator = filters.Authenticator

// Server serves the Kubernetes API for a registry over storage.
type Server struct {
	cfg       Config
	storage   storage.Interface
	objects   *generic.Store
	reg       *registry.Registry
	cache     *watchcache.Store
	discovery *discovery.Handler
	metrics   *metrics.Metrics
	log       *slog.Logger
	now       func() time.Time
	handler   http.Handler
	openapi   *openapi.Service
	inflight  *filters.Inflight
	health    *healthz.Checker
	authz     authorizer.Authorizer
	rbac      *rbac.Authorizer // nil unless authz is RBAC
	// serviceAccounts say how ServiceAccount tokens are issued and
	// checked; tokens authenticates them (nil without a key); baseAuthn
	// is Config.Authenticator before they were added to it.
	serviceAccounts *serviceAccounts
	tokens          *credentials.ServiceAccountTokens
	baseAuthn       Authenticator

	terminating  sync.Map // names of CRDs being deleted
	cacheSchemas sync.Map // CRD name -> schemaFingerprint of its cache
	ready        chan struct{}
	bootstrapped chan struct{} // closed once the system namespaces exist
	listenAddr   atomic.Pointer[netip.AddrPort]
	stopping     atomic.Bool // Run is shutting down

	startOnce sync.Once
}

// New returns a server; call Start (or Run) to make it serve.
func New(cfg Config) (*Server, error) {
	if cfg.Storage == nil {
		return nil, errors.New("apiserver: Config.Storage is required")
	}
	var s *Server
	az, rb, err := newAuthorizer(cfg, func(ctx context.Context) (rbac.Objects, error) { return s.loadRBAC(ctx) })
	if err != nil {
		return nil, err
	}
	roles := &cachedRoles{} // reads through s, once it exists
	sa, err := newServiceAccounts(cfg.ServiceAccounts)
	if err != nil {
		return nil, err
	}
	reviewer := &tokenReviewer{} // reads through s, once it exists
	if cfg.Registry == nil {
		o := builtinAuthorization(rb, roles)
		o.Services = cfg.ServiceRanges
		o.Tokens, o.TokenReviewer = sa.registryTokens(), reviewer
		cfg.Registry = registry.New(registry.BuiltinWith(o)...)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BookmarkInterval == 0 {
		cfg.BookmarkInterval = time.Minute
	}
	if cfg.WatchWriteTimeout == 0 {
		cfg.WatchWriteTimeout = defaultWatchWriteTimeout
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = filters.DefaultRequestTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	if cfg.SystemNamespaceInterval == 0 {
		cfg.SystemNamespaceInterval = defaultSystemNamespaceInterval
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 5 * time.Second
	}
	if cfg.Version.Major == "" {
		cfg.Version = defaultVersion()
	}
	probe := healthz.NewLogProbe(cfg.Logger.Handler())
	m := metrics.New()
	s = &Server{
		authz: az, rbac: rb,
		cfg: cfg, storage: cfg.Storage, reg: cfg.Registry, log: slog.New(probe), now: cfg.Now,
		discovery:    discovery.New(cfg.Registry),
		metrics:      m,
		ready:        make(chan struct{}),
		bootstrapped: make(chan struct{}),
		inflight: filters.NewInflight(filters.Limits{
			ReadOnly: cfg.MaxRequestsInflight, Mutating: cfg.MaxMutatingRequestsInflight,
			Watches: cfg.MaxWatches, Leases: cfg.LeaseRequestsInflight,
		}, m),
	}
	roles.s = s
	reviewer.s = s
	s.addServiceAccountTokens(sa)
	s.openapi = openapi.NewService()
	s.publishOpenAPI(groupVersionsOf(s.reg.Resources())...)
	s.cache = watchcache.New(cfg.Storage, watchcache.Config{Limits: cfg.CacheLimits, Logger: s.log, OnEvent: s.onCacheEvent, OnListed: s.serveStoredCRDs})
	s.objects = generic.New(generic.Config{
		Storage: cfg.Storage, Registry: cfg.Registry, Cache: s.cache, Now: cfg.Now, Logger: s.log,
		MaxObjectBytes: cfg.MaxObjectBytes, CreateGate: s.refuseIfTerminating,
	})
	ctx := context.Background()
	for _, res := range s.reg.Resources() {
		if !res.Stored() || res.StorageResource() != res.GroupResource() {
			// Resources kept in another's storage share its cache.
			continue
		}
		if _, err := s.cache.Add(ctx, res.GroupResource(), generic.Decoder(res)); err != nil {
			return nil, err
		}
	}
	s.metrics.SetStorageSource(s.storageStats, cfg.StorageSize)
	if u, ok := cfg.Storage.(storage.UsageReporter); ok {
		s.metrics.SetStorageUsage(storageUsage(u))
	}
	s.health = healthz.New(healthz.Config{
		Store: cfg.Storage, Cache: s.cache, Log: probe, Logger: s.log,
		Bootstrapped: s.bootstrapped, Stopping: s.stopping.Load,
	})
	s.handler = s.buildHandler()
	return s, nil
}

// Handler is the server's HTTP handler, for callers that run their own
// http.Server. Start must be running for it to answer API requests.
func (s *Server) Handler() http.Handler { return s.handler }

// Ready is closed once the server can answer consistently and the system
// namespaces exist.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Start runs the watch cache and the server's own control loops until ctx
// ends. It serves no port; see Run.
func (s *Server) Start(ctx context.Context) error {
	started := false
	s.startOnce.Do(func() { started = true })
	if !started {
		return errors.New("apiserver: Start called twice")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	wg.Go(func() { errc <- s.cache.Start(ctx) })
	wg.Go(func() {
		select {
		case <-s.cache.Ready():
		case <-ctx.Done():
			errc <- nil
			return
		}
		if err := s.bootstrap(ctx); err != nil {
			if ctx.Err() != nil {
				err = nil
			}
			errc <- err
			return
		}
		close(s.bootstrapped)
		// Wait until the cache holds what bootstrap wrote, so the first
		// list after Ready sees it.
		if err := s.cache.WaitFresh(ctx); err != nil {
			errc <- nil
			return
		}
		close(s.ready)
		s.keepSystemNamespaces(ctx)
		errc <- nil
	})
	var err error
	select {
	case err = <-errc:
		if err == nil {
			err = <-errc
		}
	case <-ctx.Done():
	}
	// From here on /readyz fails, for callers that serve Handler on.
	s.stopping.Store(true)
	cancel()
	wg.Wait()
	return err
}

// Run serves HTTPS on ln until ctx ends, then shuts down gracefully: open
// watches end and in-flight requests get up to Config.ShutdownTimeout.
func (s *Server) Run(ctx context.Context, ln net.Listener, tlsConfig *tls.Config) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.setListenAddr(ln)
	hs := &http.Server{
		Handler:           s.handler,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       s.cfg.IdleTimeout,
		// One client multiplexes all its watches over one connection;
		// kube-apiserver allows 1000 streams per connection too.
		HTTP2:       &http.HTTP2Config{MaxConcurrentStreams: 1000},
		BaseContext: func(net.Listener) context.Context { return ctx },
		ErrorLog:    filters.ServerErrorLog(s.log),
	}
	var wg sync.WaitGroup
	startErr := make(chan error, 1)
	wg.Go(func() { startErr <- s.Start(ctx) })
	serveErr := make(chan error, 1)
	wg.Go(func() { serveErr <- hs.ServeTLS(ln, "", "") })
	var err error
	select {
	case <-ctx.Done():
	case err = <-startErr:
	case err = <-serveErr:
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
	}
	cancel()
	s.stopping.Store(true)
	shutdownCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer stop()
	if e := hs.Shutdown(shutdownCtx); errors.Is(e, context.DeadlineExceeded) {
		// HTTP/2 clients get a second to leave after GOAWAY; past the
		// timeout the connections are closed instead.
		_ = hs.Close()
	} else if e != nil && err == nil {
		err = fmt.Errorf("apiserver: shutdown: %w", e)
	}
	wg.Wait()
	return err
}

func (s *Server) storageStats() []metrics.ResourceStats {
	var out []metrics.ResourceStats
	seen := map[schema.GroupResource]bool{}
	for _, res := range s.reg.Resources() {
		gr := res.StorageResource()
		if seen[gr] {
			continue
		}
		seen[gr] = true
		c, ok := s.cache.Cache(gr)
		if !ok {
			continue
		}
		st := c.Stats()
		out = append(out, metrics.ResourceStats{Resource: gr.String(), Objects: st.Objects, Watchers: st.Watchers, CacheEvents: st.LogEvents})
	}
	return out
}
