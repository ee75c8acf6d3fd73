package manager_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestLeaderElectionHandsOver runs two managers for one lease: only the
// leader runs the controller, and when it stops, the other takes over
// without waiting out the lease (the leader releases it).
func TestLeaderElectionHandsOver(t *testing.T) {
	cfg := apiservertest.Start(t).Config
	newCM(t, cfg, "default", "a", nil)
	var leaders, maxLeaders atomic.Int32
	var reconciles [2]atomic.Int32
	managers := make([]*manager.Manager, 2)
	stops := make([]func(), 2)
	for i := range managers {
		m, err := manager.New(cfg, manager.Options{
			LeaderElection: true, LeaderElectionID: "test-lock", LeaderElectionNamespace: "default",
			Identity:      []string{"first", "second"}[i],
			LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			reconciles[i].Add(1)
			return reconcile.Result{}, nil
		})
		if _, err := m.NewController(r, controller.Options{Name: "lead"}, controller.For[*corev1.ConfigMap]()); err != nil {
			t.Fatal(err)
		}
		// A leader-only runnable that counts the leaders at any moment.
		if err := m.Add(leaderOnly(func(ctx context.Context) error {
			n := leaders.Add(1)
			for {
				if cur := maxLeaders.Load(); n <= cur || maxLeaders.CompareAndSwap(cur, n) {
					break
				}
			}
			<-ctx.Done()
			leaders.Add(-1)
			return nil
		})); err != nil {
			t.Fatal(err)
		}
		managers[i] = m
		stops[i] = start(t, m)
		if i == 0 {
			select {
			case <-m.Elected():
			case <-time.After(30 * time.Second):
				t.Fatal("the first manager was not elected")
			}
		}
	}
	envtest.EventuallyTrue(t, "the leader's reconcile", func() bool { return reconciles[0].Load() > 0 })
	if _, ok := managers[0].FencingToken(); !ok {
		t.Error("the leader has no fencing token")
	}
	if _, ok := managers[1].FencingToken(); ok {
		t.Error("the follower has a fencing token")
	}
	stops[0]()
	select {
	case <-managers[1].Elected():
	case <-time.After(30 * time.Second):
		t.Fatal("the second manager did not take over")
	}
	envtest.EventuallyTrue(t, "the new leader's reconcile", func() bool { return reconciles[1].Load() > 0 })
	if n := maxLeaders.Load(); n != 1 {
		t.Errorf("at most %d leaders ran at once, want 1", n)
	}
}

type leaderOnly func(ctx context.Context) error

func (f leaderOnly) Start(ctx context.Context) error { return f(ctx) }
func (leaderOnly) NeedLeaderElection() bool          { return true }
