package controller_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// env is one test's API server, with the Foo CRD from config/crd.yaml
// (the file the README tells users to apply) served, and a direct
// (uncached) client to it.
type env struct {
	*envtest.Env
	client *client.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	scheme := client.NewScheme()
	if err := foov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	e := envtest.Start(t, envtest.WithCRDs(filepath.Join("..", "config")), envtest.WithScheme(scheme))
	return &env{Env: e, client: e.Client()}
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
