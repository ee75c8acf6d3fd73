package cache_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestWithSetpointClient runs a typed informer on Setpoint's own client:
// the runtime's halves working together, on both initial-list paths.
func TestWithSetpointClient(t *testing.T) {
	for _, tc := range []struct {
		name     string
		paged    bool
		wantPath string // a request the reflector must have made
	}{
		{"WatchList", false, "sendInitialEvents=true"},
		{"paged", true, "limit=500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			var log requestLog
			c, err := client.New(log.wrap(srv.Config), client.Options{Logger: discardLogger()})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			create := func(name, value string) *corev1.ConfigMap {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "x"}},
					Data: map[string]string{"v": value}}
				if err := c.Create(ctx, cm); err != nil {
					t.Fatal(err)
				}
				return cm
			}
			first := create("first", "1")
			lw, err := c.ListerWatcher(cmGVK, "default")
			if err != nil {
				t.Fatal(err)
			}
			inf := cache.NewInformer[cache.CM](lw, cache.InformerOptions[cache.CM]{ReflectorOptions: cache.ReflectorOptions[cache.CM]{
				Name: "setpoint-client", Logger: discardLogger(), Backoff: fastBackoff, DisableWatchList: tc.paged}})
			h := &calls[cache.CM]{}
			if _, err := inf.AddHandler(h, cache.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			syncOrFail(t, inf)
			envtest.EventuallyTrue(t, "the initial add", func() bool { return h.len() == 1 })
			if got, want := h.take()[0], "add default/first@"+first.ResourceVersion+" initial"; got != want {
				t.Fatalf("got %q, want %q", got, want)
			}

			second := create("second", "1")
			// The handler must see second before it goes: an add and a
			// delete it has not yet been told of cancel out.
			envtest.EventuallyTrue(t, "the add", func() bool { return h.len() == 1 })
			firstRV := first.ResourceVersion
			first.Data["v"] = "2"
			if err := c.Update(ctx, first); err != nil {
				t.Fatal(err)
			}
			if err := c.Delete(ctx, second); err != nil {
				t.Fatal(err)
			}
			envtest.EventuallyTrue(t, "three events", func() bool { return h.len() == 3 })
			time.Sleep(20 * time.Millisecond) // nothing else may come
			// In key order; a delete carries the version of the delete.
			got := sorted(h.take())
			want := []string{"add default/second@" + second.ResourceVersion, "delete default/second@", "update default/first@" + firstRV + "->" + first.ResourceVersion}
			if len(got) != 3 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) || got[2] != want[2] {
				t.Errorf("events\n got %q\nwant %q (the delete with its version)", got, want)
			}
			if objs := inf.Lister().Namespace("default").List(labels.Everything()); len(objs) != 1 || objs[0].Data["v"] != "2" {
				t.Errorf("lister holds %v, want first with v=2", objs)
			}
			if !strings.Contains(strings.Join(log.all(), "\n"), tc.wantPath) {
				t.Errorf("no request with %q among %v", tc.wantPath, log.all())
			}
		})
	}
}
