package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Component is the value of the component label, as kube-apiserver reports
// it for its own requests.
const Component = "apiserver"

// Request kinds of apiserver_current_inflight_requests.
const (
	ReadOnlyKind = "readOnly"
	MutatingKind = "mutating"
)

// Verbs as kube-apiserver reports them. A verb outside this set is reported
// as VerbOther.
const (
	VerbGet              = "GET"
	VerbList             = "LIST"
	VerbWatch            = "WATCH"
	VerbCreate           = "CREATE"
	VerbUpdate           = "UPDATE"
	VerbPatch            = "PATCH"
	VerbApply            = "APPLY"
	VerbDelete           = "DELETE"
	VerbDeleteCollection = "DELETECOLLECTION"
	VerbConnect          = "CONNECT"
	VerbPost             = "POST"
	VerbPut              = "PUT"
	VerbProxy            = "PROXY"
	VerbOther            = "other"
)

// Scopes as kube-apiserver reports them: a named object (and every create),
// a namespace's collection, or a cluster-wide collection. Requests that are
// not for a resource have scope "".
const (
	ScopeResource  = "resource"
	ScopeNamespace = "namespace"
	ScopeCluster   = "cluster"
)

// dryRunAll is the dry_run label of a dry-run request: kube reports the
// request's dryRun values, and "All" is the only valid one.
const dryRunAll = "All"

// Buckets of kube-apiserver's histograms.
var (
	// requestDurationBuckets are apiserver_request_duration_seconds'.
	requestDurationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
		4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	// sliDurationBuckets are apiserver_request_sli_duration_seconds'.
	sliDurationBuckets = []float64{0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
		4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	// watchEventSizeBuckets are apiserver_watch_events_sizes': 1 KiB to 128 KiB.
	watchEventSizeBuckets = prometheus.ExponentialBuckets(1024, 2, 8)
)

// Request is the label set of one API request, as kube-apiserver labels it.
type Request struct {
	// Verb is one of kube's uppercase verbs: GET, LIST, WATCH, CREATE,
	// UPDATE, PATCH, APPLY, DELETE, DELETECOLLECTION, CONNECT (and POST,
	// PUT, PROXY for requests that are not for a resource). The lowercase
	// forms are accepted too; anything else is reported as "other".
	Verb string
	// Group is the API group ("" for the core group), Version its version.
	Group, Version string
	// Resource is the plural resource name; "" for requests that are not for
	// a resource or that match no route.
	Resource, Subresource string
	// Scope is "resource" (a named object, and every create), "namespace",
	// "cluster", or "" for requests that are not for a resource. Any other
	// value is reported as "".
	Scope string
	// DryRun is whether the request had dryRun=All.
	DryRun bool
}

// normalize maps the request's verb and scope onto kube's bounded sets.
func (r Request) normalize() Request {
	r.Verb = normalizeVerb(r.Verb)
	switch r.Scope {
	case ScopeResource, ScopeNamespace, ScopeCluster, "":
	default:
		r.Scope = ""
	}
	return r
}

func normalizeVerb(v string) string {
	switch v {
	case VerbGet, "get":
		return VerbGet
	case VerbList, "list":
		return VerbList
	case VerbWatch, "watch", "WATCHLIST", "watchlist":
		// kube folds the legacy WATCHLIST into WATCH.
		return VerbWatch
	case VerbCreate, "create":
		return VerbCreate
	case VerbUpdate, "update":
		return VerbUpdate
	case VerbPatch, "patch":
		return VerbPatch
	case VerbApply, "apply":
		return VerbApply
	case VerbDelete, "delete":
		return VerbDelete
	case VerbDeleteCollection, "deletecollection":
		return VerbDeleteCollection
	case VerbConnect, "connect":
		return VerbConnect
	case VerbPost, "post":
		return VerbPost
	case VerbPut, "put":
		return VerbPut
	case VerbProxy, "proxy":
		return VerbProxy
	}
	return VerbOther
}

func dryRunLabel(dryRun bool) string {
	if dryRun {
		return dryRunAll
	}
	return ""
}

// Metrics records an API server's figures in its own registry. Its methods
// are safe for concurrent use.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	requests    *prometheus.CounterVec
	durations   *prometheus.HistogramVec
	sli         *prometheus.HistogramVec
	longRunning *prometheus.GaugeVec
	inflight    *prometheus.GaugeVec
	dropped     *prometheus.CounterVec
	terminated  *prometheus.CounterVec
	watchEvents *prometheus.CounterVec
	watchSizes  *prometheus.HistogramVec
	storage     *storageCollector

	// inflightDone holds the done funcs Inflight returns, made once so that
	// Inflight does not allocate: [0] read-only, [1] mutating.
	inflightGauges [2]prometheus.Gauge
	inflightDone   [2]func()

	// The vecs' children are looked up once per label set and kept here, so
	// that recording a figure neither hashes label values nor allocates.
	reqMu sync.RWMutex
	reqs  map[requestKey]*requestObservers
	lrMu  sync.RWMutex
	lrs   map[Request]*longRunningGauge
	// watchObs maps watchKey to *watchObservers. A sync.Map, because
	// every event to every watcher reads it: an RWMutex's reader count
	// is one cache line all cores write.
	watchObs sync.Map
}

