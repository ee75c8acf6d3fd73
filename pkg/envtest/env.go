package envtest

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
)

// Env is a running test environment: a server, the CRDs installed in it,
// and a client to it. It stops when the test that started it ends.
type Env struct {
	srv    *apiservertest.Server
	stop   func()
	scheme *runtime.Scheme
	client *client.Client
	logger *slog.Logger
}

// Option adjusts what Start starts.
type Option func(*settings)

type settings struct {
	crdDirs     []string
	controllers bool
	scheme      *runtime.Scheme
	logger      *slog.Logger
}

// WithCRDs installs every CRD in dir (files ending .yaml, .yml or .json,
// YAML files may hold several documents; documents of other kinds are
// skipped) and waits until each is established and its versions are
// served. It may be given more than once.
func WithCRDs(dir string) Option {
	return func(s *settings) { s.crdDirs = append(s.crdDirs, dir) }
}

// WithoutControllers starts the server alone, without the built-in
// controllers: namespaces then stay Terminating, owners' dependents are
// not collected, and a deleted CRD's objects stay.
func WithoutControllers() Option {
	return func(s *settings) { s.controllers = false }
}

// WithScheme gives the env's client, and the managers it starts, the Go
// types of scheme (the operator's API types added to client.NewScheme()).
func WithScheme(scheme *runtime.Scheme) Option {
	return func(s *settings) { s.scheme = scheme }
}

// WithLogger sends the server's and the built-in controllers' logs to
// logger; by default they are discarded.
func WithLogger(logger *slog.Logger) Option {
	return func(s *settings) { s.logger = logger }
}

// Start starts an environment; it stops when t ends. It fails t when
// the server does not start or a CRD cannot be installed.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	e, err := New(context.Background(), opts...)
	if err != nil {
		t.Fatalf("envtest: %v", err)
	}
	t.Cleanup(e.Stop)
	return e
}

// New starts an environment outside a test (an Example, a TestMain):
// the caller stops it with Stop, or by ending ctx, which bounds the
// server's life as well as the start. Start is the same for a test.
func New(ctx context.Context, opts ...Option) (*Env, error) {
	s := settings{controllers: true}
	for _, o := range opts {
		o(&s)
	}
	if s.scheme == nil {
		s.scheme = client.NewScheme()
	}
	logger := s.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv, stop, err := apiservertest.Run(ctx, apiservertest.Options{
		Logger:             logger,
		BuiltinControllers: s.controllers,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	c, err := client.New(srv.Config, client.Options{Scheme: s.scheme, Logger: logger})
	if err != nil {
		stop()
		return nil, err
	}
	e := &Env{srv: srv, stop: stop, scheme: s.scheme, client: c, logger: logger}
	for _, dir := range s.crdDirs {
		if err := e.InstallCRDs(ctx, dir); err != nil {
			stop()
			return nil, err
		}
	}
	return e, nil
}

// Stop stops the server and the built-in controllers; it returns once
// they have.
func (e *Env) Stop() { e.stop() }

// Config reaches the server as its admin; each call returns a copy the
// caller may change.
func (e *Env) Config() *rest.Config { return rest.CopyConfig(e.srv.Config) }

// Client is a direct (uncached) client to the server, with the env's
// scheme.
func (e *Env) Client() *client.Client { return e.client }

// Scheme is the env's scheme: client.NewScheme() unless WithScheme.
func (e *Env) Scheme() *runtime.Scheme { return e.scheme }

// URL is the server's base URL.
func (e *Env) URL() string { return e.srv.URL }

// Kubeconfig writes a kubeconfig reaching the server as its admin into
// the test's temporary directory and returns its path: how a separate
// process (an operator's built binary, kubectl) finds the server.
func (e *Env) Kubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := credentials.WriteKubeconfig(path, e.srv.URL, e.srv.Credentials.CAPEM, e.srv.Credentials.AdminToken); err != nil {
		t.Fatalf("envtest: %v", err)
	}
	return path
}
