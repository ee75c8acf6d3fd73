package controllers_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// TestReplicasTakeTurns runs two API servers on one store, each with its
// controllers under leader election: one replica leads and does the
// work; when it stops, the other takes over and does it.
func TestReplicasTakeTurns(t *testing.T) {
	store := memory.New()
	t.Cleanup(func() { _ = store.Close() })
	replicas := map[string]*apiservertest.Server{}
	stops := map[string]func(){}
	for _, id := range []string{"a", "b"} {
		srv := apiservertest.StartWith(t, apiservertest.Options{Storage: store})
		replicas[id] = srv
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- controllers.Run(ctx, srv.Config, controllers.Options{LeaderElection: true, Identity: id, Logger: slog.New(slog.DiscardHandler)})
		}()
		var once sync.Once
		stops[id] = func() {
			once.Do(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("replica %s: %v", id, err)
				}
			})
		}
		t.Cleanup(stops[id])
	}
	c, err := client.New(replicas["a"].Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	holder := func() string {
		var l coordinationv1.Lease
		err := c.Get(context.Background(), types.NamespacedName{Namespace: "kube-system", Name: "setpoint-controllers"}, &l)
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	envtest.EventuallyTrue(t, "a leader", func() bool { return holder() != "" }, failover)
	first := holder()
	deleteNamespace(t, c, "first")

	stops[first]()
	second := map[string]string{"a": "b", "b": "a"}[first]
	envtest.EventuallyTrue(t, "the other replica leading", func() bool { return holder() == second }, failover)
	// The survivor's own server, in case the stopped one's went too.
	c2, err := client.New(replicas[second].Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deleteNamespace(t, c2, "second")
}

// failover bounds the waits: a takeover waits out the stopped
// replica's lease.
var failover = envtest.Within(60 * time.Second)

// deleteNamespace creates a namespace with a ConfigMap, deletes it and
// waits until it is gone: only a running namespace controller gets it
// there.
func deleteNamespace(t *testing.T, c *client.Client, name string) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ns); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, fmt.Sprintf("namespace %s gone", name), func() bool {
		return client.IsNotFound(c.Get(ctx, types.NamespacedName{Name: name}, &corev1.Namespace{}))
	}, failover)
}