type requestKey struct {
	Request
	code int
}

type requestObservers struct {
	total    prometheus.Counter
	duration prometheus.Observer
	sli      prometheus.Observer // nil where kube does not observe the SLI histogram
}

type longRunningGauge struct {
	gauge prometheus.Gauge
	done  func()
}

type watchKey struct{ group, version, resource string }

type watchObservers struct {
	events prometheus.Counter
	sizes  prometheus.Observer
}

// New returns a Metrics with its own registry, holding the API server's
// metrics and the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: requestDurationBuckets,
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		sli: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_sli_duration_seconds",
			Help:    "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
			Buckets: sliDurationBuckets,
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		longRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_current_inflight_requests",
			Help: "Number of requests this apiserver is executing, per request kind.",
		}, []string{"request_kind"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_dropped_requests_total",
			Help: "Number of requests dropped with 'Try again later' response",
		}, []string{"request_kind"}),
		terminated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_terminations_total",
			Help: "Number of requests which apiserver terminated in self-defense.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		watchEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_events_total",
			Help: "Number of events sent in watch clients",
		}, []string{"group", "version", "resource"}),
		watchSizes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_watch_events_sizes",
			Help:    "Watch event size distribution in bytes",
			Buckets: watchEventSizeBuckets,
		}, []string{"group", "version", "resource"}),
		storage: newStorageCollector(),
		reqs:    make(map[requestKey]*requestObservers),
		lrs:     make(map[Request]*longRunningGauge),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.durations, m.sli, m.longRunning, m.inflight,
		m.dropped, m.terminated,
		m.watchEvents, m.watchSizes, m.storage,
	)
	for i, kind := range [2]string{ReadOnlyKind, MutatingKind} {
		g := m.inflight.WithLabelValues(kind)
		m.inflightGauges[i] = g
		m.inflightDone[i] = g.Dec
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A bad figure (say, a resource listed twice by the storage
		// callback) should not blank the whole scrape.
		ErrorHandling: promhttp.ContinueOnError,
	})
	return m
}

// Handler serves the registry in the Prometheus text exposition format.
func (m *Metrics) Handler() http.Handler { return m.handler }

// ObserveRequest records one finished request: it counts it in
// apiserver_request_total and observes d in
// apiserver_request_duration_seconds and, like kube, in
// apiserver_request_sli_duration_seconds unless the request is a WATCH or a
// dry run. code is the HTTP status written.
//
// Call it once a request's handler has returned, with the time since the
// request was received. kube-apiserver does exactly that for a WATCH too
// (its metrics wrapper sits around the route's handler), so with its
// default configuration a WATCH is counted and observed when the stream
// ends, over the whole stream; that is why dashboards leave verb="WATCH" out
// of latency panels. Only with the alpha APIServingWithRoutine gate does the
// watch stream outlive the handler, so that d is the time to set the watch
// up. The SLI histogram never sees a WATCH.
//
// ObserveRequest does not allocate once a label set has been seen.
func (m *Metrics) ObserveRequest(r Request, code int, d time.Duration) {
	k := requestKey{Request: r.normalize(), code: code}
	m.reqMu.RLock()
	o := m.reqs[k]
	m.reqMu.RUnlock()
	if o == nil {
		o = m.requestObservers(k)
	}
	s := d.Seconds()
	if s < 0 {
		s = 0
	}
	o.total.Inc()
	o.duration.Observe(s)
	if o.sli != nil {
		o.sli.Observe(s)
	}
}

