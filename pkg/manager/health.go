package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Check reports a problem, or nil.
type Check func(r *http.Request) error

// checks are the named health and readiness checks.
type checks struct {
	health map[string]Check
	ready  map[string]Check
}

// AddHealthCheck adds a liveness check, served on /healthz: failing
// tells the kubelet to restart the process.
func (m *Manager) AddHealthCheck(name string, c Check) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.checks.health == nil {
		m.checks.health = map[string]Check{}
	}
	m.checks.health[name] = c
}

// AddReadyCheck adds a readiness check, served on /readyz.
func (m *Manager) AddReadyCheck(name string, c Check) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.checks.ready == nil {
		m.checks.ready = map[string]Check{}
	}
	m.checks.ready[name] = c
}

// builtinReadyChecks are what readiness always includes: the informers
// synced, each controller running (on the leader; a follower's
// leader-only controllers do not count), and leader election running.
func (m *Manager) builtinReadyChecks(le *electionState) map[string]Check {
	return map[string]Check{
		"informers": func(*http.Request) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // only ask whether they have synced
			return withoutCancel(m.factory.WaitForSync(ctx))
		},
		"controllers": func(*http.Request) error {
			m.mu.Lock()
			ctrls := append(m.controllers[:0:0], m.controllers...)
			m.mu.Unlock()
			var errs []error
			for _, c := range ctrls {
				if c.NeedLeaderElection() && !le.leading() {
					continue
				}
				if err := c.Ready(); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		},
		"leader-election": func(*http.Request) error { return le.healthy() },
	}
}

// withoutCancel drops the context error from a joined WaitForSync error,
// keeping the informers' reasons.
func withoutCancel(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var keep []error
	for _, e := range j.Unwrap() {
		if !errors.Is(e, context.Canceled) {
			keep = append(keep, e)
		}
	}
	if len(keep) == 0 {
		return err
	}
	return errors.Join(keep...)
}

// serveChecks answers with the checks' verdict: 200 "ok" when all pass,
// 500 listing the failures otherwise; ?verbose lists every check.
func serveChecks(get func() map[string]Check) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cs := get()
		names := make([]string, 0, len(cs))
		for n := range cs {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		failed := false
		for _, n := range names {
			if err := cs[n](r); err != nil {
				failed = true
				fmt.Fprintf(&b, "[-]%s failed: %v\n", n, strings.ReplaceAll(err.Error(), "\n", "; "))
			} else {
				fmt.Fprintf(&b, "[+]%s ok\n", n)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			b.WriteString("check failed\n")
			_, _ = w.Write([]byte(b.String()))
			return
		}
		if _, ok := r.URL.Query()["verbose"]; ok {
			b.WriteString("check passed\n")
			_, _ = w.Write([]byte(b.String()))
			return
		}
		_, _ = w.Write([]byte("ok"))
	}
}

// servers builds the HTTP servers for the configured addresses.
func (m *Manager) servers(le *electionState) ([]*http.Server, []net.Listener, error) {
	// One server per address; equal addresses share one, except ":0",
	// which asks for a port of each server's own.
	muxes := map[string]*http.ServeMux{}
	listen := map[string]string{}
	mux := func(addr, role string) *http.ServeMux {
		key := addr
		if strings.HasSuffix(addr, ":0") {
			key = addr + "/" + role
		}
		if muxes[key] == nil {
			muxes[key] = http.NewServeMux()
			listen[key] = addr
		}
		return muxes[key]
	}
	builtin := m.builtinReadyChecks(le)
	if a := m.opts.HealthAddr; a != "" {
		mux(a, "health").Handle("/healthz", serveChecks(func() map[string]Check {
			m.mu.Lock()
			defer m.mu.Unlock()
			cs := map[string]Check{"ping": func(*http.Request) error { return nil }}
			for n, c := range m.checks.health {
				cs[n] = c
			}
			return cs
		}))
		mux(a, "health").Handle("/readyz", serveChecks(func() map[string]Check {
			m.mu.Lock()
			defer m.mu.Unlock()
			cs := map[string]Check{}
			for n, c := range builtin {
				cs[n] = c
			}
			for n, c := range m.checks.ready {
				cs[n] = c
			}
			return cs
		}))
	}
	if a := m.opts.MetricsAddr; a != "" {
		mux(a, "metrics").Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	}
	var srvs []*http.Server
	var lns []net.Listener
	for key, mx := range muxes {
		addr := listen[key]
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, nil, fmt.Errorf("manager: listening on %s: %w", addr, err)
		}
		srvs = append(srvs, &http.Server{Handler: mx, ReadHeaderTimeout: 10 * time.Second})
		lns = append(lns, ln)
	}
	return srvs, lns, nil
}
