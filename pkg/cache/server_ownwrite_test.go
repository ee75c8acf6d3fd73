package cache_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestInformerReadsItsOwnWrite writes through the client and reads the
// write from the informer's store right after waiting for its version.
func TestInformerReadsItsOwnWrite(t *testing.T) {
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), "default")
	if err != nil {
		t.Fatal(err)
	}
	inf := cache.NewInformer[*corev1.ConfigMap](lw, cache.InformerOptions[*corev1.ConfigMap]{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = inf.Run(ctx) }()
	if err := cache.WaitForSync(ctx, inf); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "mine"}, Data: map[string]string{"v": "0"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 20; i++ {
		cm.Data["v"] = string(rune('a' + i))
		if err := c.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		err := inf.WaitForResourceVersion(wctx, cm.ResourceVersion)
		wcancel()
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		got, ok := inf.Lister().Get(types.NamespacedName{Namespace: "default", Name: "mine"}.String())
		if !ok || got.ResourceVersion != cm.ResourceVersion || got.Data["v"] != cm.Data["v"] {
			t.Fatalf("update %d: cache has %v, want resourceVersion %s", i, got, cm.ResourceVersion)
		}
	}
	got, _ := strconv.ParseUint(inf.ResourceVersion(), 10, 64)
	if want, _ := strconv.ParseUint(cm.ResourceVersion, 10, 64); got < want {
		t.Errorf("ResourceVersion() = %d, want at least %d", got, want)
	}
}