// requestObservers looks up and keeps the children of k's label set.
func (m *Metrics) requestObservers(k requestKey) *requestObservers {
	m.reqMu.Lock()
	defer m.reqMu.Unlock()
	if o := m.reqs[k]; o != nil {
		return o
	}
	r := k.Request
	dryRun := dryRunLabel(r.DryRun)
	o := &requestObservers{
		total:    m.requests.WithLabelValues(r.Verb, dryRun, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, Component, strconv.Itoa(k.code)),
		duration: m.durations.WithLabelValues(r.Verb, dryRun, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, Component),
	}
	// kube installs the latency trackers the SLI histogram needs for every
	// request but a watch, and observes it only when dry_run is empty.
	if r.Verb != VerbWatch && !r.DryRun {
		o.sli = m.sli.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, Component)
	}
	m.reqs[k] = o
	return o
}

// LongRunning counts a long-running request (a watch, or a CONNECT such as
// exec or a proxy) in apiserver_longrunning_requests until done is called.
// Call done exactly once, when the request ends. r.DryRun is ignored: the
// gauge has no dry_run label.
func (m *Metrics) LongRunning(r Request) (done func()) {
	r = r.normalize()
	r.DryRun = false
	m.lrMu.RLock()
	g := m.lrs[r]
	m.lrMu.RUnlock()
	if g == nil {
		g = m.longRunningGauge(r)
	}
	g.gauge.Inc()
	return g.done
}

func (m *Metrics) longRunningGauge(r Request) *longRunningGauge {
	m.lrMu.Lock()
	defer m.lrMu.Unlock()
	if g := m.lrs[r]; g != nil {
		return g
	}
	gauge := m.longRunning.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, Component)
	g := &longRunningGauge{gauge: gauge, done: gauge.Dec}
	m.lrs[r] = g
	return g
}

// Inflight counts a request in apiserver_current_inflight_requests under
// request_kind "mutating" or "readOnly" until done is called. Call done
// exactly once, when the request's handler returns.
//
// kube-apiserver pre-aggregates this gauge to the highest count seen in the
// last second; Setpoint reports the count at the moment of the scrape.
func (m *Metrics) Inflight(mutating bool) (done func()) {
	i := 0
	if mutating {
		i = 1
	}
	m.inflightGauges[i].Inc()
	return m.inflightDone[i]
}

// Dropped records a request refused with 429 because its kind ("readOnly"
// or "mutating") had no seat left: in apiserver_dropped_requests_total and,
// as a termination in self-defense, in
// apiserver_request_terminations_total. Count the request itself with
// ObserveRequest too, as for any answer. Rare by nature, so it need not
// avoid allocating.
func (m *Metrics) Dropped(kind string, r Request) {
	r = r.normalize()
	m.dropped.WithLabelValues(kind).Inc()
	m.terminated.WithLabelValues(r.Verb, r.Group, r.Version, r.Resource, r.Subresource, r.Scope, Component, "429").Inc()
}

// WatchEvent records one event sent to a watch client in
// apiserver_watch_events_total and its encoded size in bytes in
// apiserver_watch_events_sizes. Like kube-apiserver (since v1.24), the
// labels are group, version and resource, the plural resource name
// (resource "configmaps", not kind "ConfigMap").
func (m *Metrics) WatchEvent(group, version, resource string, size int) {
	k := watchKey{group, version, resource}
	v, ok := m.watchObs.Load(k)
	if !ok {
		v, _ = m.watchObs.LoadOrStore(k, &watchObservers{
			events: m.watchEvents.WithLabelValues(k.group, k.version, k.resource),
			sizes:  m.watchSizes.WithLabelValues(k.group, k.version, k.resource),
		})
	}
	o := v.(*watchObservers)
	o.events.Inc()
	o.sizes.Observe(float64(size))
}

// SetStorageSource sets the callbacks that give the storage figures. They
// are called at every scrape, possibly concurrently, so the figures are
// never stale; they must be safe for concurrent use and quick. Either may
// be nil. A later call replaces the earlier callbacks.
//
// resources gives one entry per served resource. Each becomes
// apiserver_storage_objects{resource} (resource written as kube writes a
// group-resource: "configmaps", "widgets.example.com"),
// apiserver_resource_objects{group,resource} (kube's newer name for the
// same figure), watch_cache_capacity{group,resource} (the events the
// resource's watch cache holds) and
// setpoint_watch_cache_watchers{group,resource}.
//
// dbSize gives the database file's size in bytes, reported as
// apiserver_storage_size_bytes{storage_cluster_id="etcd-0"}; when it fails
// the figure is left out of that scrape, as kube does.
func (m *Metrics) SetStorageSource(resources func() []ResourceStats, dbSize func() (int64, error)) {
	m.storage.set(resources, dbSize)
}
