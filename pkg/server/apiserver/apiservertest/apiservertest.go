// Package apiservertest starts a real API server in-process for tests:
// HTTPS on a loopback port, the memory store, and a *rest.Config with the
// admin token, ready for client-go, controller-runtime or Setpoint's own
// client. It is pkg/server with a test's defaults: fresh credentials, no
// built-in controllers unless asked, logs discarded.
package apiservertest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
	"github.com/setpoint-dev/setpoint/pkg/storage"
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
	// Storage replaces the memory store; the test keeps owning it.
	Storage storage.Interface
	// Configure adjusts the server's configuration before it starts.
	Configure func(*apiserver.Config)
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// BuiltinControllers runs the built-in controllers (namespace
	// lifecycle, garbage collection, CRD cleanup, event TTL) against the
	// server until it stops, as `setpoint server` does.
	BuiltinControllers bool
	// ControllerOptions tune them when BuiltinControllers is set; the
	// zero value runs all of them without leader election, logging to
	// Logger.
	ControllerOptions controllers.Options
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
	creds, err := credentials.Generate(nil, time.Now())
	if err != nil {
		return nil, nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	key, err := serviceAccountKey()
	if err != nil {
		return nil, nil, err
	}
	acfg := apiserver.Config{
		Authenticator: creds.Authenticator(),
		// Tests stop servers constantly; idle HTTP/2 clients would each
		// hold a stop for a second.
		ShutdownTimeout: 50 * time.Millisecond,
		ServiceAccounts: apiserver.ServiceAccountConfig{Key: key},
	}
	if opts.Configure != nil {
		opts.Configure(&acfg)
	}
	if acfg.Authenticator == nil {
		// A test asking for a server open to all: pkg/server reads nil
		// as "the credentials' tokens", so say it explicitly.
		acfg.Authenticator = admitAll{}
		if acfg.Authorization == "" {
			acfg.Authorization = apiserver.AuthorizationAlwaysAllow
		}
	}
	copts := opts.ControllerOptions
	if !opts.BuiltinControllers {
		copts.Disabled = controllers.Names()
	}
	srv, err := server.New(server.Config{
		Store:       opts.Storage,
		Storage:     server.StorageMemory,
		Listen:      "127.0.0.1:0",
		Credentials: creds,
		API:         acfg,
		Controllers: copts,
		Logger:      logger,
	})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Ready():
	case err := <-done:
		cancel()
		if err == nil {
			err = errors.New("server stopped before it was ready")
		}
		return nil, nil, err
	}
	s := &Server{
		URL: srv.URL(), API: srv.API(), Storage: srv.Storage(), Credentials: creds,
		Config: srv.AdminConfig(),
	}
	s.Config.QPS = -1 // tests measure the server, not a client-side limiter
	s.Loopback = rest.CopyConfig(s.Config)
	s.Loopback.BearerToken = creds.LoopbackToken
	stop := func() {
		cancel()
		<-done
	}
	return s, stop, nil
}

// serviceAccountKey signs the ServiceAccount tokens of every test server
// in the process: an RSA key takes tens of milliseconds to make, and
// servers do not share objects, so one server's tokens name service
// accounts the others do not have.
var serviceAccountKey = sync.OnceValues(serviceaccount.GenerateKey)

// admitAll lets every request in without naming a user, as the API
// treats a nil Authenticator.
type admitAll struct{}

func (admitAll) Authenticate(*http.Request) bool { return true }
