package apiserver

import (
	"context"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/metrics"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
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

// inflight holds the server's seats, one pool per kind of request.
type inflight struct {
	readOnly, mutating, watches, leases seats
}

// limit resolves a Config limit: 0 is the default, negative is none.
func limit(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

func newInflight(cfg Config) *inflight {
	return &inflight{
		readOnly: newSeats(limit(cfg.MaxRequestsInflight, DefaultMaxRequestsInflight)),
		mutating: newSeats(limit(cfg.MaxMutatingRequestsInflight, DefaultMaxMutatingRequestsInflight)),
		watches:  newSeats(limit(cfg.MaxWatches, DefaultMaxWatches)),
		leases:   newSeats(limit(cfg.LeaseRequestsInflight, DefaultLeaseRequestsInflight)),
	}
}

// admit takes a seat for req, or answers 429 and reports false. Call
// release once the request is done.
//
// The server's own clients (the loopback identity) are exempt, so the
// built-in controllers are never starved by other clients: unlike kube,
// where every system:masters member is exempt, the admin is not, because
// the admin token is what any other client here holds.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, req *request) (release func(), ok bool) {
	watch := req.verb == "watch"
	mutating := !watch && req.verb != "get" && req.verb != "list"
	var held seats
	switch {
	case isLoopback(r.Context()):
	case watch:
		held = s.inflight.watches
	case req.res.GroupResource() == leaseGR && leaseNamespaces[req.namespace]:
		// Reserved seats first, then the shared pool.
		held = s.inflight.leases
		if !held.tryAcquire() {
			held = s.inflight.pool(mutating)
			if !held.tryAcquire() {
				s.tooManyRequests(w, req, mutating)
				return nil, false
			}
		}
		return s.seated(held, req, mutating), true
	default:
		held = s.inflight.pool(mutating)
	}
	if !held.tryAcquire() {
		s.tooManyRequests(w, req, mutating)
		return nil, false
	}
	return s.seated(held, req, mutating), true
}

func (i *inflight) pool(mutating bool) seats {
	if mutating {
		return i.mutating
	}
	return i.readOnly
}

// seated counts an admitted request in the in-flight gauge, which leaves
// watches out as kube's does, and returns what ends it.
func (s *Server) seated(held seats, req *request, mutating bool) func() {
	if req.verb == "watch" {
		return held.release
	}
	done := s.metrics.Inflight(mutating)
	return func() {
		done()
		held.release()
	}
}

func (s *Server) tooManyRequests(w http.ResponseWriter, req *request, mutating bool) {
	kind := metrics.ReadOnlyKind
	if mutating {
		kind = metrics.MutatingKind
	}
	s.metrics.Dropped(kind, req.metricLabels(nil))
	// kube answers in plain text, not a Status; clients go by the code and
	// Retry-After.
	w.Header().Set("Retry-After", "1")
	http.Error(w, tooManyRequestsMessage, http.StatusTooManyRequests)
}

func withUser(ctx context.Context, u authenticationv1.UserInfo) context.Context {
	return user.WithInfo(ctx, u)
}

// userFrom returns the request's authenticated user, if the server knows
// who it is.
func userFrom(ctx context.Context) (authenticationv1.UserInfo, bool) {
	return user.From(ctx)
}

func isLoopback(ctx context.Context) bool {
	u, ok := userFrom(ctx)
	return ok && u.Username == credentials.LoopbackUsername
}

// authenticate checks r's credentials and, when the Authenticator can say
// whose they are, returns r carrying that user.
func (s *Server) authenticate(r *http.Request) (*http.Request, bool) {
	a := s.cfg.Authenticator
	if a == nil {
		return r, true
	}
	id, ok := a.(Identifier)
	if !ok {
		return r, a.Authenticate(r)
	}
	u, ok := id.Identify(r)
	if !ok {
		return r, false
	}
	return r.WithContext(withUser(r.Context(), u)), true
}
