package envtest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// The built-in controllers run by default: a deleted namespace goes
// away; without them it stays, Terminating.
func TestBuiltinControllers(t *testing.T) {
	tests := []struct {
		name     string
		opts     []envtest.Option
		wantGone bool
	}{
		{name: "default", wantGone: true},
		{name: "WithoutControllers", opts: []envtest.Option{envtest.WithoutControllers()}, wantGone: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := envtest.Start(t, tt.opts...)
			c := env.Client()
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
			if err := c.Create(t.Context(), ns); err != nil {
				t.Fatal(err)
			}
			if err := c.Delete(t.Context(), ns); err != nil {
				t.Fatal(err)
			}
			gone := func() error {
				err := c.Get(t.Context(), types.NamespacedName{Name: ns.Name}, &corev1.Namespace{})
				if client.IsNotFound(err) {
					return nil
				}
				if err != nil {
					return err
				}
				return errors.New("the namespace is still there")
			}
			if tt.wantGone {
				envtest.Eventually(t, "the namespace to go", gone)
				return
			}
			envtest.Consistently(t, "the namespace to stay", func() error {
				if gone() == nil {
					return errors.New("the namespace is gone")
				}
				return nil
			}, envtest.Within(300*time.Millisecond))
		})
	}
}

// colors is a controller recording the color of each ConfigMap it
// reconciles.
func colors(seen chan<- string) func(m *manager.Manager) error {
	return func(m *manager.Manager) error {
		r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			var cm corev1.ConfigMap
			if err := m.Client().Get(ctx, req.NamespacedName, &cm); client.IsNotFound(err) {
				return reconcile.Result{}, nil
			} else if err != nil {
				return reconcile.Result{}, err
			}
			select {
			case seen <- req.Name + "=" + cm.Data["color"]:
			default:
			}
			return reconcile.Result{}, nil
		})
		_, err := m.NewController(r, controller.Options{Name: "colors"}, controller.For[*corev1.ConfigMap]())
		return err
	}
}

// StartManager returns a ready manager: its cached client already reads
// what exists, and its controller reconciles what is created next.
func TestStartManager(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	before := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "before"}, Data: map[string]string{"color": "red"}}
	if err := env.Client().Create(t.Context(), before); err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 10)
	logs := &envtest.Logs{}
	m := env.StartManager(t, colors(seen), envtest.WithLogs(logs, slog.LevelInfo))

	// Ready means synced: the cache holds the ConfigMap at once.
	if err := m.Client().Get(t.Context(), types.NamespacedName{Namespace: "default", Name: "before"}, &corev1.ConfigMap{}); err != nil {
		t.Fatalf("cached read right after StartManager: %v", err)
	}
	after := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "after"}, Data: map[string]string{"color": "blue"}}
	if err := env.Client().Create(t.Context(), after); err != nil {
		t.Fatal(err)
	}
	var got []string
	envtest.EventuallyTrue(t, "both ConfigMaps reconciled", func() bool {
		select {
		case s := <-seen:
			got = append(got, s)
		default:
		}
		return strings.Contains(fmt.Sprint(got), "before=red") && strings.Contains(fmt.Sprint(got), "after=blue")
	})
}

// A manager that cannot start, fails, or logs an error fails the test
// with a message saying so.
func TestStartManagerFailures(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	boom := errors.New("boom")
	release := make(chan struct{})
	tests := []struct {
		name    string
		setup   func(m *manager.Manager) error
		after   func(t testing.TB, m *manager.Manager) // once StartManager returned
		opts    []envtest.ManagerOption
		wantMsg string
	}{
		{
			name:    "setup fails",
			setup:   func(*manager.Manager) error { return boom },
			wantMsg: "envtest: setting up the manager: boom",
		},
		{
			name: "a runnable fails before ready",
			setup: func(m *manager.Manager) error {
				return m.Add(manager.RunnableFunc(func(context.Context) error { return boom }))
			},
			wantMsg: "envtest: the manager: stopped before it was ready: boom",
		},
		{
			name: "a runnable fails once ready",
			setup: func(m *manager.Manager) error {
				return m.Add(manager.RunnableFunc(func(ctx context.Context) error {
					<-release
					return boom
				}))
			},
			after: func(t testing.TB, m *manager.Manager) {
				close(release)
				// Wait until the manager has stopped on its own: its
				// health server is gone.
				envtest.EventuallyTrue(t, "the manager to stop", func() bool {
					resp, err := http.Get("http://" + m.Addrs()[0] + "/readyz")
					if err == nil {
						resp.Body.Close()
					}
					return err != nil
				})
			},
			wantMsg: "envtest: the manager stopped with an error: boom",
		},
		{
			name: "the manager logs an error",
			setup: func(m *manager.Manager) error {
				return m.Add(manager.RunnableFunc(func(ctx context.Context) error {
					<-ctx.Done()
					m.Logger().Error("lost the thing")
					return nil
				}))
			},
			opts:    []envtest.ManagerOption{envtest.WithLogs(&envtest.Logs{}, slog.LevelInfo)},
			wantMsg: "envtest: the manager logged errors:",
		},
		{
			name:  "bad options",
			setup: func(*manager.Manager) error { return nil },
			opts: []envtest.ManagerOption{envtest.WithManagerOptions(manager.Options{
				LeaderElection: true, // without an ID
			})},
			wantMsg: "envtest: creating the manager: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := runFake(func(ft testing.TB) {
				m := env.StartManager(ft, tt.setup, tt.opts...)
				if tt.after != nil {
					tt.after(ft, m)
				}
			})
			if !f.Failed() || !strings.Contains(f.String(), tt.wantMsg) {
				t.Errorf("failed = %v, messages:\n%s\nwant a failure containing %q", f.Failed(), f, tt.wantMsg)
			}
		})
	}
}
