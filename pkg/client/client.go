package client

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// Options adjust a Client. The zero value is a good default.
type Options struct {
	// Scheme maps Go types to kinds; nil is NewScheme's scheme.
	Scheme *runtime.Scheme
	// DisableProtobuf sends and asks for JSON only. By default built-in
	// kinds (the Go types of k8s.io/api) travel as protobuf, smaller and
	// cheaper for both ends to encode and decode, and metadata-only
	// answers come as protobuf for every kind; custom resources and
	// unstructured objects are JSON either way.
	DisableProtobuf bool
	// RESTMapper maps kinds to resources; nil is a DiscoveryMapper for
	// the same server.
	RESTMapper meta.RESTMapper
	// DiscoveryRefreshInterval is how long a kind discovery did not
	// list is believed missing before it is looked up again; 0 is three
	// seconds. See DiscoveryMapper.
	DiscoveryRefreshInterval time.Duration
	// Logger receives the server's warnings and the client's own
	// notes; nil is slog.Default().
	Logger *slog.Logger
	// HTTPClient replaces the client built from the rest.Config (its
	// TLS and credentials are then the caller's business).
	HTTPClient *http.Client
}

// Client reads and writes objects of any kind on one API server. It is
// safe for concurrent use.
type Client struct {
	base     *url.URL
	http     *http.Client
	watch    *http.Client // http without the overall timeout, for streams
	scheme   *runtime.Scheme
	mapper   meta.RESTMapper
	protobuf bool
	log      *slog.Logger
	warnings *warningLog
	limiter  *limiter
	// jsonOnly holds the group kinds whose protobuf bodies a server
	// refused (415); they are sent as JSON from then on.
	jsonOnly sync.Map
}

// New returns a client for the server cfg reaches.
func New(cfg *rest.Config, opts Options) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("client: a rest.Config is required")
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent()
	}
	base, err := baseURL(cfg.Host)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	hc := opts.HTTPClient
	if hc == nil {
		if err := withTokenFile(cfg, log); err != nil {
			return nil, err
		}
		if hc, err = rest.HTTPClientFor(cfg); err != nil {
			return nil, fmt.Errorf("client: building the transport: %w", err)
		}
	}
	// A watch lasts as long as the server keeps it; cfg.Timeout is for
	// single requests.
	wc := *hc
	wc.Timeout = 0
	c := &Client{
		base:     base,
		http:     hc,
		watch:    &wc,
		scheme:   opts.Scheme,
		mapper:   opts.RESTMapper,
		protobuf: !opts.DisableProtobuf,
		log:      log,
		limiter:  newLimiter(cfg.QPS, cfg.Burst),
	}
	if c.scheme == nil {
		c.scheme = defaultScheme()
	}
	c.warnings = newWarningLog(c.log)
	if c.mapper == nil {
		c.mapper = newDiscoveryMapper(c, opts.DiscoveryRefreshInterval)
	}
	return c, nil
}

// baseURL reads rest.Config.Host: "https://host:port", "host:port", and
// a path prefix for servers behind a proxy.
func baseURL(host string) (*url.URL, error) {
	if host == "" {
		return nil, errors.New("client: rest.Config.Host is empty")
	}
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("client: rest.Config.Host %q: %w", host, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("client: rest.Config.Host %q: scheme must be http or https", host)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// Scheme returns the scheme the client maps Go types with.
func (c *Client) Scheme() *runtime.Scheme { return c.scheme }

// RESTMapper returns the mapper the client finds resources with.
func (c *Client) RESTMapper() meta.RESTMapper { return c.mapper }
