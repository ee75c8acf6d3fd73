// Package apiservertest starts a real API server in-process for tests:
// HTTPS on a loopback port, the memory store, and a *rest.Config with the
// admin token, ready for client-go, controller-runtime or Setpoint's own
// client.
package apiservertest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// Server is a running test server.
type Server struct {
	// Config reaches the server as its admin.
	Config *rest.Config
	// Loopback reaches the server as the server itself
	// (system:apiserver), the identity the built-in controllers use and
	// the in-flight limits never refuse.
	Loopback *rest.Config
	// URL is the server's base URL.
	URL string
	// API is the server itself.
	API *apiserver.Server
	// Storage is the store behind it.
	Storage storage.Interface
	// Credentials hold the CA and admin token.
	Credentials *credentials.Credentials
}

// Options adjust a test server.
type Options struct {
	// Storage replaces the memory store.
	Storage storage.Interface
	// Configure adjusts the server's configuration before it starts.
	Configure func(*apiserver.Config)
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Controllers runs the built-in controllers (namespace lifecycle,
	// garbage collection, CRD cleanup, event TTL) against the server
	// until its context ends: pass controllers.Run from
	// pkg/controllers. It is a parameter, not a default, because the
	// controllers are built on the runtime packages, whose own tests use
	// this package: importing them here would be an import cycle.
	Controllers func(ctx context.Context, cfg *rest.Config) error
}

// Start starts a server with default options; it stops when the test
// ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith starts a server with opts; it stops when the test ends.
func StartWith(t testing.TB, opts Options) *Server {
	t.Helper()
	s, stop, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("apiservertest: %v", err)
	}
	t.Cleanup(stop)
	return s
}

// Run starts a server and returns it with the function that stops it.
// It returns once the server is ready to answer.
func Run(ctx context.Context, opts Options) (*Server, func(), error) {
	store := opts.Storage
	if store == nil {
		store = memory.New()
	}
	creds, err := credentials.Generate(nil, time.Now())
	if err != nil {
		return nil, nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg := apiserver.Config{
		Storage:       store,
		Authenticator: creds.Authenticator(),
		Logger:        logger,
		// Tests stop servers constantly; idle HTTP/2 clients would each
		// hold a stop for a second.
		ShutdownTimeout: 50 * time.Millisecond,
	}
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	api, err := apiserver.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- api.Run(ctx, ln, creds.TLSConfig()) }()
	select {
	case <-api.Ready():
	case err := <-done:
		cancel()
		if err == nil {
			err = errors.New("server stopped before it was ready")
		}
		return nil, nil, err
	}
	url := "https://" + ln.Addr().String()
	s := &Server{
		URL: url, API: api, Storage: store, Credentials: creds,
		Config: &rest.Config{
			Host:            url,
			BearerToken:     creds.AdminToken,
			TLSClientConfig: rest.TLSClientConfig{CAData: creds.CAPEM},
			QPS:             -1, // tests measure the server, not a client-side limiter
		},
	}
	s.Loopback = rest.CopyConfig(s.Config)
	s.Loopback.BearerToken = creds.LoopbackToken
	ctrlDone := make(chan error, 1)
	if opts.Controllers != nil {
		go func() { ctrlDone <- opts.Controllers(ctx, s.Loopback) }()
	} else {
		ctrlDone <- nil
	}
	stop := func() {
		cancel()
		if err := <-ctrlDone; err != nil {
			logger.Error("built-in controllers failed", "err", err)
		}
		<-done
		if opts.Storage == nil {
			_ = store.Close()
		}
	}
	return s, stop, nil
}
