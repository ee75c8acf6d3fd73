package cache_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestFactoryForget stops a shared informer and hands out a new one for
// the same source afterwards.
func TestFactoryForget(t *testing.T) {
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := cache.NewFactory(func(src cache.Source) (cache.ListerWatcher, error) { return c.ListerWatcher(src.GVK, src.Namespace) }, cache.FactoryOptions{})
	ctx := runFactory(t, f)
	src := cache.Source{GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Namespace: "default"}
	old, err := cache.InformerFor[*corev1.ConfigMap](f, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.WaitForSync(ctx, old); err != nil {
		t.Fatal(err)
	}
	if !f.Forget(src) {
		t.Fatal("Forget of a running informer = false")
	}
	if f.Forget(src) {
		t.Error("a second Forget = true")
	}
	// The forgotten informer hears nothing more.
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "after"}}); err != nil {
		t.Fatal(err)
	}
	fresh, err := cache.InformerFor[*corev1.ConfigMap](f, src)
	if err != nil {
		t.Fatal(err)
	}
	if fresh == old {
		t.Fatal("InformerFor after Forget returned the forgotten informer")
	}
	if err := cache.WaitForSync(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if _, ok := fresh.Lister().Get("default/after"); !ok {
		t.Error("the new informer lacks an object created after the old one stopped")
	}
	if _, ok := old.Lister().Get("default/after"); ok {
		t.Error("the forgotten informer still follows the server")
	}
}
