package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// healthCheck is one named check behind /healthz, /livez or /readyz. The
// names are kube-apiserver's where the check means the same, so probes
// and `exclude=` written for a cluster work here.
type healthCheck struct {
	name  string
	check func(ctx context.Context) error
}

// healthCheckTimeout bounds one check, so a hung store fails the probe
// instead of hanging it.
const healthCheckTimeout = 2 * time.Second

// healthProbeKey is read to prove the store answers; it need not exist.
const healthProbeKey = "/health"

var (
	errNotBootstrapped = errors.New("system namespaces not created yet")
	errCacheNotReady   = errors.New("watch cache has not listed yet")
	errShuttingDown    = errors.New("server is shutting down")
)

// healthChecks lists the checks of one probe endpoint ("healthz", "livez"
// or "readyz") in the order they are reported.
func (s *Server) healthChecks(endpoint string) []healthCheck {
	checks := []healthCheck{
		{"ping", func(context.Context) error { return nil }},
		{"log", func(context.Context) error { return s.logProbe.check() }},
		{"etcd", s.checkStorage},
	}
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"watch-cache", s.checkCache})
	}
	checks = append(checks, healthCheck{"poststarthook/bootstrap-controller", func(context.Context) error {
		select {
		case <-s.bootstrapped:
			return nil
		default:
			return errNotBootstrapped
		}
	}})
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"shutdown", func(context.Context) error {
			if s.stopping.Load() {
				return errShuttingDown
			}
			return nil
		}})
	}
	return checks
}

// checkStorage reads one key: reaching the store is what counts.
func (s *Server) checkStorage(ctx context.Context) error {
	if _, err := s.storage.Get(ctx, healthProbeKey); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return nil
}

// checkCache passes once the watch cache has listed and has caught up
// with the store's current revision.
func (s *Server) checkCache(ctx context.Context) error {
	select {
	case <-s.cache.Ready():
	default:
		return errCacheNotReady
	}
	if err := s.cache.WaitFresh(ctx); err != nil {
		return fmt.Errorf("watch cache is behind the store: %w", err)
	}
	return nil
}

// healthEndpoint splits /readyz, /readyz/ping, /livez/poststarthook/x...
// into the endpoint and the check; ok is false for other paths.
func healthEndpoint(path string) (endpoint, check string, ok bool) {
	endpoint, check, _ = strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch endpoint {
	case "healthz", "livez", "readyz":
		return endpoint, check, true
	}
	return "", "", false
}

// serveHealth answers /healthz, /livez and /readyz as kube-apiserver does:
// "ok", or with ?verbose one line per check; a failing check makes it a
// 500 that names the check but withholds the reason, since the endpoint
// is public. exclude= skips checks by name.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, endpoint string) {
	q := r.URL.Query()
	excluded := q["exclude"]
	var out, reasons bytes.Buffer
	var failed []string
	for _, c := range s.healthChecks(endpoint) {
		if i := slices.Index(excluded, c.name); i >= 0 {
			excluded = slices.Delete(excluded, i, i+1)
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := s.runCheck(r.Context(), c); err != nil {
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.name)
			fmt.Fprintf(&reasons, "[-]%s failed: %v\n", c.name, err)
			failed = append(failed, c.name)
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.name)
	}
	if len(excluded) > 0 {
		quoted := make([]string, len(excluded))
		for i, name := range excluded {
			quoted[i] = strconv.Quote(name)
		}
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(quoted, ","))
	}
	if len(failed) > 0 {
		s.log.Debug("health check failed", "endpoint", endpoint, "checks", failed, "reasons", reasons.String())
		http.Error(w, out.String()+endpoint+" check failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if _, verbose := q["verbose"]; !verbose {
		_, _ = w.Write([]byte("ok"))
		return
	}
	out.WriteString(endpoint + " check passed\n")
	_, _ = out.WriteTo(w)
}

// serveHealthCheck answers /<endpoint>/<check>: "ok", or a 500 with the
// reason. Unlike the endpoints themselves it needs credentials, as in
// kube-apiserver, because it tells why.
func (s *Server) serveHealthCheck(w http.ResponseWriter, r *http.Request, endpoint, name string) {
	i := slices.IndexFunc(s.healthChecks(endpoint), func(c healthCheck) bool { return c.name == name })
	if i < 0 {
		writeStatus(w, apierror.PathNotFound())
		return
	}
	if err := s.runCheck(r.Context(), s.healthChecks(endpoint)[i]); err != nil {
		http.Error(w, "internal server error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte("ok"))
}

func (s *Server) runCheck(ctx context.Context, c healthCheck) error {
	ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
	defer cancel()
	return c.check(ctx)
}

// logBlockedAfter is how long one log write may take before the log
// check fails; kube-apiserver's allows its log flush two minutes too.
const logBlockedAfter = 2 * time.Minute

// logProbe watches the server's log handler: a write that does not return
// (a full pipe, a stuck disk) fails the "log" check, since a server that
// cannot log hangs wherever it tries to.
type logProbe struct {
	next slog.Handler
	// writes holds the start times of the writes in progress.
	writes *sync.Map
	seq    *atomic.Uint64
	after  time.Duration
}

func newLogProbe(h slog.Handler) *logProbe {
	return &logProbe{next: h, writes: &sync.Map{}, seq: &atomic.Uint64{}, after: logBlockedAfter}
}

func (p *logProbe) Enabled(ctx context.Context, l slog.Level) bool { return p.next.Enabled(ctx, l) }

func (p *logProbe) Handle(ctx context.Context, rec slog.Record) error {
	id := p.seq.Add(1)
	p.writes.Store(id, time.Now())
	defer p.writes.Delete(id)
	return p.next.Handle(ctx, rec)
}

func (p *logProbe) WithAttrs(attrs []slog.Attr) slog.Handler {
	q := *p
	q.next = p.next.WithAttrs(attrs)
	return &q
}

func (p *logProbe) WithGroup(name string) slog.Handler {
	q := *p
	q.next = p.next.WithGroup(name)
	return &q
}

func (p *logProbe) check() error {
	var err error
	p.writes.Range(func(_, v any) bool {
		if since := time.Since(v.(time.Time)); since > p.after {
			err = fmt.Errorf("logging blocked for %v", since.Round(time.Second))
			return false
		}
		return true
	})
	return err
}
