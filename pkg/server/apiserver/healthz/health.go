package healthz

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
	"time"

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

// Store is the store whose reads the "etcd" check tries.
type Store interface {
	Get(ctx context.Context, key string) (storage.KeyValue, error)
}

// Cache is the watch cache the "watch-cache" check waits for.
type Cache interface {
	Ready() <-chan struct{}
	WaitFresh(ctx context.Context) error
}

// Config is what the checks look at.
type Config struct {
	Store Store
	Cache Cache
	// Log watches the server's log handler.
	Log *LogProbe
	// Bootstrapped is closed once the system namespaces exist.
	Bootstrapped <-chan struct{}
	// Stopping reports that the server is shutting down.
	Stopping func() bool
	// Logger gets the reasons a probe failed, which it withholds.
	Logger *slog.Logger
}

// Checker serves the health endpoints.
type Checker struct {
	cfg Config
}

// New returns the checks of cfg.
func New(cfg Config) *Checker { return &Checker{cfg: cfg} }

// healthChecks lists the checks of one probe endpoint ("healthz", "livez"
// or "readyz") in the order they are reported.
func (h *Checker) healthChecks(endpoint string) []healthCheck {
	checks := []healthCheck{
		{"ping", func(context.Context) error { return nil }},
		{"log", func(context.Context) error { return h.cfg.Log.check() }},
		{"etcd", h.checkStorage},
	}
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"watch-cache", h.checkCache})
	}
	checks = append(checks, healthCheck{"poststarthook/bootstrap-controller", func(context.Context) error {
		select {
		case <-h.cfg.Bootstrapped:
			return nil
		default:
			return errNotBootstrapped
		}
	}})
	if endpoint == "readyz" {
		checks = append(checks, healthCheck{"shutdown", func(context.Context) error {
			if h.cfg.Stopping() {
				return errShuttingDown
			}
			return nil
		}})
	}
	return checks
}

// checkStorage reads one key: reaching the store is what counts.
func (h *Checker) checkStorage(ctx context.Context) error {
	if _, err := h.cfg.Store.Get(ctx, healthProbeKey); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return nil
}

// checkCache passes once the watch cache has listed and has caught up
// with the store's current revision.
func (h *Checker) checkCache(ctx context.Context) error {
	select {
	case <-h.cfg.Cache.Ready():
	default:
		return errCacheNotReady
	}
	if err := h.cfg.Cache.WaitFresh(ctx); err != nil {
		return fmt.Errorf("watch cache is behind the store: %w", err)
	}
	return nil
}

// Match splits /readyz, /readyz/ping, /livez/poststarthook/x...
// into the endpoint and the check; ok is false for other paths.
func Match(path string) (endpoint, check string, ok bool) {
	endpoint, check, _ = strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch endpoint {
	case "healthz", "livez", "readyz":
		return endpoint, check, true
	}
	return "", "", false
}

// ServeEndpoint answers /healthz, /livez and /readyz as kube-apiserver does:
// "ok", or with ?verbose one line per check; a failing check makes it a
// 500 that names the check but withholds the reason, since the endpoint
// is public. exclude= skips checks by name.
func (h *Checker) ServeEndpoint(w http.ResponseWriter, r *http.Request, endpoint string) {
	q := r.URL.Query()
	excluded := q["exclude"]
	var out, reasons bytes.Buffer
	var failed []string
	for _, c := range h.healthChecks(endpoint) {
		if i := slices.Index(excluded, c.name); i >= 0 {
			excluded = slices.Delete(excluded, i, i+1)
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := h.runCheck(r.Context(), c); err != nil {
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
		h.cfg.Logger.Debug("health check failed", "endpoint", endpoint, "checks", failed, "reasons", reasons.String())
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

// ServeCheck answers /<endpoint>/<check>: "ok", or a 500 with the
// reason. Unlike the endpoints themselves it needs credentials, as in
// kube-apiserver, because it tells why. It reports false, answering
// nothing, when the endpoint has no such check.
func (h *Checker) ServeCheck(w http.ResponseWriter, r *http.Request, endpoint, name string) bool {
	i := slices.IndexFunc(h.healthChecks(endpoint), func(c healthCheck) bool { return c.name == name })
	if i < 0 {
		return false
	}
	if err := h.runCheck(r.Context(), h.healthChecks(endpoint)[i]); err != nil {
		http.Error(w, "internal server error: "+err.Error(), http.StatusInternalServerError)
		return true
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte("ok"))
	return true
}

func (h *Checker) runCheck(ctx context.Context, c healthCheck) error {
	ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
	defer cancel()
	return c.check(ctx)
}
