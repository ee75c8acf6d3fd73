package controller_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	fsmv1 "github.com/setpoint-dev/setpoint/examples/fsm/api/v1"
	"github.com/setpoint-dev/setpoint/internal/logtest"
	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// waitTimeout bounds every wait for the operator to act; it is a
// safety net for a stuck test, not a speed requirement.
const waitTimeout = 30 * time.Second

// env is one test's API server, with the Pipeline CRD from config/crd.yaml
// served, and a direct (uncached) client to it.
type env struct {
	srv    *apiservertest.Server
	scheme *runtime.Scheme
	client *client.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := apiservertest.Start(t)
	scheme := client.NewScheme()
	if err := fsmv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(srv.Config, client.Options{Scheme: scheme, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{srv: srv, scheme: scheme, client: c}
	if err := c.Create(t.Context(), readCRD(t)); err != nil {
		t.Fatalf("creating the CRD: %v", err)
	}
	e.waitServed(t)
	return e
}

// readCRD decodes the CRD the README tells users to apply.
func readCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "config", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatalf("config/crd.yaml: %v", err)
	}
	return crd
}

// waitServed waits until Pipelines can be listed: the CRD is served.
func (e *env) waitServed(t *testing.T) {
	t.Helper()
	eventually(t, "the Pipeline CRD to be served", func() bool {
		return e.client.List(t.Context(), &fsmv1.PipelineList{}) == nil
	})
}

// startManager runs m until the test ends, then checks it stopped
// without error and logged no errors.
func startManager(t *testing.T, m *manager.Manager, logs *logBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
		if logs.HasErrors() {
			t.Errorf("the manager logged errors:\n%s", logs)
		}
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// logBuffer collects the logs a test checks.
type logBuffer = logtest.Buffer
