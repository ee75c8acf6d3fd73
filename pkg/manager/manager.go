package manager

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/events"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Runnable is anything the manager runs: Start blocks until ctx ends
// and returns nil then. An error from Start stops the manager.
type Runnable interface {
	Start(ctx context.Context) error
}

// LeaderRunnable is a Runnable that says whether it runs on the elected
// leader only. Runnables that do not say run on every replica;
// controllers run on the leader unless told otherwise.
type LeaderRunnable interface {
	Runnable
	NeedLeaderElection() bool
}

// RunnableFunc is a function that is a Runnable.
type RunnableFunc func(ctx context.Context) error

// Start calls f.
func (f RunnableFunc) Start(ctx context.Context) error { return f(ctx) }

// Manager runs an operator's controllers and runnables; see the package
// documentation. It is a controller.Cluster.
type Manager struct {
	opts     Options
	log      *slog.Logger
	api      *client.Client
	cached   *cachedClient
	factory  *cache.Factory
	registry *prometheus.Registry
	metrics  *controller.Metrics
	queues   workqueue.MetricsProvider
	identity string

	mu          sync.Mutex
	started     bool
	everywhere  []Runnable // every replica
	leaderOnly  []Runnable
	controllers []*controller.Controller
	checks      checks
	bound       []string // listening addresses
	election    *electionState
	events      *events.Broadcaster
	eventsCtx   context.Context // while Start runs, for a recorder asked for late
	late        sync.WaitGroup  // runnables started after Start began
	elected     chan struct{}
	electedOnce sync.Once
}

// New returns a manager for the cluster cfg reaches. It talks to the
// server only when something needs it.
func New(cfg *rest.Config, opts Options) (*Manager, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.GracefulShutdownTimeout == 0 {
		opts.GracefulShutdownTimeout = 30 * time.Second
	}
	if opts.LeaderElection && opts.LeaderElectionID == "" {
		return nil, errors.New("manager: LeaderElectionID is required with LeaderElection")
	}
	if opts.LeaderElection && opts.LeaderElectionNamespace == "" {
		ns, err := inClusterNamespace()
		if err != nil {
			return nil, fmt.Errorf("manager: LeaderElectionNamespace is required outside a cluster: %w", err)
		}
		opts.LeaderElectionNamespace = ns
	}
	if opts.Client.Logger == nil {
		opts.Client.Logger = opts.Logger
	}
	api, err := client.New(cfg, opts.Client)
	if err != nil {
		return nil, err
	}
	reg := opts.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &Manager{
		opts: opts, log: opts.Logger, api: api, registry: reg,
		elected:  make(chan struct{}),
		election: &electionState{enabled: opts.LeaderElection},
	}
	if m.metrics, err = controller.NewMetrics(reg); err != nil {
		return nil, err
	}
	if m.queues, err = workqueue.NewPrometheusMetrics(reg); err != nil {
		return nil, err
	}
	copts := opts.Cache
	if copts.Logger == nil {
		copts.Logger = opts.Logger
	}
	if copts.Registerer == nil {
		copts.Registerer = reg
	}
	m.factory = cache.NewFactory(func(src cache.Source) (cache.ListerWatcher, error) {
		if src.MetadataOnly {
			return api.MetadataListerWatcher(src.GVK, src.Namespace)
		}
		return api.ListerWatcher(src.GVK, src.Namespace)
	}, copts)
	m.cached = &cachedClient{Client: api, m: m}
	m.identity = opts.Identity
	if m.identity == "" {
		m.identity = defaultIdentity()
	}
	return m, nil
}

// Client reads from the manager's informers and writes to the server:
// what reconcilers use. Reads of a kind not yet cached start its
// informer and wait for it to sync.
func (m *Manager) Client() client.Interface { return m.cached }

// APIReader reads from the server directly, for the rare read that must
// not be a cached one.
func (m *Manager) APIReader() client.Reader { return m.api }

// API is the uncached client itself: reads and writes go to the server,
// and it offers what only the server can answer (discovery through
// ServerResources, subresources such as a namespace's finalize).
func (m *Manager) API() *client.Client { return m.api }

// Scheme is the client's scheme.
func (m *Manager) Scheme() *runtime.Scheme { return m.api.Scheme() }

// RESTMapper is the client's kind-to-resource mapper.
func (m *Manager) RESTMapper() meta.RESTMapper { return m.api.RESTMapper() }

// Registry is where the manager's metrics live; add your own to it.
func (m *Manager) Registry() *prometheus.Registry { return m.registry }

// Identity is this replica's name in the leader election.
func (m *Manager) Identity() string { return m.identity }

// Logger is the manager's logger.
func (m *Manager) Logger() *slog.Logger { return m.log }

