package cache_test

import (
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestServerCustomResource caches a custom resource as unstructured
// objects, and its metadata alone, on both initial-list paths. The
// informers start before the CRD exists, as a controller's may when it
// is deployed beside its CRD: they fail until the kind is served, then
// sync without being restarted.
func TestServerCustomResource(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paged bool
	}{
		{"WatchList", false},
		{"paged", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			w := newWriter(t, srv.Config)
			// The controller's own client: it learns of the CRD from
			// discovery, not from having written it.
			c, err := client.New(srv.Config, client.Options{Logger: discardLogger(), DiscoveryRefreshInterval: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			opts := serverOpts[U]("widgets")
			opts.DisableWatchList = tc.paged
			inf := cache.NewInformer[U](newLW(t, c, widgetGVK, "default"), opts)
			h := &calls[U]{}
			reg, err := inf.AddHandler(h, cache.HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			metaLW, err := c.MetadataListerWatcher(widgetGVK, "default")
			if err != nil {
				t.Fatal(err)
			}
			metaOpts := serverOpts[*metav1.PartialObjectMetadata]("widget metadata")
			metaOpts.DisableWatchList = tc.paged
			metaInf := cache.NewInformer[*metav1.PartialObjectMetadata](metaLW, metaOpts)
			runInformer(t, inf)
			runInformer(t, metaInf)

			envtest.EventuallyTrue(t, "the informer to find no such kind", func() bool { return meta.IsNoMatchError(inf.LastError()) })
			if inf.HasSynced() {
				t.Fatal("synced before the kind exists")
			}
			w.create(widgetCRD())
			first := newWidget("default", "first", map[string]string{"app": "x"}, map[string]any{"size": int64(1)})
			w.create(first)
			syncOrFail(t, inf, metaInf, reg)
			// The informer may list between the two creates, and then
			// hears of first live.
			envtest.EventuallyTrue(t, "the add of first", func() bool { return h.len() == 1 })
			add := "add default/first@" + first.GetResourceVersion()
			if got := h.take()[0]; got != add && got != add+" initial" {
				t.Errorf("got %q, want %q", got, add)
			}

			firstRV := first.GetResourceVersion()
			first.Object["spec"] = map[string]any{"size": int64(2)}
			w.update(first)
			second := newWidget("default", "second", nil, map[string]any{"size": int64(3)})
			w.create(second)
			envtest.EventuallyTrue(t, "two events", func() bool { return h.len() == 2 })
			eq(t, "live", sorted(h.take()), []string{
				"add default/second@" + second.GetResourceVersion(),
				"update default/first@" + firstRV + "->" + first.GetResourceVersion(),
			})
			got, ok := inf.Lister().Namespace("default").Get("first")
			if !ok || got.GetKind() != "Widget" || got.Object["spec"].(map[string]any)["size"] != int64(2) {
				t.Errorf("cached first: %v", got)
			}
			envtest.EventuallyTrue(t, "the metadata view", func() bool { return len(metaInf.Lister().List(nil)) == 2 })
			m, ok := metaInf.Lister().Namespace("default").Get("first")
			if !ok || m.Kind != "Widget" || m.Labels["app"] != "x" || m.ResourceVersion != first.GetResourceVersion() {
				t.Errorf("cached metadata of first: %+v", m)
			}
			if err := errors.Join(inf.LastError(), metaInf.LastError()); err != nil {
				t.Errorf("errors after sync: %v", err)
			}
		})
	}
}
