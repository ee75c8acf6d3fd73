package server_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/setpoint-dev/setpoint/internal/logtest"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// start runs srv until the test ends or the returned stop is called;
// stop returns Run's result.
func start(t *testing.T, srv *server.Server) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var err error
	stopped := false
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			err = <-done
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatalf("Run ended before the server was ready: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("server not ready within 20s")
	}
	return stop
}

// TestDataDir: a server on a data directory keeps its database and
// credentials there, writes a kubeconfig that reaches it as the admin,
// logs its readiness, and releases the database when Run returns.
func TestDataDir(t *testing.T) {
	dir := t.TempDir()
	logs := &logtest.Buffer{}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	srv, err := server.New(server.Config{
		DataDir: dir, Listen: "127.0.0.1:0", Kubeconfig: kubeconfig,
		Controllers: controllers.Options{Disabled: controllers.Names()},
		Logger:      logs.Logger(slog.LevelInfo),
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, srv)
	for _, f := range []string{server.DBFile, "pki/ca.crt", "kubeconfig"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("data dir lacks %s: %v", f, err)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != srv.URL() || cfg.BearerToken != srv.Credentials().AdminToken {
		t.Errorf("kubeconfig reaches %s as %q, want %s as the admin", cfg.Host, cfg.BearerToken, srv.URL())
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ns corev1.Namespace
	if err := c.Get(t.Context(), types.NamespacedName{Name: "default"}, &ns); err != nil {
		t.Errorf("get namespace default through the kubeconfig: %v", err)
	}
	if err := stop(); err != nil {
		t.Errorf("Run after a clean stop: %v, want nil", err)
	}
	for _, want := range []string{"setpoint API server ready", "url=" + srv.URL(), "storage=bolt"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	if logs.HasErrors() {
		t.Errorf("error logged:\n%s", logs)
	}
	b, err := bolt.Open(filepath.Join(dir, server.DBFile), bolt.Options{LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("database still held after Run returned: %v", err)
	}
	b.Close()
}

// TestControllersStopBeforeTheAPI: on a clean stop the built-in
// controllers release their lease while the API still answers, so the
// next replica need not wait for it to expire, and nothing logs an error.
func TestControllersStopBeforeTheAPI(t *testing.T) {
	store := memory.New()
	t.Cleanup(func() { _ = store.Close() })
	logs := &logtest.Buffer{}
	srv, err := server.New(server.Config{
		Store: store, Listen: "127.0.0.1:0",
		Controllers: controllers.Options{LeaderElection: true, Identity: "first"},
		Logger:      logs.Logger(slog.LevelInfo),
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, srv)
	holder := func(c *client.Client) string {
		var l coordinationv1.Lease
		err := c.Get(context.Background(), types.NamespacedName{Namespace: "kube-system", Name: "setpoint-controllers"}, &l)
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	c, err := client.New(srv.LoopbackConfig(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The elector must know it leads, not only have its write land: a
	// stop before its acquire returns has nothing of its own to release.
	envtest.EventuallyTrue(t, "the controllers' lease", func() bool {
		return holder(c) == "first" && strings.Contains(logs.String(), `msg="became leader"`)
	})
	if err := stop(); err != nil {
		t.Errorf("Run after a clean stop: %v, want nil", err)
	}
	if logs.HasErrors() {
		t.Errorf("error logged on a clean stop:\n%s", logs)
	}

	// The store outlives the server that did not open it: a second one
	// shows the lease released.
	next, err := server.New(server.Config{
		Store: store, Listen: "127.0.0.1:0",
		Controllers: controllers.Options{Disabled: controllers.Names()},
		Logger:      slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	start(t, next)
	c2, err := client.New(next.AdminConfig(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := holder(c2); h != "" {
		t.Errorf("lease held by %q after a clean stop, want released; the first server logged:\n%s", h, logs)
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		cfg  server.Config
		want string
	}{
		{"no address", server.Config{}, "neither Listen nor Listener"},
		{"bad address", server.Config{Listen: "6443"}, "listen address"},
		{"bolt in memory", server.Config{Listen: "127.0.0.1:0", Storage: server.StorageBolt}, "needs a data directory"},
		{"etcd without servers", server.Config{Listen: "127.0.0.1:0", Storage: server.StorageEtcd}, "needs --etcd-servers"},
		{"unknown backend", server.Config{Listen: "127.0.0.1:0", Storage: "cassandra"}, `unknown storage backend "cassandra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := server.New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestStoreLocked: a data directory whose database another process
// holds is an error wrapping bolt.ErrLocked, for callers to explain.
func TestStoreLocked(t *testing.T) {
	dir := t.TempDir()
	holder, err := bolt.Open(filepath.Join(dir, server.DBFile), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	_, err = server.New(server.Config{DataDir: dir, Listen: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, bolt.ErrLocked) {
		t.Errorf("New: %v, want bolt.ErrLocked", err)
	}
}