// Elected is closed once this replica first runs its leader-only
// runnables: at start without leader election, on first winning it with.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// Add registers r to run when the manager starts (or at once, if it has
// started, for runnables every replica runs).
func (m *Manager) Add(r Runnable) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return errors.New("manager: Add after Start")
	}
	if lr, ok := r.(LeaderRunnable); ok && lr.NeedLeaderElection() {
		m.leaderOnly = append(m.leaderOnly, r)
	} else {
		m.everywhere = append(m.everywhere, r)
	}
	if c, ok := r.(*controller.Controller); ok {
		m.controllers = append(m.controllers, c)
	}
	return nil
}

// NewController builds a controller on the manager's informers, with its
// metrics, logger and cache sync timeout, and adds it.
func (m *Manager) NewController(r reconcile.Reconciler, opts controller.Options, sources ...controller.Source) (*controller.Controller, error) {
	if opts.Metrics == nil {
		opts.Metrics = m.metrics
	}
	if opts.QueueMetrics == nil {
		opts.QueueMetrics = m.queues
	}
	if opts.Logger == nil {
		opts.Logger = m.log
	}
	if opts.CacheSyncTimeout == 0 {
		opts.CacheSyncTimeout = m.opts.CacheSyncTimeout
	}
	c, err := controller.New(m, r, opts, sources...)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	for _, other := range m.controllers {
		if other.Name() == c.Name() {
			m.mu.Unlock()
			return nil, fmt.Errorf("manager: a controller named %q exists", c.Name())
		}
	}
	m.mu.Unlock()
	return c, m.Add(c)
}

// Informers returns the shared informers that hold gvk in the manager's
// namespaces: one per namespace for a namespaced kind when namespaces
// are set, one otherwise. It makes the manager a controller.Cluster.
func (m *Manager) Informers(ctx context.Context, gvk schema.GroupVersionKind, metadataOnly bool) ([]controller.Informer, error) {
	namespaces := []string{""}
	if len(m.opts.Namespaces) > 0 {
		namespaced, err := m.namespaced(gvk)
		if err != nil {
			return nil, err
		}
		if namespaced {
			namespaces = m.opts.Namespaces
		}
	}
	out := make([]controller.Informer, 0, len(namespaces))
	for _, ns := range namespaces {
		inf, err := cache.InformerFor[cache.Object](m.factory, cache.Source{GVK: gvk, Namespace: ns, MetadataOnly: metadataOnly})
		if err != nil {
			return nil, err
		}
		out = append(out, controller.Informer{Namespace: ns, Informer: inf})
	}
	return out, nil
}

// ExistingInformers returns the informers Informers already made for
// gvk (full objects and metadata only), without starting any: a
// controller waits on them to read its own writes.
func (m *Manager) ExistingInformers(gvk schema.GroupVersionKind) []controller.Informer {
	var out []controller.Informer
	for _, ns := range append([]string{""}, m.opts.Namespaces...) {
		for _, meta := range []bool{false, true} {
			if inf, ok := cache.ExistingInformer[cache.Object](m.factory, cache.Source{GVK: gvk, Namespace: ns, MetadataOnly: meta}); ok {
				out = append(out, controller.Informer{Namespace: ns, Informer: inf})
			}
		}
	}
	return out
}

// ForgetInformers stops and drops the informers Informers made for gvk,
// for a kind the server no longer serves (its CRD is gone): they could
// only fail and retry. Whoever still has handlers on them hears nothing
// more.
func (m *Manager) ForgetInformers(gvk schema.GroupVersionKind, metadataOnly bool) {
	namespaces := append([]string{""}, m.opts.Namespaces...)
	for _, ns := range namespaces {
		m.factory.Forget(cache.Source{GVK: gvk, Namespace: ns, MetadataOnly: metadataOnly})
	}
}

// namespaced asks the RESTMapper whether gvk lives in namespaces. A
// kind the server does not serve yet (its CRD is missing) is taken as
// namespaced, as most custom kinds are, so its informers exist and
// report why they cannot sync.
func (m *Manager) namespaced(gvk schema.GroupVersionKind) (bool, error) {
	mapping, err := m.api.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// covers reports whether the manager's informers hold namespace ns.
func (m *Manager) covers(ns string) bool {
	return len(m.opts.Namespaces) == 0 || ns == "" || slices.Contains(m.opts.Namespaces, ns)
}

func defaultIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	if host == "" {
		host = "setpoint"
	}
	return host + "_" + hex.EncodeToString(b)
}

// inClusterNamespace is the namespace of the pod the process runs in.
func inClusterNamespace() (string, error) {
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return "", err
	}
	return string(b), nil
}
