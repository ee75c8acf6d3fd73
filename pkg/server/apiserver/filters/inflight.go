package filters

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/metrics"
)

// Default in-flight limits. The first two are kube-apiserver's
// --max-requests-inflight and --max-mutating-requests-inflight defaults.
// kube does not limit watches; here one client could otherwise hold
// thousands, so they get a limit of their own, counted apart from the
// short requests as kube counts them apart.
const (
	DefaultMaxRequestsInflight         = 400
	DefaultMaxMutatingRequestsInflight = 200
	DefaultMaxWatches                  = 1000
	// DefaultLeaseRequestsInflight are the seats reserved for
	// leader-election traffic, used before the shared ones.
	DefaultLeaseRequestsInflight = 20
)

// tooManyRequestsMessage and the one-second Retry-After are what
// kube-apiserver's in-flight and priority-and-fairness filters answer.
const tooManyRequestsMessage = "Too many requests, please try again later."

var leaseGR = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// leaseNamespaces hold the leases of leader election (kube-system) and of
// node heartbeats (kube-node-lease): the traffic kube's leader-election and
// system-nodes priority levels keep apart from everything else.
var leaseNamespaces = map[string]bool{"kube-system": true, "kube-node-lease": true}

// Limits are the in-flight limits, one per pool of seats: 0 is the
// default, negative is none.
type Limits struct {
	ReadOnly, Mutating, Watches, Leases int
}

// RequestInfo is what the limits need to know of an API request.
type RequestInfo struct {
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection.
	Verb      string
	Resource  schema.GroupResource
	Namespace string
	// Labels count a refused request in the metrics.
	Labels metrics.Request
}

// InflightMetrics counts the requests the limits admit and refuse.
type InflightMetrics interface {
	Inflight(mutating bool) (done func())
	Dropped(kind string, r metrics.Request)
}

// seats is a counting semaphore that never waits: a request either gets a
// seat at once or is refused, as kube's max-in-flight filter does. A nil
// seats has no limit.
type seats chan struct{}

func newSeats(limit int) seats {
	if limit < 0 {
		return nil
	}
	return make(seats, limit)
}

func (s seats) tryAcquire() bool {
	if s == nil {
		return true
	}
	select {
	case s <- struct{}{}:
		return true
	default:
		return false
	}
}

func (s seats) release() {
	if s != nil {
		<-s
	}
}

// Inflight holds the server's seats, one pool per kind of request.
type Inflight struct {
	readOnly, mutating, watches, leases seats
	metrics                             InflightMetrics
}

// limit resolves a Limits field: 0 is the default, negative is none.
func limit(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// NewInflight returns the seats for limits, counted in m.
func NewInflight(limits Limits, m InflightMetrics) *Inflight {
	return &Inflight{
		readOnly: newSeats(limit(limits.ReadOnly, DefaultMaxRequestsInflight)),
		mutating: newSeats(limit(limits.Mutating, DefaultMaxMutatingRequestsInflight)),
		watches:  newSeats(limit(limits.Watches, DefaultMaxWatches)),
		leases:   newSeats(limit(limits.Leases, DefaultLeaseRequestsInflight)),
		metrics:  m,
	}
}

// Admit takes a seat for req, or answers 429 and reports false. Call
// release once the request is done.
//
// The server's own clients (the loopback identity) are exempt, so the
// built-in controllers are never starved by other clients: unlike kube,
// where every system:masters member is exempt, the admin is not, because
// the admin token is what any other client here holds.
func (i *Inflight) Admit(w http.ResponseWriter, r *http.Request, req RequestInfo) (release func(), ok bool) {
	watch := req.Verb == "watch"
	mutating := !watch && req.Verb != "get" && req.Verb != "list"
	var held seats
	switch {
	case isLoopback(r.Context()):
	case watch:
		held = i.watches
	case req.Resource == leaseGR && leaseNamespaces[req.Namespace]:
		// Reserved seats first, then the shared pool.
		held = i.leases
		if !held.tryAcquire() {
			held = i.pool(mutating)
			if !held.tryAcquire() {
				i.tooManyRequests(w, req, mutating)
				return nil, false
			}
		}
		return i.seated(held, req, mutating), true
	default:
		held = i.pool(mutating)
	}
	if !held.tryAcquire() {
		i.tooManyRequests(w, req, mutating)
		return nil, false
	}
	return i.seated(held, req, mutating), true
}

func (i *Inflight) pool(mutating bool) seats {
	if mutating {
		return i.mutating
	}
	return i.readOnly
}

// seated counts an admitted request in the in-flight gauge, which leaves
// watches out as kube's does, and returns what ends it.
func (i *Inflight) seated(held seats, req RequestInfo, mutating bool) func() {
	if req.Verb == "watch" {
		return held.release
	}
	done := i.metrics.Inflight(mutating)
	return func() {
		done()
		held.release()
	}
}

func (i *Inflight) tooManyRequests(w http.ResponseWriter, req RequestInfo, mutating bool) {
	kind := metrics.ReadOnlyKind
	if mutating {
		kind = metrics.MutatingKind
	}
	i.metrics.Dropped(kind, req.Labels)
	// kube answers in plain text, not a Status; clients go by the code and
	// Retry-After.
	w.Header().Set("Retry-After", "1")
	http.Error(w, tooManyRequestsMessage, http.StatusTooManyRequests)
}
