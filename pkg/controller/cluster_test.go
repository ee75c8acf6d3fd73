package controller_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// testCluster is a Cluster over a real server: a client and a running
// informer factory, all namespaces.
type testCluster struct {
	c *client.Client
	f *cache.Factory
}

func newTestCluster(t *testing.T) *testCluster {
	t.Helper()
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := cache.NewFactory(func(src cache.Source) (cache.ListerWatcher, error) {
		if src.MetadataOnly {
			return c.MetadataListerWatcher(src.GVK, src.Namespace)
		}
		return c.ListerWatcher(src.GVK, src.Namespace)
	}, cache.FactoryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &testCluster{c: c, f: f}
}

func (tc *testCluster) Scheme() *runtime.Scheme { return tc.c.Scheme() }

func (tc *testCluster) Informers(_ context.Context, gvk schema.GroupVersionKind, metadataOnly bool) ([]controller.Informer, error) {
	inf, err := cache.InformerFor[cache.Object](tc.f, cache.Source{GVK: gvk, MetadataOnly: metadataOnly})
	if err != nil {
		return nil, err
	}
	return []controller.Informer{{Informer: inf}}, nil
}

// lister reads gvk's objects from the cluster's cache, as a reconciler
// does.
func (tc *testCluster) lister(t *testing.T, gvk schema.GroupVersionKind) cache.Lister[cache.Object] {
	t.Helper()
	inf, err := cache.InformerFor[cache.Object](tc.f, cache.Source{GVK: gvk})
	if err != nil {
		t.Fatal(err)
	}
	return inf.Lister()
}
