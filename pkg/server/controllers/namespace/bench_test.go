package namespace_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/namespace"
)

// BenchmarkNamespaceDelete measures the time from deleting a namespace
// holding 1,000 objects (500 ConfigMaps, 500 custom resources, no
// finalizers) to the namespace being gone, with the controller running
// against an in-process server. Filling the namespace is not timed.
func BenchmarkNamespaceDelete(b *testing.B) {
	srv := startServer(b)
	c := newClient(b, srv.Config)
	ctx := context.Background()
	must(b, c.Create(ctx, widgetCRD()))
	runManager(b, srv.Config, withController(namespace.Options{}))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		name := fmt.Sprintf("bench-%d", i)
		must(b, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
		fill(b, c, name, 1000)
		b.StartTimer()
		must(b, c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
		for {
			err := c.Get(ctx, types.NamespacedName{Name: name}, &corev1.Namespace{})
			if client.IsNotFound(err) {
				break
			}
			must(b, err)
			time.Sleep(time.Millisecond)
		}
	}
}

// fill creates n objects in ns, alternating ConfigMaps and Widgets,
// from a few goroutines.
func fill(b *testing.B, c *client.Client, ns string, n int) {
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				name := fmt.Sprintf("obj-%04d", i)
				var obj client.Object = newConfigMap(ns, name)
				if i%2 == 1 {
					obj = newWidget(ns, name)
				}
				if err := c.Create(context.Background(), obj); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
